package palace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
)

// Erasing for good. Forget hides a drawer and can be undone, so its row
// keeps its text, its history keeps what changed, and the words and the
// vector it gave the indexes stay in their snapshots. Two operations take
// text off the disk instead:
//
//   - Purge erases one drawer (and the atomic facts extracted from it): its
//     text, keywords, tags and meta, its vectors, the details of its
//     history, its undo tokens and its room's closet.
//   - Rescrub runs every stored text through Scrub again, so that secrets
//     that an older redactor let through (its rules grow) leave the palace.
//
// Both then have the derived indexes forget the text (erasedSeq: the
// keyword index catches up and erases, bm25.Index.Erase, so that its
// vocabulary loses the words no drawer holds any more; the vector index
// erases the rows, and a graph's waypoints are written with a
// neighbour's vectors), write their snapshots at once, and reclaim the
// store's space (Store.Reclaim: SQLite zeroes freed pages and truncates
// its log). Other processes with the palace open do the same when they
// catch up. What stays is what no program can take back: copies made
// before (exports, backups, the file system's free blocks, a PostgreSQL
// server's old row versions until VACUUM).

// metaErasedSeq is the palace metadata key holding the seq of the latest
// erasure: an index built before it may hold erased words and vectors.
const metaErasedSeq = "erased_seq"

// Purged is what Purge erased.
type Purged struct {
	// Drawers are the drawers erased: the one named, then the atomic
	// facts extracted from it, as they are stored now (no text).
	Drawers []*Drawer `json:"drawers"`
	// History counts the rows of history erased: event details, dream
	// changes, undo tokens and the room's closet.
	History int64 `json:"history_rows"`
	// Related are the drawers that may still say what it said: the
	// episode it was extracted from (its conversation), the drawer that
	// superseded it (a duplicate the dreamer kept, or the fact's newer
	// version), and for an episode its user's profile, into which the
	// extraction of that conversation may have merged what it said. They
	// are left as they are.
	Related []string `json:"related,omitempty"`
	// Reclaimed reports that the store's freed space was zeroed and its
	// log truncated (false on PostgreSQL, or when a reader held the log).
	Reclaimed bool `json:"reclaimed"`
}

// Purge erases the drawer with that id (a drawer id, or a fact's mem-NNNN),
// whatever its status, and the atomic facts extracted from it. The row
// stays, deleted and empty (meta purged_at), so that the indexes of every
// process see the change; nothing restores it. Purging a drawer that was
// purged already fails with CodeNotFound, once it has finished what an
// earlier purge killed midway left undone (the snapshots, the log).
func (p *Palace) Purge(ctx context.Context, id string) (*Purged, error) {
	d, err := p.Lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if purged(d) {
		// A purge killed after its transaction committed left this
		// process's snapshots and the store's log to finish: asked again,
		// it finishes them (nothing is due when the first one finished).
		if _, err := p.afterErasure(ctx); err != nil {
			return nil, err
		}
		return nil, NotFoundf("%s was purged already", p.DisplayID(d))
	}
	// The vector index learns the drawer's vector keys before they are
	// cleared, so that catching up erases its rows.
	if _, err := p.vec.sync(ctx); err != nil {
		return nil, err
	}
	children, _, err := p.st.Drawers().List(ctx, store.ListQuery{Filter: Filter{Statuses: AnyStatus,
		Where: &Pred{Field: "parent_id", Op: "eq", Value: d.ID}}, Order: store.OrderSeq, Limit: maxExtracted})
	if err != nil {
		return nil, storeErr("find the facts extracted from a drawer", err)
	}
	out := &Purged{}
	for _, id := range []string{d.ParentID, d.SupersededBy} {
		if id != "" && id != d.ID {
			out.Related = append(out.Related, id)
		}
	}
	if d.Kind == KindEpisode && d.UserID != "" {
		prof, err := p.st.Drawers().Get(ctx, ProfileID(d.UserID))
		switch {
		case err == nil && prof.Kind == KindProfile && !purged(prof):
			out.Related = append(out.Related, prof.ID)
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return nil, storeErr("find the user's profile", err)
		}
	}
	err = p.Write(ctx, func(t *Tx) error {
		out.Drawers, out.History = nil, 0
		ids := []string{d.ID}
		for _, c := range children {
			ids = append(ids, c.ID)
		}
		var last int64
		for _, did := range ids {
			old, err := t.Get(did)
			if err != nil {
				return err
			}
			if purged(old) && did != d.ID {
				continue
			}
			n, err := t.st.Text().EraseDrawer(t.ctx, old.ID, old.Room)
			if err != nil {
				return storeErr("erase a drawer's history", err)
			}
			out.History += n
			nd := cloneDrawer(old)
			nd.Content, nd.Keywords, nd.Tags = "", "", []string{}
			nd.Meta = map[string]any{metaPurgedAt: t.now.UTC().Format(time.RFC3339)}
			if eid, ok := old.Meta[MetaEngramID]; ok { // an identifier: the fact keeps its name
				nd.Meta[MetaEngramID] = eid
			}
			nd.Status, nd.SupersededBy, nd.UpdatedAt = StatusDeleted, "", t.now
			if err := t.Save(old, nd, Vectors{}, map[string]any{"purged": true}); err != nil {
				return err
			}
			out.Drawers = append(out.Drawers, nd)
			last = nd.Seq
		}
		return t.recordErasure(last)
	})
	if err != nil {
		return nil, err
	}
	out.Reclaimed, err = p.afterErasure(ctx)
	return out, err
}

// maxExtracted bounds the atomic facts a purge erases with their episode:
// an episode is a conversation's stretch, and extraction keeps a few
// dozen facts of one at most.
const maxExtracted = 10000

// metaPurgedAt is the meta key of a purged drawer: when it was erased.
const metaPurgedAt = "purged_at"

// purged reports whether d is a purged drawer's row: deleted, no text,
// and the time it was erased (an export of the palace carries them).
func purged(d *Drawer) bool {
	_, ok := d.Meta[metaPurgedAt]
	return ok && d.Status == StatusDeleted && d.Content == ""
}

// PurgedMessages is what PurgeMessages erased.
type PurgedMessages struct {
	// Messages counts the buffered messages erased.
	Messages int64 `json:"messages"`
	// Reclaimed: see Purged.
	Reclaimed bool `json:"reclaimed"`
}

// PurgeMessages erases for good the messages a conversation session has
// buffered for extraction (seed 001's /add, mem_save_turn, the hooks) and
// not yet turned into memories, with the error its last failed extraction
// recorded, then reclaims the store's space as Purge does. Once extracted,
// they are an episode and its facts, which Purge erases; an extraction
// running meanwhile finds its stretch gone and writes nothing. A session
// with nothing buffered is ErrNotFound (after reclaiming, which finishes a
// purge killed before it had).
func (p *Palace) PurgeMessages(ctx context.Context, sessionID string) (*PurgedMessages, error) {
	if strings.TrimSpace(sessionID) == "" {
		return nil, Invalidf("session id is empty")
	}
	out := &PurgedMessages{}
	err := p.Write(ctx, func(t *Tx) error {
		out.Messages = 0
		st := t.st.Sessions()
		stretches, err := st.ClosedStretches(t.ctx, sessionID)
		if err != nil {
			return storeErr("read a session's buffer", err)
		}
		open, err := st.OpenStretch(t.ctx, sessionID)
		if err != nil {
			return storeErr("read a session's buffer", err)
		}
		for _, s := range append(stretches, open) {
			n, err := st.DeleteStretch(t.ctx, sessionID, s)
			if err != nil {
				return storeErr("erase a session's buffer", err)
			}
			out.Messages += n
		}
		if out.Messages == 0 {
			return nil
		}
		return storeErr("erase a session's last error", st.ClearFailures(t.ctx, sessionID))
	})
	if err != nil {
		return nil, err
	}
	if out.Reclaimed, err = p.reclaim(ctx); err != nil {
		return nil, err
	}
	if out.Messages == 0 {
		return nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("session %q has no message waiting for extraction", sessionID),
			Hint: "`loci stats` lists the sessions whose messages wait; once extracted, they are memories that `loci forget --purge ID` erases"}
	}
	return out, nil
}

// Rescrubbed is what Rescrub found and changed.
type Rescrubbed struct {
	// Drawers counts the drawers read and Changed those whose text,
	// keywords, tags, room or meta a rule now redacts.
	Drawers int `json:"drawers"`
	Changed int `json:"drawers_changed"`
	// Rows counts, by text set (store.TextSets), the other rows changed.
	Rows map[store.TextSet]int `json:"rows_changed"`
	// Reclaimed: see Purged.
	Reclaimed bool `json:"reclaimed"`
	DryRun    bool `json:"dry_run,omitempty"`
}

// rescrubBatch is the rows one transaction of Rescrub rewrites: small
// enough that other writers wait at most a few milliseconds.
const rescrubBatch = 256

// rewriteText passes every text of set to fn (store.TextWriter.Rewrite),
// rescrubBatch rows a transaction, and returns how many rows fn changed;
// with dryRun it only counts them.
func (p *Palace) rewriteText(ctx context.Context, set store.TextSet, dryRun bool, fn func(text string, isJSON bool) (string, bool)) (int, error) {
	changed, after := 0, ""
	for {
		var next string
		var n int
		err := p.Write(ctx, func(t *Tx) error {
			var err error
			next, n, err = t.st.Text().Rewrite(t.ctx, set, after, rescrubBatch, fn)
			if err == nil && dryRun {
				return errDryRun // counted; nothing is kept
			}
			return storeErr("rewrite "+string(set), err)
		})
		if err != nil && !errors.Is(err, errDryRun) {
			return changed, err
		}
		changed += n
		if next == "" {
			return changed, nil
		}
		after = next
	}
}

// PurgedFacts is what PurgeFacts erased.
type PurgedFacts struct {
	// Triples are the knowledge-graph triples erased, oldest first.
	Triples []kg.Triple `json:"-"`
	// Events counts the change-log entries whose details named them.
	Events int `json:"events"`
	// Reclaimed: see Purged.
	Reclaimed bool `json:"reclaimed"`
}

// PurgeFacts erases knowledge-graph facts for good: every triple of
// subject, or of (subject, predicate) when predicate is not "", active
// and closed (kg.Graph.Purge), and the details of the change-log entries
// that named them; then it reclaims the store's space as Purge does.
// Retracting keeps a fact's history; this keeps nothing. ErrNotFound (as
// kg.ErrNotFound) when there is no such triple.
//
// The log's details go first: were the process killed between the two
// steps, the triples would still be there and a second purge would do
// both again. No derived index holds triples, so nothing else is due.
func (p *Palace) PurgeFacts(ctx context.Context, subject, predicate string) (*PurgedFacts, error) {
	timeline, err := p.kg.Timeline(ctx, subject, predicate) // ErrNotFound when there is none
	if errors.Is(err, kg.ErrNotFound) {
		// Nothing to erase, or a purge killed before it reclaimed the
		// store's space: that is finished here.
		if _, rerr := p.reclaim(ctx); rerr != nil {
			return nil, rerr
		}
	}
	if err != nil {
		return nil, err
	}
	named := map[[2]string]bool{}
	for _, t := range timeline {
		named[[2]string{t.Subject, t.Predicate}] = true
	}
	out := &PurgedFacts{}
	out.Events, err = p.rewriteText(ctx, store.TextEvents, false, func(text string, isJSON bool) (string, bool) {
		var d struct {
			Subject   string `json:"subject"`
			Predicate string `json:"predicate"`
		}
		if !isJSON || json.Unmarshal([]byte(text), &d) != nil || !named[[2]string{d.Subject, d.Predicate}] {
			return text, false
		}
		return "{}", true
	})
	if err != nil {
		return nil, err
	}
	if out.Triples, err = p.kg.Purge(ctx, subject, predicate); err != nil {
		return nil, err
	}
	if out.Reclaimed, err = p.reclaim(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

// Rescrub runs Scrub again over everything the palace stores: every
// drawer's fields (whatever its status; a changed text is re-embedded and
// re-indexed), and every text set beside them, then has the indexes
// forget what any scrub rewrote, whether or not this one changed
// anything (run again after a scrub was killed, it finishes it). With
// dryRun it only counts.
// progress, when not nil, is called after each batch of drawers with the
// drawers read, of how many, and how many changed.
func (p *Palace) Rescrub(ctx context.Context, dryRun bool, progress func(done, total, changed int)) (*Rescrubbed, error) {
	out := &Rescrubbed{Rows: map[store.TextSet]int{}, DryRun: dryRun}
	total, err := p.st.Drawers().Count(ctx, Filter{Statuses: AnyStatus})
	if err != nil {
		return nil, storeErr("count drawers", err)
	}
	if !dryRun {
		if _, err := p.vec.sync(ctx); err != nil {
			return nil, err
		}
	}
	var last int64
	for {
		var page []*Drawer
		var err error
		last, _, err = p.st.Drawers().Scan(ctx, store.ScanQuery{Filter: Filter{Statuses: AnyStatus},
			AfterID: last, Limit: rescrubBatch}, func(d *store.Drawer, _ *store.Vector) error {
			page = append(page, d)
			return nil
		})
		if err != nil {
			return nil, storeErr("read drawers", err)
		}
		if len(page) == 0 {
			break
		}
		for _, d := range page {
			out.Drawers++
			if purged(d) || !needsScrub(d) {
				continue
			}
			out.Changed++
			if dryRun {
				continue
			}
			if _, err := p.scrubDrawer(ctx, d.ID); err != nil && !errors.Is(err, ErrNotFound) {
				return nil, err
			}
		}
		if progress != nil {
			progress(out.Drawers, int(total), out.Changed)
		}
	}
	scrubText := func(text string, isJSON bool) (string, bool) {
		if isJSON {
			clean, changed := ScrubJSON([]byte(text))
			return string(clean), changed
		}
		clean, n := Scrub(text)
		return clean, n > 0
	}
	for _, set := range store.TextSets {
		n, err := p.rewriteText(ctx, set, dryRun, scrubText)
		if err != nil {
			return nil, err
		}
		out.Rows[set] += n
	}
	if dryRun {
		return out, nil
	}
	// Finished even when this scrub changed nothing: run again after one
	// was killed midway, it finds nothing left to redact, and the
	// snapshots and the log may still hold what that one redacted.
	out.Reclaimed, err = p.afterErasure(ctx)
	return out, err
}

// scrubDrawer redacts the drawer with that id again, recording the
// erasure in the same transaction: an index that catches up across the
// change, in any process and whenever this scrub is killed, erases the
// words the old text gave it.
func (p *Palace) scrubDrawer(ctx context.Context, id string) (*Drawer, error) {
	return p.update(ctx, id, func(x *Drawer) error {
		redactDrawer(x)
		return nil
	}, true)
}

var errDryRun = errors.New("dry run")

// RowsChanged is the rows changed over every text set.
func (r *Rescrubbed) RowsChanged() int {
	n := 0
	for _, c := range r.Rows {
		n += c
	}
	return n
}

// needsScrub reports whether redactDrawer would change any field of d.
func needsScrub(d *Drawer) bool {
	x := cloneDrawer(d)
	redactDrawer(x)
	return x.Redactions != d.Redactions
}

// afterErasure has this process's indexes forget what was erased and
// writes their snapshots at once (other processes do the same when they
// catch up), then reclaims the store's space. The indexes are loaded
// first even when this process had not searched: SaveIndex writes only
// loaded ones, and the snapshots on disk must lose the erased text now.
func (p *Palace) afterErasure(ctx context.Context) (bool, error) {
	if _, err := p.kw.sync(ctx); err != nil {
		return false, err
	}
	if _, err := p.vec.sync(ctx); err != nil {
		return false, err
	}
	if err := p.SaveIndex(ctx); err != nil {
		return false, err
	}
	return p.reclaim(ctx)
}

// reclaim has the store zero the space an erasure freed and truncate its
// log (Store.Reclaim); false when it could not (PostgreSQL, a reader).
func (p *Palace) reclaim(ctx context.Context) (bool, error) {
	ok, err := p.st.Reclaim(ctx)
	return ok, storeErr("reclaim erased space", err)
}

// recordErasure marks, in the transaction that erases text, the seq at
// which it did (metaErasedSeq): an index that catches up across it
// erases the words the text gave it (keywordState.sync).
func (t *Tx) recordErasure(seq int64) error {
	return storeErr("record an erasure", t.st.Meta().Set(t.ctx, metaErasedSeq, strconv.FormatInt(seq, 10)))
}

// erasedSeq is the seq of the palace's latest erasure (0: none).
func (p *Palace) erasedSeq(ctx context.Context) (int64, error) {
	v, ok, err := p.st.Meta().Get(ctx, metaErasedSeq)
	if err != nil || !ok {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, nil // not ours to fail on: an unreadable mark is no erasure
	}
	return n, nil
}
