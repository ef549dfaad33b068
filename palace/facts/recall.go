package facts

import (
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"

	"context"
	"math"
	"sort"
	"strings"
	"time"
)

// MinFactCosine is the vector similarity at which a fact that shares no
// search term with the query still counts as a match in Recall, on the
// default encoder's scale (embed.HybridScale): with another embedder it is
// the cosine as far above what unrelated texts score (Palace.CosineFloor).
// It is lenient on purpose. The default encoder barely tells a paraphrase
// from an unrelated fact ("which package manager do I like" scores "I
// prefer pnpm over npm" below a fact about a sister in Porto), and a
// caller who asks for facts can pass over one too many, but not use one
// that was left out. The prompt hook, which nobody asks, is strict.
const MinFactCosine = 0.5

// RelevantHit reports whether a search hit is a real match rather than
// the tail of a ranking: it matched at least one query term (BM25), or its
// vector similarity is at least minCosine. A cosine of 0 was not computed
// (a hit lifted beside another), and matches no floor, however low a
// floor carried to another embedder's scale is.
func RelevantHit(h palace.Hit, minCosine float64) bool {
	return h.KeywordRank > 0 || (h.Cosine != 0 && h.Cosine >= minCosine)
}

// recencyHalfLife weighs how fast a fact's recency fades in the no-query
// ordering of Recall.
const recencyHalfLife = 30 * 24 * time.Hour

// Recall returns promoted facts (status active, not past the
// staleness horizon), at most limit of them.
//
// With an empty query every promoted fact qualifies, ordered by
// 0.6·confidence + 0.4·recency, where recency halves every 30 days since
// the fact was last confirmed. With a query the shared hybrid search ranks
// the facts and weak matches (see RelevantHit with MinFactCosine) are
// dropped.
//
// Facts past the horizon are marked stale on the way (the dreamer does the
// same in the background), so they leave recall even if the dreamer is not
// running.
func (q Queue) Recall(ctx context.Context, query string, limit int) ([]Fact, error) {
	if limit <= 0 {
		return nil, palace.Invalidf("limit must be at least 1, got %d", limit)
	}
	if limit > 1000 {
		return nil, palace.Invalidf("limit must be at most 1000, got %d", limit)
	}
	settings, err := q.p.Registry().Settings()
	if err != nil {
		return nil, err
	}
	now := q.p.Now().UTC()
	if _, err := q.MarkStale(ctx, settings.FactHorizon); err != nil {
		log := q.p.Logger()
		log.Warn().Err(err).Msg("mark stale facts")
	}
	fresh := func(d *palace.Drawer) bool {
		return settings.FactHorizon <= 0 || !confirmedAt(d).Before(now.Add(-settings.FactHorizon))
	}
	filter := palace.Filter{Kinds: []string{palace.KindFact}}
	out := []Fact{}
	if strings.TrimSpace(query) == "" {
		ds, _, err := q.p.List(ctx, palace.ListOptions{Filter: filter, Order: "newest", Limit: 10000})
		if err != nil {
			return nil, err
		}
		type scored struct {
			d     *palace.Drawer
			score float64
		}
		all := make([]scored, 0, len(ds))
		for _, d := range ds {
			if !fresh(d) {
				continue
			}
			age := max(now.Sub(confirmedAt(d)), 0)
			recency := math.Exp2(-float64(age) / float64(recencyHalfLife))
			all = append(all, scored{d, 0.6*factConfidence(d.Confidence) + 0.4*recency})
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
		for _, s := range all {
			if len(out) == limit {
				break
			}
			out = append(out, FromDrawer(s.d))
		}
		return out, nil
	}
	hits, err := q.p.Search(ctx, palace.SearchRequest{Query: query, K: min(max(limit*2, 20), 1000), Filter: filter})
	if err != nil {
		return nil, err
	}
	floor := q.p.CosineFloor(ctx, MinFactCosine, embed.HybridScale)
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		if RelevantHit(h, floor) && fresh(h.Drawer) {
			out = append(out, FromDrawer(h.Drawer))
		}
	}
	return out, nil
}

// MarkStale moves active facts not confirmed within horizon (by
// confirmed_at, else their last change) to status stale and returns how
// many it moved. A horizon of 0 marks nothing.
func (q Queue) MarkStale(ctx context.Context, horizon time.Duration) (int, error) {
	if horizon <= 0 {
		return 0, nil
	}
	cutoff := q.p.Now().UTC().Add(-horizon)
	// Candidates in SQL: confirmed_at (fixed-width RFC 3339, so string order
	// is time order) or, for facts without one, the last change is older
	// than the cutoff. confirmedAt decides below.
	f := palace.Filter{Kinds: []string{palace.KindFact}, Where: &palace.Pred{Or: []palace.Pred{
		{Field: "meta." + MetaConfirmedAt, Op: "lt", Value: formatMetaTime(cutoff)},
		{Field: "updated_at", Op: "lt", Value: cutoff},
	}}}
	n := 0
	for offset := 0; ; offset += 1000 {
		ds, _, err := q.p.List(ctx, palace.ListOptions{Filter: f, Order: "oldest", Limit: 1000, Offset: offset})
		if err != nil {
			return n, err
		}
		moved := 0
		for _, d := range ds {
			if !confirmedAt(d).Before(cutoff) {
				continue
			}
			changed := false
			_, err := q.p.Update(ctx, d.ID, func(x *palace.Drawer) error {
				changed = false
				if x.Status != palace.StatusActive || !confirmedAt(x).Before(cutoff) {
					return palace.ErrUnchanged
				}
				x.Status = palace.StatusStale
				changed = true
				return nil
			})
			if err != nil {
				return n, err
			}
			if changed {
				n++
				moved++
			}
		}
		if len(ds) < 1000 {
			return n, nil
		}
		offset -= moved // moved rows left the active set
	}
}
