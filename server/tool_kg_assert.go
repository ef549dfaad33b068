package server

import (
	"context"

	"github.com/loci-mem/loci/kg"
)

// kg_assert (seed 003) asserts a triple, closing the active one of the
// same subject and predicate.
type kgAssertParams struct {
	Palace     string     `json:"palace"`
	Subject    string     `json:"subject" required:"true"`
	Predicate  string     `json:"predicate" required:"true"`
	Object     string     `json:"object" required:"true"`
	Confidence confidence `json:"confidence" default:"1.0"`
	Provenance string     `json:"provenance"`
}

type kgAssertResult struct {
	Status string    `json:"status"`
	Triple kg.Triple `json:"triple"`
}

func kgAssertTool() *tool {
	return newTool("kg_assert", "Assert a fact in the temporal knowledge graph.", rpcErrors, kgAssert)
}

func kgAssert(ctx context.Context, s *Server, p kgAssertParams) (kgAssertResult, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return kgAssertResult{}, err
	}
	conf := float64(p.Confidence)
	t, err := pal.KG().Assert(ctx, kg.Assertion{Subject: p.Subject, Predicate: p.Predicate, Object: p.Object,
		Confidence: &conf, Provenance: p.Provenance})
	if err != nil {
		return kgAssertResult{}, err
	}
	pal.LogEvent(ctx, "kg.asserted", map[string]any{"subject": t.Subject, "predicate": t.Predicate})
	return kgAssertResult{Status: "asserted", Triple: t}, nil
}
