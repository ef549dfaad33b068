package hub

import (
	"net/http"
	"sort"
	"strings"

	"github.com/loci-mem/loci/palace"
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
			hits = append(hits, SearchHit{Palace: p.Name(), Score: x.Score, KeywordRank: x.KeywordRank,
				VectorRank: x.VectorRank, Drawer: toDrawerJSON(p.Name(), x.Drawer)})
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
