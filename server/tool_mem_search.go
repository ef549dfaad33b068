package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

// mem_search (seed 000) searches the memories and answers markdown.
type memSearchParams struct {
	Query  string `json:"query" required:"true" desc:"What to search for, in natural language"`
	TopK   int    `json:"topK" alias:"top_k" desc:"How many memories to return: default the configured top_k or 5; a non-positive value means the default; at most 50"`
	Palace string `json:"palace"`
}

func memSearchTool() *tool {
	return newTool("mem_search",
		"Search the user's memories (hybrid keyword and semantic search). Returns markdown, "+
			"one numbered item per memory, best match first.",
		resultErrors, memSearch)
}

func memSearch(ctx context.Context, s *Server, p memSearchParams) (markdownText, error) {
	st, err := s.settings()
	if err != nil {
		return "", err
	}
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return "", err
	}
	md, err := renderSearch(ctx, pal, p.Query, count(p.TopK, st.TopK, palace.MaxTopK))
	return markdownText(md), err
}
