package server

import (
	"context"

	"github.com/loci-mem/loci/kg"
)

// kg_query (seed 003) lists a subject's active triples.
type kgQueryParams struct {
	Palace  string `json:"palace"`
	Subject string `json:"subject" required:"true"`
}

type kgQueryResult struct {
	Subject string      `json:"subject"`
	Triples []kg.Triple `json:"triples"`
}

func kgQueryTool() *tool {
	return newTool("kg_query", "Query active knowledge-graph triples for a subject.", rpcErrors, kgQuery)
}

func kgQuery(ctx context.Context, s *Server, p kgQueryParams) (kgQueryResult, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return kgQueryResult{}, err
	}
	ts, err := pal.KG().Query(ctx, p.Subject)
	if err != nil {
		return kgQueryResult{}, err
	}
	if ts == nil {
		ts = []kg.Triple{}
	}
	return kgQueryResult{Subject: p.Subject, Triples: ts}, nil
}
