package palace_test

import (
	"context"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

// An episode that retells turns the palace holds as drawers of their own
// (the Claude Code Stop hook saves both) is passed over by a search that
// names no kinds; a search for episodes gets it, and an episode whose
// session has no turn drawers (recorded through /add) is listed as any
// memory.
func TestAnEpisodeThatRetellsStoredTurnsIsPassedOver(t *testing.T) {
	p := MustOpenPalace(t)
	ctx := context.Background()
	at := time.Date(2026, 2, 10, 9, 0, 0, 0, time.UTC)
	turn := &palace.Drawer{Kind: palace.KindTurn, SessionID: "hooked", Timestamp: at,
		Content: "User: which queue does the billing worker read?\n\nAssistant: It reads billing-events on the shared Kafka cluster."}
	retold := &palace.Drawer{Kind: palace.KindEpisode, SessionID: "hooked", Timestamp: at,
		Content: `On Tuesday, February 10, 2026 at 09:00 UTC, the user said: "Which queue does the billing worker read?" ` +
			`At 09:01, the assistant said: "It reads billing-events on the shared Kafka cluster."`}
	added := &palace.Drawer{Kind: palace.KindEpisode, SessionID: "added", Timestamp: at,
		Content: `On Tuesday, February 10, 2026 at 10:00 UTC, Ann said: "The billing worker's Kafka consumer group is billing-v2."`}
	if err := p.AddMany(ctx, []*palace.Drawer{turn, retold, added}); err != nil {
		t.Fatal(err)
	}
	ids := func(f palace.Filter) map[string]bool {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "which Kafka queue does the billing worker read", K: 10, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, h := range hits {
			out[h.Drawer.ID] = true
		}
		return out
	}
	got := ids(palace.Filter{})
	if !got[turn.ID] || !got[added.ID] || got[retold.ID] {
		t.Errorf("a search naming no kinds listed turn %v, /add episode %v, retelling %v; want true, true, false",
			got[turn.ID], got[added.ID], got[retold.ID])
	}
	if got := ids(palace.Filter{Kinds: []string{palace.KindEpisode}}); !got[retold.ID] || !got[added.ID] {
		t.Errorf("a search for episodes listed the retelling %v and the /add episode %v; want both", got[retold.ID], got[added.ID])
	}
}
