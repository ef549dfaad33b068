package server

import (
	"context"

	"github.com/loci-mem/loci/kg"
)

func (s *Server) kgQuery() tool {
	return tool{
		name:        "kg_query",
		description: "Query active knowledge-graph triples for a subject.",
		schema: `{"type":"object","properties":{
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"},
"subject":{"type":"string"}},
"required":["palace","subject"]}`,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			subject, err := a.str("subject", true)
			if err != nil {
				return nil, err
			}
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			ts, err := p.KG().Query(ctx, subject)
			if err != nil {
				return nil, err
			}
			if ts == nil {
				ts = []kg.Triple{}
			}
			return map[string]any{"subject": subject, "triples": ts}, nil
		},
	}
}
