package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

// palace_list (seed 003) lists every palace.
type palaceListParams struct{}

type palaceListResult struct {
	Palaces []string `json:"palaces"`
}

func palaceListTool() *tool {
	return newTool("palace_list", "List all palaces on this machine.", rpcErrors, palaceList)
}

func palaceList(ctx context.Context, s *Server, _ palaceListParams) (palaceListResult, error) {
	names, err := s.reg.List()
	if err != nil {
		return palaceListResult{}, err
	}
	names = palace.Visible(ctx, names) // a user's token lists only its palaces
	if names == nil {
		names = []string{}
	}
	return palaceListResult{Palaces: names}, nil
}
