package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

func (s *Server) memoryList() tool {
	return tool{
		name:        "memory_list",
		description: "List drawers in a palace, optionally filtered by room type or tag.",
		schema: `{"type":"object","properties":{
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"},
"room":{"type":"string","description":"Filter by room type (Frontend, Backend, Testing, Planning, Documentation, Research, Configuration, Meetings, General, or custom)"},
"tag":{"type":"string","description":"Filter by tag"},
"limit":{"type":"integer","description":"Max results (default 50)","minimum":1,"maximum":1000}},
"required":["palace"]}`,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			room, err := a.str("room", false)
			if err != nil {
				return nil, err
			}
			tag, err := a.str("tag", false)
			if err != nil {
				return nil, err
			}
			limit, err := a.integer("limit", 50, 1, 1000)
			if err != nil {
				return nil, err
			}
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			f := palace.Filter{Room: room}
			if tag != "" {
				f.Tags = []string{tag}
			}
			ds, total, err := p.List(ctx, palace.ListOptions{Filter: f, Limit: limit})
			if err != nil {
				return nil, err
			}
			out := make([]drawerJSON, len(ds))
			for i, d := range ds {
				out[i] = toDrawerJSON(d)
			}
			return map[string]any{"palace": p.Name(), "drawers": out, "total": total}, nil
		},
	}
}
