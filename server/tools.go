package server

import (
	"time"

	"github.com/loci-mem/loci/palace"
)

// toolset lists every MCP tool loci serves, in tools/list order.
func (s *Server) toolset() []tool {
	return []tool{
		s.memoryRemember(),
		s.memoryRecall(),
		s.memoryRecallDeep(),
		s.palaceCreate(),
		s.palaceList(),
		s.kgAssert(),
		s.kgQuery(),
		s.memoryList(),
		s.memoryForget(),
		s.palaceInfo(),
		s.memContext(),
		s.memSearch(),
		s.memSaveTurn(),
		s.memSaveFact(),
		s.remember(),
		s.recallTool(),
	}
}

// drawerJSON is a drawer as seed 003's tools return it: drawer_id, content,
// importance, tags, created_at, plus loci's additions.
type drawerJSON struct {
	DrawerID   string   `json:"drawer_id"`
	Content    string   `json:"content"`
	Importance float64  `json:"importance"`
	Tags       []string `json:"tags"`
	CreatedAt  string   `json:"created_at"`
	Room       string   `json:"room"`
	Kind       string   `json:"kind"`
	Timestamp  string   `json:"timestamp"`
}

func toDrawerJSON(d *palace.Drawer) drawerJSON {
	tags := d.Tags
	if tags == nil {
		tags = []string{}
	}
	return drawerJSON{
		DrawerID:   d.ID,
		Content:    d.Content,
		Importance: d.Importance,
		Tags:       tags,
		CreatedAt:  rfc3339(d.CreatedAt),
		Room:       d.Room,
		Kind:       d.Kind,
		Timestamp:  rfc3339(d.Timestamp),
	}
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
