package server

import "context"

// memory_forget (seed 003) deletes a drawer; loci keeps it for history and
// answers an undo token (loci review undo TOKEN).
type memoryForgetParams struct {
	Palace   string `json:"palace"`
	DrawerID string `json:"drawer_id" required:"true" desc:"UUID of the drawer to delete"`
}

type memoryForgetResult struct {
	Status   string `json:"status"`
	DrawerID string `json:"drawer_id"`
	Palace   string `json:"palace"`
	Undo     string `json:"undo"`
}

func memoryForgetTool() *tool {
	return newTool("memory_forget", "Delete a drawer from a palace by its UUID.", rpcErrors, memoryForget)
}

func memoryForget(ctx context.Context, s *Server, p memoryForgetParams) (memoryForgetResult, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return memoryForgetResult{}, err
	}
	d, token, err := pal.Forget(ctx, p.DrawerID)
	if err != nil {
		return memoryForgetResult{}, err
	}
	return memoryForgetResult{Status: "deleted", DrawerID: d.ID, Palace: pal.Name(), Undo: token}, nil
}
