package server

import "context"

func (s *Server) palaceInfo() tool {
	return tool{
		name:        "palace_info",
		description: "Get metadata and stats for a single palace.",
		schema: `{"type":"object","properties":{
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"}},
"required":["palace"]}`,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			return p.Info(ctx)
		},
	}
}
