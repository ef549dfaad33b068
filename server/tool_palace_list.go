package server

import "context"

// palace_list (seed 003) lists every palace.
type palaceListParams struct{}

type palaceListResult struct {
	Palaces []string `json:"palaces"`
}

func palaceListTool() *tool {
	return newTool("palace_list", "List all palaces on this machine.", rpcErrors, palaceList)
}

func palaceList(_ context.Context, s *Server, _ palaceListParams) (palaceListResult, error) {
	names, err := s.reg.List()
	if err != nil {
		return palaceListResult{}, err
	}
	if names == nil {
		names = []string{}
	}
	return palaceListResult{Palaces: names}, nil
}
