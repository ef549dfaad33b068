package server

import "context"

// mem_context (seed 000) loads the profile, the promoted facts and the
// memories relevant to a query, as markdown to splice into a context.
type memContextParams struct {
	Query  string `json:"query" required:"true" desc:"What the conversation is about; selects the relevant memories"`
	Palace string `json:"palace"`
}

func memContextTool() *tool {
	return newTool("mem_context",
		"Load what is remembered about the user before answering: their profile and promoted facts, "+
			"then the memories relevant to the query. Returns markdown to splice into your context as is.",
		resultErrors, memContext)
}

func memContext(ctx context.Context, s *Server, p memContextParams) (markdownText, error) {
	st, err := s.settings()
	if err != nil {
		return "", err
	}
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return "", err
	}
	md, err := renderContext(ctx, pal, p.Query, st.TopK)
	return markdownText(md), err
}
