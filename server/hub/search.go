package hub

import (
	"net/http"
	"sort"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/words"
)

// SearchHit is one search result.
type SearchHit struct {
	Palace      string     `json:"palace"`
	Score       float64    `json:"score"`
	KeywordRank int        `json:"keyword_rank,omitempty"`
	VectorRank  int        `json:"vector_rank,omitempty"`
	Drawer      drawerJSON `json:"drawer"`
}

// search answers GET /hub/api/search?q=&palace=&mode=&k=: palace.Search
// (hybrid by default) in one palace or in all of them, merged by fused
// score. Browsing the hub does not count as recall in the drawers' access
// statistics.
func (h *Hub) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := strings.TrimSpace(q.Get("q"))
	if query == "" {
		h.fail(w, r, badRequest("q (the search text) is empty"))
		return
	}
	mode := palace.Mode(q.Get("mode"))
	if mode == "" {
		mode = palace.ModeHybrid
	}
	k, err := intParam(r, "k", 20, 1, 100)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ps, err := h.palaces(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	hits := []SearchHit{}
	for _, p := range ps {
		res, err := p.Search(r.Context(), palace.SearchRequest{Query: query, K: k, Mode: mode, NoAccess: true})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, x := range res {
			d := toDrawerJSON(p.Name(), x.Drawer)
			if d.Truncated {
				d.Content = hitText(x.Drawer.Content, x.Passage, query)
			}
			hits = append(hits, SearchHit{Palace: p.Name(), Score: x.Score, KeywordRank: x.KeywordRank,
				VectorRank: x.VectorRank, Drawer: d})
		}
	}
	// Each palace's list is already in its own order; a stable sort by
	// score keeps that order among equal scores.
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > k {
		hits = hits[:k]
	}
	writeJSON(w, http.StatusOK, map[string]any{"query": query, "mode": mode, "hits": hits})
}

// hitText is what a search hit shows of a long drawer: palace.Excerpt (its
// opening line and the passage the search matched, when that lies past its
// first listTextRunes), with the passage taken from a few words before the
// first of the query's words it holds, since the list shows the first
// lines of a hit.
func hitText(content string, passage *palace.Span, query string) string {
	matched, ok := passage.Of(content)
	if !ok {
		return palace.Excerpt(content, nil, listTextRunes)
	}
	// Words are compared as the keyword index reads them: an informal
	// word or a British spelling as its standard word.
	want := map[string]bool{}
	for _, w := range words.Lower(query, 0) {
		words.EachStandard(w, func(s string) {
			if !words.IsStopword(s) {
				want[words.Stem(s)] = true
			}
		})
	}
	matches := func(w string) (hit bool) {
		words.EachStandard(strings.ToLower(w), func(s string) { hit = hit || want[words.Stem(s)] })
		return hit
	}
	var before [leadWords]int // the starts of the last words before the match
	n, from := 0, -1
	words.Each(matched, 0, func(w words.Word) {
		if from >= 0 {
			return
		}
		if matches(w.Text) {
			from = before[n%leadWords]
			if n < leadWords {
				from = 0
			}
			return
		}
		before[n%leadWords] = w.Start
		n++
	})
	if from > 0 {
		passage = &palace.Span{Start: passage.Start + from, End: passage.End}
	}
	return palace.Excerpt(content, passage, listTextRunes)
}

// leadWords is how many words a hit shows before the first query word it
// matched.
const leadWords = 8
