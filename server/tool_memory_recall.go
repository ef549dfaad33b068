package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

const recallSchema = `{"type":"object","properties":{
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"},
"query":{"type":"string","description":"What to recall, in natural language"},
"top_k":{"type":"integer","default":10,"minimum":1,"maximum":100},
"room":{"type":"string","description":"Only recall drawers of this room (optional)"},
"tag":{"type":"string","description":"Only recall drawers carrying this tag (optional)"}},
"required":["palace","query"]}`

func (s *Server) memoryRecall() tool {
	return tool{
		name:        "memory_recall",
		description: "Recall memories using L0+L1+L2 progressive retrieval.",
		schema:      recallSchema,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			return s.recall(ctx, a, false)
		},
	}
}

func (s *Server) memoryRecallDeep() tool {
	return tool{
		name:        "memory_recall_deep",
		description: "Deep recall using L3 full HNSW search.",
		schema:      recallSchema,
		jsonResult: func(ctx context.Context, a *args) (any, error) {
			return s.recall(ctx, a, true)
		},
	}
}

type recallResult struct {
	DrawerID   string   `json:"drawer_id"`
	Content    string   `json:"content"`
	Score      float64  `json:"score"`
	Layer      int      `json:"layer"`
	Tags       []string `json:"tags"`
	Importance float64  `json:"importance"`
	Room       string   `json:"room"`
	Kind       string   `json:"kind"`
	CreatedAt  string   `json:"created_at"`
	Timestamp  string   `json:"timestamp"`
}

func (s *Server) recall(ctx context.Context, a *args, deep bool) (any, error) {
	query, err := a.str("query", true)
	if err != nil {
		return nil, err
	}
	k, err := a.integer("top_k", 10, 1, 100)
	if err != nil {
		return nil, err
	}
	room, err := a.str("room", false)
	if err != nil {
		return nil, err
	}
	tag, err := a.str("tag", false)
	if err != nil {
		return nil, err
	}
	p, err := s.openPalace(ctx, a)
	if err != nil {
		return nil, err
	}
	f := palace.Filter{Room: room}
	if tag != "" {
		f.Tags = []string{tag}
	}
	hits, err := p.Recall(ctx, palace.RecallRequest{Query: query, K: k, Deep: deep, Filter: f})
	if err != nil {
		return nil, err
	}
	results := make([]recallResult, 0, len(hits))
	for _, h := range hits {
		d := toDrawerJSON(h.Drawer)
		results = append(results, recallResult{
			DrawerID: d.DrawerID, Content: d.Content, Score: round4(h.Score), Layer: h.Layer,
			Tags: d.Tags, Importance: d.Importance, Room: d.Room, Kind: d.Kind,
			CreatedAt: d.CreatedAt, Timestamp: d.Timestamp,
		})
	}
	return map[string]any{"palace": p.Name(), "query": query, "results": results}, nil
}

func round4(f float64) float64 {
	return float64(int64(f*10000+0.5)) / 10000
}
