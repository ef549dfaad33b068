package server

import "context"

func (s *Server) memoryForget() tool {
	return tool{
		name:        "memory_forget",
		description: "Delete a drawer from a palace by its UUID.",
		schema: `{"type":"object","properties":{
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"},
"drawer_id":{"type":"string","description":"UUID of the drawer to delete"}},
"required":["palace","drawer_id"]}`,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			id, err := a.str("drawer_id", true)
			if err != nil {
				return nil, err
			}
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			d, token, err := p.Forget(ctx, id)
			if err != nil {
				return nil, err
			}
			return map[string]any{"status": "deleted", "drawer_id": d.ID, "palace": p.Name(), "undo": token}, nil
		},
	}
}
