package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

// memory_recall and memory_recall_deep (seed 003): progressive recall
// (L0 + L1 + L2) and exhaustive recall (L3), with loci's room and tag
// filters.
type memoryRecallParams struct {
	Palace          string      `json:"palace"`
	Query           string      `json:"query" required:"true" desc:"What to recall, in natural language"`
	TopK            int         `json:"top_k" default:"10" min:"1" max:"100"`
	Room            roomName    `json:"room" desc:"Only recall drawers of this room (optional)"`
	Tag             tagName     `json:"tag" desc:"Only recall drawers carrying this tag (optional)"`
	Session         sessionName `json:"session" desc:"Only recall drawers of this conversation (optional; memory_remember's session)"`
	Speaker         speakerName `json:"speaker" desc:"Only recall what this speaker said (optional; a result's speaker, as memory_remember's speaker or the text's label names it; letters in either case)"`
	MaxContentChars *int        `json:"max_content_chars" min:"0" desc:"Cut each memory's content to at most this many characters (0: whole). A memory cut has content_truncated true and content_chars, its whole length; for a long memory recall shows its opening line and the passage that matched."`
}

type memoryRecallResult struct {
	Palace  string         `json:"palace"`
	Query   string         `json:"query"`
	Results []recallResult `json:"results"`
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
	Session    string   `json:"session,omitempty"`
	Speaker    string   `json:"speaker,omitempty"`
	// ContentTruncated and ContentChars: as drawerJSON's.
	ContentTruncated bool `json:"content_truncated,omitempty"`
	ContentChars     int  `json:"content_chars,omitempty"`
	// Passage is, for a long drawer (indexed in passages), where in
	// content the best-matching passage lies (byte offsets), and Excerpt
	// is its text. Absent for a drawer indexed whole.
	Passage *palace.Span `json:"passage,omitempty"`
	Excerpt string       `json:"excerpt,omitempty"`
}

func memoryRecallTool() *tool {
	return newTool("memory_recall", "Recall memories using L0+L1+L2 progressive retrieval.", rpcErrors,
		func(ctx context.Context, s *Server, p memoryRecallParams) (memoryRecallResult, error) {
			return memoryRecall(ctx, s, p, false)
		})
}

func memoryRecallDeepTool() *tool {
	return newTool("memory_recall_deep", "Deep recall using L3 full HNSW search.", rpcErrors,
		func(ctx context.Context, s *Server, p memoryRecallParams) (memoryRecallResult, error) {
			return memoryRecall(ctx, s, p, true)
		})
}

func memoryRecall(ctx context.Context, s *Server, p memoryRecallParams, deep bool) (memoryRecallResult, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return memoryRecallResult{}, err
	}
	hits, err := pal.Recall(ctx, palace.RecallRequest{Query: p.Query, K: p.TopK, Deep: deep, Filter: filter(p.Room, p.Tag, p.Session, p.Speaker)})
	if err != nil {
		return memoryRecallResult{}, err
	}
	bound := s.contentChars(p.MaxContentChars)
	results := make([]recallResult, 0, len(hits))
	for _, h := range hits {
		d := toDrawerJSON(h.Drawer)
		r := recallResult{
			DrawerID: d.DrawerID, Score: round4(h.Score), Layer: h.Layer,
			Tags: d.Tags, Importance: d.Importance, Room: d.Room, Kind: d.Kind,
			CreatedAt: d.CreatedAt, Timestamp: d.Timestamp, Session: d.Session, Speaker: d.Speaker,
		}
		if text, ok := h.Passage.Of(d.Content); ok {
			r.Passage, r.Excerpt = h.Passage, text
		}
		d.clip(h.Passage, p.Query, bound)
		r.Content, r.ContentTruncated, r.ContentChars = d.Content, d.ContentTruncated, d.ContentChars
		results = append(results, r)
	}
	return memoryRecallResult{Palace: pal.Name(), Query: p.Query, Results: results}, nil
}

func round4(f float64) float64 {
	return float64(int64(f*10000+0.5)) / 10000
}
