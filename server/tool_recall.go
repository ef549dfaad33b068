package server

import (
	"context"

	"github.com/loci-mem/loci/palace/facts"
)

// recall (seed 004) returns the promoted facts, most relevant first.
type recallParams struct {
	Query  string `json:"query" default:"\"\"" desc:"Topic to focus on; empty returns all promoted memories"`
	Limit  int    `json:"limit" default:"20" max:"1000" desc:"Maximum number of memories to return (0 or less: the default, 20)"`
	Palace string `json:"palace"`
}

// defaultRecallLimit is recall's limit when the call gives none, or one
// below 1 (seed 004's default).
const defaultRecallLimit = 20

// recallItem is one element of recall's answer (seed 004).
type recallItem struct {
	ID         string  `json:"id"`
	Fact       string  `json:"fact"`
	Kind       string  `json:"kind"`
	Confidence float64 `json:"confidence"`
}

func recallTool() *tool {
	return newTool("recall",
		"Recall the user's promoted memories (pending, rejected and stale ones are excluded), most relevant first. "+
			"With a query, memories are ranked against it and weak matches dropped; without one, all are returned by "+
			"recency and confidence. Returns a JSON array of {id, fact, kind, confidence}.",
		resultErrors, recall)
}

func recall(ctx context.Context, s *Server, p recallParams) ([]recallItem, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return nil, err
	}
	if p.Limit <= 0 {
		p.Limit = defaultRecallLimit
	}
	fs, err := facts.Of(pal).Recall(ctx, p.Query, p.Limit)
	if err != nil {
		return nil, err
	}
	out := make([]recallItem, 0, len(fs))
	for _, f := range fs {
		out = append(out, recallItem{ID: f.ID, Fact: f.Fact, Kind: f.Kind, Confidence: f.Confidence})
	}
	return out, nil
}
