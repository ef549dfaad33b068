package httpapi

import (
	"context"
	"sort"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/words"
)

// Agentic search (seed 001's "agentic" method) runs several rounds on the
// shared engine and fuses them by reciprocal rank:
//
//   - with an LLM configured (LOCI_LLM_*): a hybrid round for the query,
//     then the model proposes up to three follow-up queries from what that
//     round found, each searched in turn; the fused list is reranked by the
//     model. A model failure falls back to the non-LLM path.
//   - without one: the query is decomposed into sub-queries (split at
//     question marks, semicolons, commas and the conjunctions "and", "or",
//     "also", "then", "plus", "versus"; parts of two words or more), plus
//     a BM25 round over the query's content words (stop words removed).
//     At most four extra rounds.
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

var splitWords = []string{" and ", " or ", " also ", " then ", " plus ", " versus ", " vs "}

// requestWords are the words of a request to the memory ("tell me",
// "please find") that a keyword sub-query drops on top of the function
// words (words.IsStopword).
var requestWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`tell show give find please like want know yes every mine whose`) {
		requestWords[w] = true
	}
}

// decompose splits a query into sub-queries for the non-LLM agentic path.
func decompose(query string) []subQuery {
	var out []subQuery
	seen := map[string]bool{strings.ToLower(strings.TrimSpace(query)): true}
	parts := strings.FieldsFunc(query, func(r rune) bool { return r == '?' || r == ';' || r == ',' || r == '!' })
	var pieces []string
	for _, p := range parts {
		l := " " + p + " "
		for _, w := range splitWords {
			l = strings.ReplaceAll(strings.ReplaceAll(l, w, "\x00"), strings.ToUpper(w[:2])+w[2:], "\x00")
		}
		pieces = append(pieces, strings.Split(l, "\x00")...)
	}
	for _, p := range pieces {
		p = strings.TrimSpace(p)
		key := strings.ToLower(p)
		if len(strings.Fields(p)) < 2 || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, subQuery{text: p, mode: palace.ModeHybrid})
		if len(out) == 3 {
			break
		}
	}
	var content []string
	for _, w := range words.Lower(query, words.Apostrophes) {
		if !words.IsStopword(w) && !requestWords[w] && len(w) > 1 {
			content = append(content, w)
		}
	}
	if kw := strings.Join(content, " "); kw != "" && !seen[kw] {
		out = append(out, subQuery{text: kw, mode: palace.ModeKeyword})
	}
	return out
}
