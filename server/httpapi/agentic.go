package httpapi

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/loci-mem/loci/palace"
)

// Agentic search (seed 001's "agentic" method) runs several rounds on the
// shared engine and fuses them by reciprocal rank:
//
//   - with an LLM configured (LOCI_LLM_*): a hybrid round for the query,
//     then the model proposes up to three follow-up queries from what that
//     round found, each searched in turn; the fused list is reranked by the
//     model. A model failure falls back to the non-LLM path.
//   - without one: the query is decomposed into sub-queries (split at
//     question marks, semicolons and exclamation marks, at a comma or one
//     of the conjunctions "and", "or", "also", "then", "plus", "versus"
//     where a new question follows, and at every comma of a list of
//     topics that asks nothing; parts of two words or more), each a
//     hybrid round. At most three extra rounds; a query of one part is
//     the hybrid search alone.
//
// Fused score: the sum of 1/(60+rank) over the rounds, divided by its
// maximum (rank 1 in every round), so it lies in (0,1]. A hit's cosine is
// the best any round measured.

type subQuery struct {
	text string
	mode palace.Mode
}

func (a *API) agentic(ctx context.Context, p *palace.Palace, query string, f palace.Filter, k int) ([]palace.Hit, error) {
	depth := min(max(k*2, 20), 1000)
	first, err := p.Search(ctx, palace.SearchRequest{Query: query, K: depth, Mode: palace.ModeHybrid, Filter: f})
	if err != nil {
		return nil, err
	}
	lists := [][]palace.Hit{first}
	subs := decompose(query)
	if a.cfg.LLM != nil {
		found := make([]string, 0, 5)
		for _, h := range first[:min(5, len(first))] {
			found = append(found, h.Drawer.Content)
		}
		qs, err := a.cfg.LLM.Rewrite(ctx, query, found, 3)
		if err != nil {
			a.log.Warn().Err(err).Msg("agentic search: query rewriting failed; decomposing instead")
		} else {
			subs = subs[:0]
			for _, q := range qs {
				subs = append(subs, subQuery{text: q, mode: palace.ModeHybrid})
			}
		}
	}
	for _, sq := range subs {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: sq.text, K: depth, Mode: sq.mode, Filter: f, NoAccess: true})
		if err != nil {
			return nil, err
		}
		lists = append(lists, hits)
	}
	fused := fuse(lists)
	if a.cfg.LLM != nil {
		fused = a.llmRerank(ctx, query, fused[:min(len(fused), max(k, 20))])
	}
	if len(fused) > k {
		fused = fused[:k]
	}
	return fused, nil
}

// fuse merges ranked lists by reciprocal rank.
func fuse(lists [][]palace.Hit) []palace.Hit {
	const rrfK = 60.0
	type acc struct {
		hit   palace.Hit
		score float64
	}
	byID := map[string]*acc{}
	for _, l := range lists {
		for i, h := range l {
			c := byID[h.Drawer.ID]
			if c == nil {
				c = &acc{hit: h}
				byID[h.Drawer.ID] = c
			}
			c.score += 1 / (rrfK + float64(i+1))
			c.hit.Cosine = max(c.hit.Cosine, h.Cosine)
		}
	}
	best := float64(len(lists)) / (rrfK + 1)
	out := make([]palace.Hit, 0, len(byID))
	for _, c := range byID {
		c.hit.Score = c.score / best
		out = append(out, c.hit)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Drawer.ID < out[j].Drawer.ID
	})
	return out
}

// llmRerank reorders hits with the configured model; scores keep their
// values but follow the new order (each at most the previous one). On
// failure the hits are returned as they were.
func (a *API) llmRerank(ctx context.Context, query string, hits []palace.Hit) []palace.Hit {
	if a.cfg.LLM == nil || len(hits) < 2 {
		return hits
	}
	docs := make([]string, len(hits))
	for i, h := range hits {
		docs[i] = h.Drawer.Content
	}
	order, err := a.cfg.LLM.Rerank(ctx, query, docs)
	if err != nil {
		a.log.Warn().Err(err).Msg("LLM rerank failed; keeping the fused order")
		return hits
	}
	scores := make([]float64, len(hits))
	for i, h := range hits {
		scores[i] = h.Score
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
	out := make([]palace.Hit, len(order))
	for i, idx := range order {
		out[i] = hits[idx]
		out[i].Score = scores[i]
	}
	return out
}

// qwords are the words a question begins with: a question word or an
// auxiliary.
const qwords = `what|where|when|who|whom|whose|which|why|how|do|does|did|is|are|was|were|can|could|should|will|would|have|has|had`

// joined matches where one question ends and another begins within a
// sentence: a comma or a conjunction (or both) followed by a question word
// ("where do I climb and what coffee do I like", "when did we ship it,
// and who reviewed it"), which it keeps in group 1. A conjunction or a
// comma inside a question ("what did Ann and Bo build", "on October 13,
// 2023", "her friends, family, and mentors") splits nothing a search can
// use; LoCoMo's questions hold such commas and conjunctions, and splitting
// them all cost .007 any@10 on 1-5.
var joined = regexp.MustCompile(`(?i)(?:\s*,\s*(?:(?:and|or|also|then|plus|versus|vs)\s+)?|\s+(?:and|or|also|then|plus|versus|vs)\s+)((?:` + qwords + `)\b)`)

// asks matches a text that begins as a question does.
var asks = regexp.MustCompile(`(?i)^\s*(?:` + qwords + `)\b`)

// decompose splits a query into sub-queries for the non-LLM agentic path.
// It adds no keyword round over the query's content words: the hybrid
// round's keyword leg already searches them, and a second list of the
// same words outvoted the vectors in the fusion (LoCoMo 1-5, session path,
// any@10 .854 with it and every comma and conjunction split, .874 now, as
// the hybrid search alone).
func decompose(query string) []subQuery {
	var out []subQuery
	// A part is keyed without the punctuation around it, so the whole of
	// a query of one part ("What is her job?") is no sub-query of itself.
	key := func(s string) string { return strings.ToLower(strings.Trim(s, " \t\n?!.;,")) }
	seen := map[string]bool{key(query): true}
	// Sentences end at ? ; and !. Within one, a question splits where
	// another question begins; a list of topics, which asks nothing
	// ("deploy schedule, rollback plan"), at its commas as well.
	parts := strings.FieldsFunc(query, func(r rune) bool { return r == '?' || r == ';' || r == '!' })
	var pieces []string
	for _, p := range parts {
		p = joined.ReplaceAllString(p, "\x00$1")
		if !asks.MatchString(p) {
			p = strings.ReplaceAll(p, ",", "\x00")
		}
		pieces = append(pieces, strings.Split(p, "\x00")...)
	}
	for _, p := range pieces {
		p = strings.TrimSpace(p)
		k := key(p)
		if len(strings.Fields(p)) < 2 || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, subQuery{text: p, mode: palace.ModeHybrid})
		if len(out) == 3 {
			break
		}
	}
	return out
}
