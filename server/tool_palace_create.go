package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

// palace_create (seed 003) creates a palace; one that exists is an error.
type palaceCreateParams struct {
	Name        string `json:"name" required:"true" desc:"Palace name: letters, digits, '.', '_' and '-'"`
	Description string `json:"description"`
}

type palaceCreateResult struct {
	PalaceID string `json:"palace_id"`
	Status   string `json:"status"`
}

func palaceCreateTool() *tool {
	return newTool("palace_create", "Create a new memory palace.", rpcErrors, palaceCreate)
}

func palaceCreate(ctx context.Context, s *Server, p palaceCreateParams) (palaceCreateResult, error) {
	if err := palace.ValidateName(p.Name); err != nil {
		return palaceCreateResult{}, err
	}
	pal, err := s.reg.Create(ctx, p.Name, p.Description)
	if err != nil {
		return palaceCreateResult{}, err
	}
	return palaceCreateResult{PalaceID: pal.Name(), Status: "created"}, nil
}
