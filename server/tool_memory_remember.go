package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

func (s *Server) memoryRemember() tool {
	return tool{
		name:        "memory_remember",
		description: "Store a memory (drawer) in a palace room.",
		schema: `{"type":"object","properties":{
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"},
"text":{"type":"string","description":"Memory content"},
"room":{"type":"string","description":"Room type (optional): Frontend, Backend, Testing, Planning, Documentation, Research, Configuration, Meetings, General (default), or any custom name"},
"tags":{"type":"array","items":{"type":"string"}},
"importance":{"type":"number","minimum":0.01,"maximum":1,"description":"Importance weight in [0.01,1] (default 0.5); used only to break ties and order memory_list"}},
"required":["palace","text"]}`,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			text, err := a.str("text", true)
			if err != nil {
				return nil, err
			}
			room, err := a.str("room", false)
			if err != nil {
				return nil, err
			}
			tags, err := a.strings("tags")
			if err != nil {
				return nil, err
			}
			imp, err := a.number("importance", 0.5, 0.01, 1)
			if err != nil {
				return nil, err
			}
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			d := &palace.Drawer{Kind: palace.KindNote, Content: text, Room: room, Tags: tags, Importance: imp}
			if err := p.Add(ctx, d); err != nil {
				return nil, err
			}
			return map[string]any{
				"drawer_id": d.ID,
				"palace":    p.Name(),
				"status":    "stored",
				"room":      d.Room,
			}, nil
		},
	}
}
