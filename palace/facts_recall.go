package palace

import (
	"context"
	"math"
	"sort"
	"strings"
	"time"
)

// MinFactCosine is the vector similarity at which a fact that shares no
// search term with the query still counts as a match in RecallFacts.
const MinFactCosine = 0.5

// RelevantHit reports whether a search hit is a real match rather than
// the tail of a ranking: it matched at least one query term (BM25), or its
// vector similarity is at least minCosine.
func RelevantHit(h Hit, minCosine float64) bool {
	return h.KeywordRank > 0 || h.Cosine >= minCosine
}

// recencyHalfLife weighs how fast a fact's recency fades in the no-query
// ordering of RecallFacts.
const recencyHalfLife = 30 * 24 * time.Hour

// RecallFacts returns promoted facts (status active, not past the
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
func (p *Palace) RecallFacts(ctx context.Context, query string, limit int) ([]Fact, error) {
	if limit <= 0 {
		return nil, Invalidf("limit must be at least 1, got %d", limit)
	}
	if limit > 1000 {
		return nil, Invalidf("limit must be at most 1000, got %d", limit)
	}
	settings, err := p.reg.Settings()
	if err != nil {
		return nil, err
	}
	now := p.now().UTC()
	if _, err := p.MarkStaleFacts(ctx, settings.FactHorizon); err != nil {
		p.log.Warn().Err(err).Msg("mark stale facts")
	}
	fresh := func(d *Drawer) bool {
		return settings.FactHorizon <= 0 || !confirmedAt(d).Before(now.Add(-settings.FactHorizon))
	}
	filter := Filter{Kinds: []string{KindFact}}
	out := []Fact{}
	if strings.TrimSpace(query) == "" {
		ds, _, err := p.List(ctx, ListOptions{Filter: filter, Order: "newest", Limit: 10000})
		if err != nil {
			return nil, err
		}
		type scored struct {
			d     *Drawer
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
			out = append(out, FactFromDrawer(s.d))
		}
		return out, nil
	}
	hits, err := p.Search(ctx, SearchRequest{Query: query, K: min(max(limit*2, 20), 1000), Filter: filter})
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		if RelevantHit(h, MinFactCosine) && fresh(h.Drawer) {
			out = append(out, FactFromDrawer(h.Drawer))
		}
	}
	return out, nil
}

// MarkStaleFacts moves active facts not confirmed within horizon (by
// confirmed_at, else their last change) to status stale and returns how
// many it moved. A horizon of 0 marks nothing.
func (p *Palace) MarkStaleFacts(ctx context.Context, horizon time.Duration) (int, error) {
	if horizon <= 0 {
		return 0, nil
	}
	cutoff := p.now().UTC().Add(-horizon)
	// Candidates in SQL: confirmed_at (fixed-width RFC 3339, so string order
	// is time order) or, for facts without one, the last change is older
	// than the cutoff. confirmedAt decides below.
	f := Filter{Kinds: []string{KindFact}, Where: &Pred{Or: []Pred{
		{Field: "meta." + MetaConfirmedAt, Op: "lt", Value: formatMetaTime(cutoff)},
		{Field: "updated_at", Op: "lt", Value: cutoff},
	}}}
	n := 0
	for offset := 0; ; offset += 1000 {
		ds, _, err := p.List(ctx, ListOptions{Filter: f, Order: "oldest", Limit: 1000, Offset: offset})
		if err != nil {
			return n, err
		}
		moved := 0
		for _, d := range ds {
			if !confirmedAt(d).Before(cutoff) {
				continue
			}
			_, err := p.Update(ctx, d.ID, func(x *Drawer) error {
				if x.Status != StatusActive || !confirmedAt(x).Before(cutoff) {
					return errUnchanged
				}
				x.Status = StatusStale
				return nil
			})
			if err != nil && err != errUnchanged {
				return n, err
			}
			if err == nil {
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

// errUnchanged aborts an Update whose precondition no longer holds.
var errUnchanged = &Error{Code: CodeConflict, Message: "unchanged"}
