package dreamer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/facts"
)

// Deduplication. Two active drawers are near-duplicates when they are of
// the same kind, room, owner (user and agent), fact kind and — for event
// kinds (turns, episodes, atomic facts, sessions) — the same session within
// a day of each other; when their vectors' cosine similarity reaches the
// embedder's measured threshold; and when the text check agrees (text.go).
//
// Candidates come from the text side first, which makes the pass near
// linear: a prefix-filtering set-similarity join (each drawer's rarest
// content words are indexed; two drawers sharing the words the text check
// requires must share one of those). Exact repeats are found by a hash
// of the normalised text. Only candidate pairs have their vectors read.
//
// Each group of duplicates keeps one survivor — pinned first, then one
// that already absorbed duplicates, then higher importance, more words,
// more use, older — and every other member is linked to it: status
// superseded, superseded_by the survivor. The survivor records the ids in
// meta.merged_from and gains their tags. No text is changed or lost; a
// drawer whose merge was reverted (undo, review queue) is never superseded
// by the dreamer again.

// eventKinds are kinds whose drawers record events: the same words at
// another time or in another session are another event.
var eventKinds = map[string]bool{
	palace.KindTurn: true, palace.KindEpisode: true, palace.KindAtomicFact: true, palace.KindSession: true,
}

// dedupKind reports whether drawers of a kind are deduplicated. Agent
// cases feed skills instead, skills and profiles are derived documents.
func dedupKind(kind string) bool {
	switch kind {
	case palace.KindAgentCase, palace.KindAgentSkill, palace.KindProfile:
		return false
	}
	return true
}

const (
	eventWindowMS  = 24 * 3600 * 1000 // event kinds: at most a day apart
	maxPosting     = 5000             // bound on a posting list scanned per probe
	maxExactFanout = 16               // exact repeats linked back per drawer
)

// MetaMergedFrom is the survivor's meta key listing the drawers merged into it.
const MetaMergedFrom = "merged_from"

type dnode struct {
	sigText
	id         string
	seq        int64
	group      int32
	ts         int64
	event      bool
	pinned     bool
	absorbed   bool // already a survivor of earlier merges
	reverted   bool // a person reverted an earlier merge of it
	importance float64
	access     int64
	created    int64
	prefix     []uint32 // toks, rarest first (set after the scan)
}

type dpair struct {
	a, b     int32
	overlap  float64
	cosine   float64
	accepted bool
}

func runDedup(ctx context.Context, e *passEnv) error {
	tau, ok := dedupCosine(ctx, e)
	if !ok {
		return nil
	}
	reverted, err := dreamlog.Of(e.p).Reverted(ctx, dreamlog.OpSupersede)
	if err != nil {
		return err
	}
	v, nodes, partial, err := scanDedup(ctx, e, reverted)
	if err != nil {
		return err
	}
	e.rep.Examined = len(nodes)
	pairs, cut := candidatePairs(ctx, e, v, nodes)
	partial = partial || cut
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := scorePairs(ctx, e.p, nodes, pairs, tau); err != nil {
		return err
	}
	merges := cluster(nodes, pairs)
	if partial {
		e.rep.Status, e.rep.Note = PassPartial, "time budget spent before every drawer was compared"
	}
	if e.dry {
		for _, m := range merges {
			e.listMerge(nodes, m)
		}
		e.rep.Changed = len(merges)
		return nil
	}
	return applyMerges(ctx, e, nodes, merges)
}

// dedupCosine returns the near-duplicate threshold for the palace's
// embedder: LOCI_DEDUP_THRESHOLD, else the one measured for it, else the
// default encoder's carried to its scale of restatements (noted in the
// report). Without any (the embedder's restatements could not be
// measured) it marks the pass skipped and returns false.
func dedupCosine(ctx context.Context, e *passEnv) (float64, bool) {
	model := e.p.Embedder().ID()
	if tau, ok := e.s.dedupThreshold(model); ok {
		return tau, true
	}
	base, ok := lookupThreshold(e.s.DedupThresholds, hybridID)
	if !ok {
		base = defaultDedupCosine
	}
	rs, ok := e.p.RestatementScale(ctx)
	if !ok {
		e.rep.Status = PassSkipped
		e.rep.Note = fmt.Sprintf("no near-duplicate threshold for embedder %q: none was measured for it, and its cosines of restatements could not be measured; set LOCI_DEDUP_THRESHOLD", model)
		return 0, false
	}
	tau := embed.Translate(base, embed.HybridRestatements, rs)
	e.rep.Note = fmt.Sprintf("cosine threshold %.3f: the default encoder's %.2f carried to embedder %q's cosines of restatements", tau, base, model)
	return tau, true
}

// scanDedup reads every active drawer of a deduplicated kind into nodes.
func scanDedup(ctx context.Context, e *passEnv, reverted map[string]bool) (*vocab, []dnode, bool, error) {
	v := newVocab()
	groups := map[string]int32{}
	var nodes []dnode
	err := e.p.Scan(ctx, palace.ScanOptions{}, func(d *palace.Drawer, _ []float32) error {
		if !dedupKind(d.Kind) {
			return nil
		}
		if len(nodes)%512 == 0 && e.overBudget() {
			return errBudget
		}
		fk, _ := d.Meta[facts.MetaFactKind].(string)
		key := d.Kind + "\x00" + d.Room + "\x00" + d.UserID + "\x00" + d.AgentID + "\x00" + fk
		ev := eventKinds[d.Kind]
		if ev {
			key += "\x00" + d.SessionID
		}
		g, ok := groups[key]
		if !ok {
			g = int32(len(groups))
			groups[key] = g
		}
		_, absorbed := d.Meta[MetaMergedFrom]
		nodes = append(nodes, dnode{sigText: v.encode(d.Content, true), id: d.ID, seq: d.Seq, group: g,
			ts: d.Timestamp.UnixMilli(), event: ev, pinned: d.Pinned, absorbed: absorbed, reverted: reverted[d.ID],
			importance: d.Importance, access: d.AccessCount, created: d.CreatedAt.UnixMilli()})
		return nil
	})
	partial := errors.Is(err, errBudget)
	if err != nil && !partial {
		return nil, nil, false, err
	}
	for i := range nodes {
		n := &nodes[i]
		n.prefix = append([]uint32(nil), n.toks...)
		sort.Slice(n.prefix, func(a, b int) bool {
			x, y := n.prefix[a], n.prefix[b]
			if v.df[x] != v.df[y] {
				return v.df[x] < v.df[y]
			}
			return x < y
		})
	}
	return v, nodes, partial, nil
}

// candidatePairs runs the text join and returns the pairs that pass the
// text check. It reports whether the budget cut it short.
func candidatePairs(ctx context.Context, e *passEnv, v *vocab, nodes []dnode) ([]dpair, bool) {
	t := e.s.TextOverlap
	index := map[uint64][]int32{}
	exact := map[[2]uint64][]int32{}
	mark := make([]int32, len(nodes))
	var pairs []dpair
	consider := func(i, j int32) {
		a, b := &nodes[i], &nodes[j]
		if a.event && abs64(a.ts-b.ts) > eventWindowMS {
			return
		}
		ok, ov := v.check(&a.sigText, &b.sigText, t)
		if ok {
			pairs = append(pairs, dpair{a: j, b: i, overlap: ov})
		}
	}
	for ii := range nodes {
		i := int32(ii)
		if ii%1024 == 0 && (ctx.Err() != nil || e.overBudget()) {
			return pairs, true
		}
		n := &nodes[i]
		key := [2]uint64{uint64(n.group), n.norm}
		prev := exact[key]
		for k := len(prev) - 1; k >= 0 && k >= len(prev)-maxExactFanout; k-- {
			mark[prev[k]] = i + 1
			consider(i, prev[k])
		}
		exact[key] = append(prev, i)
		if len(n.toks) < 2 {
			continue
		}
		// Two texts that pass the check share at least minCommon of the
		// larger one's distinct words, hence of this one's: so they share
		// one of this drawer's len-minCommon+1 rarest words.
		pl := len(n.toks) - minCommon(len(n.toks), t) + 1
		pl = max(1, min(pl, len(n.prefix)))
		for _, tok := range n.prefix[:pl] {
			k := uint64(n.group)<<32 | uint64(tok)
			post := index[k]
			from := max(0, len(post)-maxPosting)
			for _, j := range post[from:] {
				if mark[j] == i+1 {
					continue
				}
				mark[j] = i + 1
				m := &nodes[j]
				if min(len(n.toks), len(m.toks)) < minCommon(max(len(n.toks), len(m.toks)), t) {
					continue // too different in length to share enough words
				}
				consider(i, j)
			}
			index[k] = append(post, i)
		}
	}
	return pairs, false
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// scorePairs reads the vectors of the candidates and accepts the pairs at
// or above the cosine threshold. Drawers without a current vector are
// left alone (the index pass re-embeds them first).
func scorePairs(ctx context.Context, p *palace.Palace, nodes []dnode, pairs []dpair, tau float64) error {
	need := map[string]bool{}
	for _, pr := range pairs {
		need[nodes[pr.a].id], need[nodes[pr.b].id] = true, true
	}
	ids := make([]string, 0, len(need))
	for id := range need {
		ids = append(ids, id)
	}
	vecs, err := p.VectorsByID(ctx, ids)
	if err != nil {
		return err
	}
	for k := range pairs {
		pr := &pairs[k]
		va, vb := vecs[nodes[pr.a].id], vecs[nodes[pr.b].id]
		if va == nil || vb == nil {
			continue
		}
		pr.cosine = math.Round(float64(embed.Dot(va, vb))*1e4) / 1e4
		pr.accepted = pr.cosine >= tau
	}
	return nil
}

// merge is one survivor and the duplicates linked to it.
type merge struct {
	survivor int32
	dups     []int32
	pairs    []*dpair
}

// better orders survivors: pinned, already absorbing, more important,
// more words, more used, older, smaller id.
func better(a, b *dnode) bool {
	switch {
	case a.pinned != b.pinned:
		return a.pinned
	case a.absorbed != b.absorbed:
		return a.absorbed
	case a.importance != b.importance:
		return a.importance > b.importance
	case len(a.toks) != len(b.toks):
		return len(a.toks) > len(b.toks)
	case a.access != b.access:
		return a.access > b.access
	case a.created != b.created:
		return a.created < b.created
	}
	return a.id < b.id
}

// cluster picks survivors greedily: the best drawer of the accepted-pair
// graph keeps its memory and absorbs its direct neighbours, so every
// duplicate is itself similar to its survivor (no chains).
func cluster(nodes []dnode, pairs []dpair) []merge {
	adj := map[int32][]*dpair{}
	for k := range pairs {
		pr := &pairs[k]
		if pr.accepted {
			adj[pr.a] = append(adj[pr.a], pr)
			adj[pr.b] = append(adj[pr.b], pr)
		}
	}
	order := make([]int32, 0, len(adj))
	for n := range adj {
		order = append(order, n)
	}
	sort.Slice(order, func(i, j int) bool { return better(&nodes[order[i]], &nodes[order[j]]) })
	assigned := map[int32]bool{}
	var out []merge
	for _, s := range order {
		if assigned[s] {
			continue
		}
		assigned[s] = true
		edges := adj[s]
		sort.SliceStable(edges, func(i, j int) bool { return edges[i].cosine > edges[j].cosine })
		m := merge{survivor: s}
		for _, pr := range edges {
			o := pr.a
			if o == s {
				o = pr.b
			}
			d := &nodes[o]
			if assigned[o] || d.pinned || d.reverted {
				continue
			}
			assigned[o] = true
			m.dups = append(m.dups, o)
			m.pairs = append(m.pairs, pr)
		}
		if len(m.dups) > 0 {
			out = append(out, m)
		}
	}
	return out
}

func (e *passEnv) listMerge(nodes []dnode, m merge) {
	for k, d := range m.dups {
		if len(e.rep.Merges) >= maxListed {
			e.rep.Omitted++
			continue
		}
		e.rep.Merges = append(e.rep.Merges, Merge{Survivor: nodes[m.survivor].id, Duplicate: nodes[d].id,
			Cosine: m.pairs[k].cosine, Overlap: math.Round(m.pairs[k].overlap*1e4) / 1e4})
	}
}

// applyMerges commits every merge in one transaction.
func applyMerges(ctx context.Context, e *passEnv, nodes []dnode, merges []merge) error {
	if len(merges) == 0 {
		return nil
	}
	var ids []string
	for _, m := range merges {
		ids = append(ids, nodes[m.survivor].id)
		for _, d := range m.dups {
			ids = append(ids, nodes[d].id)
		}
	}
	drawers, err := loadDrawers(ctx, e.p, ids)
	if err != nil {
		return err
	}
	tx, err := e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	superseded := palace.StatusSuperseded
	for k, m := range merges {
		if k == len(merges)/2 {
			if err := e.midApply(ctx); err != nil {
				return err
			}
		}
		sv := drawers[nodes[m.survivor].id]
		if sv == nil || sv.Seq != nodes[m.survivor].seq || sv.Status != palace.StatusActive {
			continue
		}
		var linked []string
		tags := append([]string(nil), sv.Tags...)
		have := map[string]bool{}
		for _, t := range tags {
			have[t] = true
		}
		for i, di := range m.dups {
			d := drawers[nodes[di].id]
			if d == nil || d.Seq != nodes[di].seq {
				continue
			}
			by := sv.ID
			ok, err := tx.Patch(dreamlog.OpSupersede, d, dreamlog.Patch{Status: &superseded, SupersededBy: &by})
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			linked = append(linked, d.ID)
			for _, t := range d.Tags {
				if !have[t] && len(tags) < palace.MaxTags {
					have[t] = true
					tags = append(tags, t)
				}
			}
			if len(e.rep.Merges) < maxListed {
				e.rep.Merges = append(e.rep.Merges, Merge{Survivor: sv.ID, Duplicate: d.ID, Kind: d.Kind,
					Cosine: m.pairs[i].cosine, Overlap: math.Round(m.pairs[i].overlap*1e4) / 1e4})
			} else {
				e.rep.Omitted++
			}
		}
		if len(linked) == 0 {
			continue
		}
		meta := map[string]any{}
		for k, v := range sv.Meta {
			meta[k] = v
		}
		var from []any
		if old, ok := meta[MetaMergedFrom].([]any); ok {
			from = append(from, old...)
		}
		for _, id := range linked {
			from = append(from, id)
		}
		meta[MetaMergedFrom] = from
		if _, err := tx.Patch(dreamlog.OpProvenance, sv, dreamlog.Patch{Meta: meta, Tags: tags}); err != nil {
			return err
		}
	}
	e.rep.Changed = tx.Changes()
	return tx.Commit()
}

// loadDrawers reads drawers of any status by id.
func loadDrawers(ctx context.Context, p *palace.Palace, ids []string) (map[string]*palace.Drawer, error) {
	out := make(map[string]*palace.Drawer, len(ids))
	for lo := 0; lo < len(ids); lo += 500 {
		chunk := ids[lo:min(lo+500, len(ids))]
		ds, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{IDs: chunk, Statuses: palace.AnyStatus},
			Limit: len(chunk), Order: "seq"})
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			out[d.ID] = d
		}
	}
	return out, nil
}
