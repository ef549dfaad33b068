package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

func (s *Server) palaceCreate() tool {
	return tool{
		name:        "palace_create",
		description: "Create a new memory palace.",
		schema: `{"type":"object","properties":{
"name":{"type":"string","description":"Palace name: letters, digits, '.', '_' and '-'"},
"description":{"type":"string"}},
"required":["name"]}`,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			name, err := a.str("name", true)
			if err != nil {
				return nil, err
			}
			desc, err := a.str("description", false)
			if err != nil {
				return nil, err
			}
			if err := palace.ValidateName(name); err != nil {
				return nil, err
			}
			p, err := s.reg.Create(ctx, name, desc)
			if err != nil {
				return nil, err
			}
			return map[string]any{"palace_id": p.Name(), "status": "created"}, nil
		},
	}
}
