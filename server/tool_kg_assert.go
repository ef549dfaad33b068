package server

import (
	"context"

	"github.com/loci-mem/loci/kg"
)

func (s *Server) kgAssert() tool {
	return tool{
		name:        "kg_assert",
		description: "Assert a fact in the temporal knowledge graph.",
		schema: `{"type":"object","properties":{
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"},
"subject":{"type":"string"},
"predicate":{"type":"string"},
"object":{"type":"string"},
"confidence":{"type":"number","default":1.0,"minimum":0,"maximum":1},
"provenance":{"type":"string"}},
"required":["palace","subject","predicate","object"]}`,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			var as kg.Assertion
			var err error
			if as.Subject, err = a.str("subject", true); err != nil {
				return nil, err
			}
			if as.Predicate, err = a.str("predicate", true); err != nil {
				return nil, err
			}
			if as.Object, err = a.str("object", true); err != nil {
				return nil, err
			}
			conf, err := a.number("confidence", 1, 0, 1)
			if err != nil {
				return nil, err
			}
			as.Confidence = &conf
			if as.Provenance, err = a.str("provenance", false); err != nil {
				return nil, err
			}
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			t, err := p.KG().Assert(ctx, as)
			if err != nil {
				return nil, err
			}
			p.LogEvent(ctx, "kg.asserted", map[string]any{"subject": t.Subject, "predicate": t.Predicate})
			return map[string]any{"status": "asserted", "triple": t}, nil
		},
	}
}
