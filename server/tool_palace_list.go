package server

import "context"

func (s *Server) palaceList() tool {
	return tool{
		name:        "palace_list",
		description: "List all palaces on this machine.",
		schema:      `{"type":"object","properties":{}}`,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			names, err := s.reg.List()
			if err != nil {
				return nil, err
			}
			return map[string]any{"palaces": names}, nil
		},
	}
}
