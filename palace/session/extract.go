package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/facts"
)

// EpisodeType is the meta "type" of episodes extracted from conversation.
const EpisodeType = "Conversation"

// Extracted drawers record a meta "parent_type" (seed 001's filter field):
// "memcell" for episodes and agent cases (they come straight from a
// stretch of buffered messages, seed 001's memory cell), "episode" for
// atomic facts (whose ParentID is their episode).

// extractionPlan is what one stretch becomes.
type extractionPlan struct {
	drawers  []*palace.Drawer // episodes, their atomic facts, agent cases
	merged   []string         // stored facts this stretch restated (filled in at commit)
	profiles []profileUpdate
	name     string // extractor name, recorded as provenance
}

type profileUpdate struct {
	userID    string
	sessionID string
	at        time.Time
	data      map[string]any
}

// ids are the drawers the stretch became: new ones, and stored facts it
// restated.
func (pl *extractionPlan) ids() []string {
	out := make([]string, 0, len(pl.drawers)+len(pl.merged))
	for _, d := range pl.drawers {
		out = append(out, d.ID)
	}
	return append(out, pl.merged...)
}

// userOwners returns who owns the user-track memories of a stretch.
func userOwners(msgs []extract.Message, userID string) []string {
	if userID != "" {
		return []string{userID}
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Role == "user" && m.SenderID != "" && !seen[m.SenderID] {
			seen[m.SenderID] = true
			out = append(out, m.SenderID)
		}
	}
	if len(out) == 0 {
		out = []string{"user"}
	}
	return out
}

// agentOwner returns the agent id of a stretch, "" when none is known.
func agentOwner(msgs []extract.Message, agentID string) string {
	if agentID != "" {
		return agentID
	}
	for _, m := range msgs {
		if m.Role == "assistant" && m.SenderID != "" {
			return m.SenderID
		}
	}
	return ""
}

func hasToolCalls(msgs []extract.Message) bool {
	for _, m := range msgs {
		if len(m.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

func sessionSenders(msgs []extract.Message) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.SenderID != "" && !seen[m.SenderID] {
			seen[m.SenderID] = true
			out = append(out, m.SenderID)
		}
	}
	return out
}

// planExtraction runs the extractor over a stretch and lays out the drawers
// it becomes, with their seed-001 ids.
func (r Recorder) planExtraction(ctx context.Context, sessionID string, buf []bufferedRow, opt Options) (*extractionPlan, error) {
	msgs := make([]extract.Message, len(buf))
	for i, b := range buf {
		msgs[i] = b.msg
	}
	ext := r.extractor()
	plan := &extractionPlan{name: ext.Name()}
	first := msgs[0].Timestamp
	if !opt.Agent {
		for _, owner := range userOwners(msgs, opt.UserID) {
			res, err := ext.Extract(ctx, owner, false, msgs)
			if err != nil {
				return nil, palace.StoreError("extract episodes with "+ext.Name(), err)
			}
			for _, ep := range res.Episodes {
				if err := r.planEpisode(ctx, plan, owner, sessionID, ep, msgs, first); err != nil {
					return nil, err
				}
			}
			if len(res.Profile) > 0 {
				plan.profiles = append(plan.profiles, profileUpdate{userID: owner, sessionID: sessionID, at: first, data: res.Profile})
			}
		}
	}
	agent := agentOwner(msgs, opt.AgentID)
	if opt.Agent && agent == "" {
		agent = "agent"
	}
	if opt.Agent || (agent != "" && hasToolCalls(msgs)) {
		res, err := ext.Extract(ctx, agent, true, msgs)
		if err != nil {
			return nil, palace.StoreError("extract agent cases with "+ext.Name(), err)
		}
		for _, c := range res.Cases {
			if err := r.planCase(ctx, plan, agent, sessionID, c, msgs, first); err != nil {
				return nil, err
			}
		}
	}
	return plan, nil
}

func (r Recorder) planEpisode(ctx context.Context, plan *extractionPlan, owner, sessionID string, ep extract.Episode, msgs []extract.Message, first time.Time) error {
	narrative := strings.TrimSpace(ep.Narrative)
	if narrative == "" {
		narrative = strings.TrimSpace(ep.Summary)
	}
	if narrative == "" {
		return nil // nothing worth keeping
	}
	at := ep.Timestamp
	if at.IsZero() {
		at = first
	}
	senders := ep.SenderIDs
	if len(senders) == 0 {
		senders = sessionSenders(msgs)
	}
	ids, err := r.AllocIDs(ctx, owner, "ep", at, 1)
	if err != nil {
		return err
	}
	epID := ids[0]
	plan.drawers = append(plan.drawers, &palace.Drawer{
		ID: epID, Kind: palace.KindEpisode, Content: narrative,
		Keywords: strings.TrimSpace(ep.Subject + "\n" + ep.Summary),
		UserID:   owner, SessionID: sessionID, SenderIDs: senders, Timestamp: at,
		Meta: map[string]any{"subject": ep.Subject, "summary": ep.Summary, "type": EpisodeType, "extractor": plan.name,
			"parent_type": "memcell"},
	})
	var facts []string
	for _, f := range ep.Facts {
		if f = strings.TrimSpace(f); f != "" {
			facts = append(facts, f)
		}
	}
	if len(facts) == 0 {
		return nil
	}
	fids, err := r.AllocIDs(ctx, owner, "af", at, len(facts))
	if err != nil {
		return err
	}
	for i, f := range facts {
		plan.drawers = append(plan.drawers, &palace.Drawer{
			ID: fids[i], Kind: palace.KindAtomicFact, Content: f, ParentID: epID,
			UserID: owner, SessionID: sessionID, SenderIDs: senders, Timestamp: at,
			Meta: map[string]any{"extractor": plan.name, "parent_type": palace.KindEpisode},
		})
	}
	return nil
}

func (r Recorder) planCase(ctx context.Context, plan *extractionPlan, agent, sessionID string, c extract.AgentCase, msgs []extract.Message, first time.Time) error {
	intent := strings.TrimSpace(c.TaskIntent)
	if intent == "" && strings.TrimSpace(c.Approach) == "" {
		return nil
	}
	at := c.Timestamp
	if at.IsZero() {
		at = first
	}
	q := c.QualityScore
	if !(q >= 0 && q <= 1) {
		q = max(0, min(1, q)) // NaN becomes 0
	}
	ids, err := r.AllocIDs(ctx, agent, "ac", at, 1)
	if err != nil {
		return err
	}
	content := intent
	if c.Approach != "" {
		content += "\n" + c.Approach
	}
	if c.KeyInsight != "" {
		content += "\nKey insight: " + c.KeyInsight
	}
	plan.drawers = append(plan.drawers, &palace.Drawer{
		ID: ids[0], Kind: palace.KindAgentCase, Content: content,
		AgentID: agent, SessionID: sessionID, SenderIDs: sessionSenders(msgs), Timestamp: at,
		Meta: map[string]any{"task_intent": intent, "approach": c.Approach, "quality_score": q,
			"key_insight": c.KeyInsight, "extractor": plan.name, "parent_type": "memcell"},
	})
	return nil
}

// restatement is an atomic fact the palace holds already: the owner said
// it again in another session. It is merged into the stored fact (its
// history records when and where it was restated) rather than stored
// twice.
type restatement struct {
	existing string         // drawer id of the stored fact
	fact     *palace.Drawer // the fact as extracted now
}

// findRestatements splits the plan's atomic facts into new ones and
// restatements of facts already stored for the same owner (found by the
// palace's own search, confirmed by facts.Restates), and drops facts the
// plan states twice.
func (r Recorder) findRestatements(ctx context.Context, ds []*palace.Drawer) ([]*palace.Drawer, []restatement, error) {
	var keep []*palace.Drawer
	var again []restatement
	var seen []*palace.Drawer
next:
	for _, d := range ds {
		if d.Kind != palace.KindAtomicFact {
			keep = append(keep, d)
			continue
		}
		for _, s := range seen {
			if s.UserID == d.UserID && facts.Restates(s.Content, d.Content) {
				continue next
			}
		}
		seen = append(seen, d)
		hits, err := r.p.Search(ctx, palace.SearchRequest{Query: d.Content, K: 5, NoAccess: true, NoTimeHint: true,
			Filter: palace.Filter{Kinds: []string{palace.KindAtomicFact}, UserID: d.UserID}})
		if err != nil {
			return nil, nil, err
		}
		for _, h := range hits {
			if facts.Restates(h.Drawer.Content, d.Content) {
				again = append(again, restatement{existing: h.Drawer.ID, fact: d})
				continue next
			}
		}
		keep = append(keep, d)
	}
	return keep, again, nil
}

// mergeRestatement records in the stored fact that it was stated again:
// meta "restated" gains the session, time and episode, and the change log
// gets an entry, so the fact's history shows every session that said it.
func mergeRestatement(t *palace.Tx, rs restatement) (string, error) {
	d, err := t.Modify(rs.existing, map[string]any{"restated_in": rs.fact.SessionID}, func(x *palace.Drawer) error {
		if x.Status != palace.StatusActive {
			return palace.ErrUnchanged
		}
		if x.Meta == nil {
			x.Meta = map[string]any{}
		}
		list, _ := x.Meta["restated"].([]any)
		x.Meta["restated"] = append(list, map[string]any{"session_id": rs.fact.SessionID,
			"at": rs.fact.Timestamp.UTC().Format(time.RFC3339), "episode": rs.fact.ParentID})
		return nil
	})
	if err != nil {
		return "", err
	}
	return d.ID, nil
}

// commitExtraction writes the plan's drawers, merges restated facts and
// profiles and deletes the stretch's buffer rows, all in one transaction.
func (r Recorder) commitExtraction(ctx context.Context, sessionID string, stretch int64, buf []bufferedRow, plan *extractionPlan) error {
	ds, again, err := r.findRestatements(ctx, plan.drawers)
	if err != nil {
		return err
	}
	plan.drawers = append([]*palace.Drawer(nil), ds...)
	type pending struct {
		profileUpdate
		base string         // profile_data JSON the vector was made from
		vec  palace.Vectors // vectors of the merged text, when base still holds
	}
	var updates []pending
	for _, pu := range plan.profiles {
		cur, err := r.p.Get(ctx, palace.ProfileID(pu.userID))
		if errors.Is(err, palace.ErrNotFound) {
			data := mergeProfile(nil, pu.data)
			ds = append(ds, &palace.Drawer{
				ID: palace.ProfileID(pu.userID), Kind: palace.KindProfile, Content: renderProfile(pu.userID, data),
				UserID: pu.userID, SessionID: pu.sessionID, Timestamp: pu.at,
				Meta: map[string]any{"profile_data": data},
			})
			continue
		}
		if err != nil {
			return err
		}
		base := profileDataOf(cur.Meta)
		if cur.Status != palace.StatusActive {
			base = map[string]any{} // a forgotten profile starts afresh
		}
		merged := mergeProfile(base, pu.data)
		vs := r.p.Embed(ctx, []*palace.Drawer{{Content: renderProfile(pu.userID, merged)}})
		updates = append(updates, pending{profileUpdate: pu, base: canonicalJSON(base), vec: vs[0]})
	}
	return r.p.AddWith(ctx, ds, func(t *palace.Tx) error {
		merged := make([]string, 0, len(again))
		for _, rs := range again {
			id, err := mergeRestatement(t, rs)
			if err != nil {
				return err
			}
			merged = append(merged, id)
		}
		plan.merged = merged
		st := t.Store().Sessions()
		n, err := st.DeleteStretch(ctx, sessionID, stretch)
		if err != nil {
			return palace.StoreError("clear session buffer", err)
		}
		if n != int64(len(buf)) {
			return errConsumed
		}
		for _, u := range updates {
			if err := mergeProfileTx(t, u.profileUpdate, u.base, u.vec); err != nil {
				return err
			}
		}
		if err := st.ClearFailures(ctx, sessionID); err != nil {
			return palace.StoreError("write session state", err)
		}
		_, err = t.Log(EventExtracted, "", map[string]any{
			"session_id": sessionID, "messages": len(buf), "drawers": plan.ids(), "extractor": plan.name})
		return err
	})
}

// mergeProfileTx merges an update into an existing profile drawer inside
// the extraction's transaction. vec is used only if the stored profile is
// still the one it was computed from; otherwise the drawer is left without
// a vector for the dreamer to re-embed.
func mergeProfileTx(t *palace.Tx, u profileUpdate, base string, vec palace.Vectors) error {
	cur, err := t.Get(palace.ProfileID(u.userID))
	if err != nil {
		return err
	}
	meta := map[string]any{}
	for k, v := range cur.Meta {
		meta[k] = v
	}
	data := profileDataOf(meta)
	if cur.Status != palace.StatusActive {
		data = map[string]any{} // a forgotten profile starts afresh
	}
	if canonicalJSON(data) != base {
		vec = palace.Vectors{}
	}
	merged := mergeProfile(data, u.data)
	meta["profile_data"] = merged
	d := *cur
	d.Content, d.Meta, d.Status, d.UpdatedAt = renderProfile(u.userID, merged), meta, palace.StatusActive, t.Now()
	return t.Save(cur, &d, vec, map[string]any{"kind": palace.KindProfile})
}

func profileDataOf(meta map[string]any) map[string]any {
	if m, ok := meta["profile_data"].(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// mergeProfile merges update into a copy of base: scalars are replaced,
// lists are unioned (base order first), objects are merged recursively.
func mergeProfile(base, update map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(update))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range update {
		switch nv := v.(type) {
		case map[string]any:
			old, _ := out[k].(map[string]any)
			out[k] = mergeProfile(old, nv)
		case []any:
			old, _ := out[k].([]any)
			out[k] = unionList(old, nv)
		case []string:
			l := make([]any, len(nv))
			for i, s := range nv {
				l[i] = s
			}
			old, _ := out[k].([]any)
			out[k] = unionList(old, l)
		case nil:
		default:
			out[k] = v
		}
	}
	return out
}

func unionList(a, b []any) []any {
	out := make([]any, 0, len(a)+len(b))
	seen := map[string]bool{}
	for _, l := range [][]any{a, b} {
		for _, v := range l {
			k := canonicalJSON(v)
			if !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out
}

func canonicalJSON(v any) string {
	b, _ := json.Marshal(v) // map keys are sorted by encoding/json
	return string(b)
}

// renderProfile is the searchable text of a profile drawer.
func renderProfile(userID string, data map[string]any) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "Profile of %s.", userID)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n%s: %s", k, profileValue(data[k]))
	}
	return b.String()
}

func profileValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = profileValue(e)
		}
		return strings.Join(parts, "; ")
	default:
		return canonicalJSON(v)
	}
}
