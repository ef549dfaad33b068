package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

// palace_info (seed 003) reports a palace's metadata and counts.
type palaceInfoParams struct {
	Palace string `json:"palace"`
}

func palaceInfoTool() *tool {
	return newTool("palace_info", "Get metadata and stats for a single palace.", rpcErrors, palaceInfo)
}

func palaceInfo(ctx context.Context, s *Server, p palaceInfoParams) (palace.Info, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return palace.Info{}, err
	}
	return pal.Info(ctx)
}
