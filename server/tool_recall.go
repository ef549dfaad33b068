package server

import (
	"context"
	"github.com/loci-mem/loci/palace/facts"

	"github.com/mark3labs/mcp-go/mcp"
)

// recallItem is one element of recall's answer (seed 004).
type recallItem struct {
	ID         string  `json:"id"`
	Fact       string  `json:"fact"`
	Kind       string  `json:"kind"`
	Confidence float64 `json:"confidence"`
}

func (s *Server) recallTool() tool {
	return tool{
		name: "recall",
		description: "Recall the user's promoted memories (pending, rejected and stale ones are excluded), most relevant first. " +
			"With a query, memories are ranked against it and weak matches dropped; without one, all are returned by " +
			"recency and confidence. Returns a JSON array of {id, fact, kind, confidence}.",
		schema: `{"type":"object","properties":{
"query":{"type":"string","default":"","description":"Topic to focus on; empty returns all promoted memories"},
"limit":{"type":"integer","default":20,"minimum":1,"maximum":1000,"description":"Maximum number of memories to return"},
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"}}}`,
		raw: s.rawTool("recall", func(ctx context.Context, a *args) (*mcp.CallToolResult, error) {
			query, err := a.str("query", false)
			if err != nil {
				return nil, err
			}
			limit, err := a.integer("limit", 20, 1, 1000)
			if err != nil {
				return nil, err
			}
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			facts, err := facts.Of(p).Recall(ctx, query, limit)
			if err != nil {
				return nil, err
			}
			out := make([]recallItem, 0, len(facts))
			for _, f := range facts {
				out = append(out, recallItem{ID: f.ID, Fact: f.Fact, Kind: f.Kind, Confidence: f.Confidence})
			}
			return s.jsonTextResult("recall", out), nil
		}),
	}
}
