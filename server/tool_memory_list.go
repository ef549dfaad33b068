package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

// memory_list (seed 003) lists active drawers, importance descending.
type memoryListParams struct {
	Palace          string      `json:"palace"`
	Room            roomName    `json:"room" desc:"Filter by room type (Frontend, Backend, Testing, Planning, Documentation, Research, Configuration, Meetings, General, or custom)"`
	Tag             tagName     `json:"tag" desc:"Filter by tag"`
	Session         sessionName `json:"session" desc:"Filter by conversation (memory_remember's session)"`
	Speaker         speakerName `json:"speaker" desc:"Filter by who said the text (a drawer's speaker; letters in either case)"`
	Limit           *int        `json:"limit" min:"1" max:"1000" desc:"Max results (default 50)"`
	MaxContentChars *int        `json:"max_content_chars" min:"0" desc:"Cut each memory's content to at most this many characters (0: whole). A memory cut has content_truncated true and content_chars, its whole length."`
}

// defaultListLimit is memory_list's limit when the call gives none.
const defaultListLimit = 50

type memoryListResult struct {
	Palace  string       `json:"palace"`
	Drawers []drawerJSON `json:"drawers"`
	Total   int          `json:"total"`
}

func memoryListTool() *tool {
	return newTool("memory_list", "List drawers in a palace, optionally filtered by room type or tag.", rpcErrors, memoryList)
}

func memoryList(ctx context.Context, s *Server, p memoryListParams) (memoryListResult, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return memoryListResult{}, err
	}
	limit := defaultListLimit
	if p.Limit != nil {
		limit = *p.Limit
	}
	ds, total, err := pal.List(ctx, palace.ListOptions{Filter: filter(p.Room, p.Tag, p.Session, p.Speaker), Limit: limit})
	if err != nil {
		return memoryListResult{}, err
	}
	out := make([]drawerJSON, len(ds))
	for i, d := range ds {
		out[i] = toDrawerJSON(d)
		out[i].clip(nil, "", s.contentChars(p.MaxContentChars))
	}
	return memoryListResult{Palace: pal.Name(), Drawers: out, Total: total}, nil
}
