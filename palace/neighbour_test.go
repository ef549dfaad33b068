package palace_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

// A strong hit lifts the turns on either side of it in its session: the
// turn that announced the news ranks among the ten results for the news
// itself, though it shares no word with the query; without the lift
// (LOCI_NEIGHBOUR=0) fourteen drawers that do share a word push it out.
func TestNeighboursOfStrongHitsRise(t *testing.T) {
	ctx := context.Background()
	p := MustOpenPalace(t)
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	turn := func(session, text string, min int) *palace.Drawer {
		return mustAdd(t, p, &palace.Drawer{Content: text, Kind: palace.KindTurn, SessionID: session,
			Timestamp: t0.Add(time.Duration(min) * time.Minute), SenderIDs: []string{"ann"}})
	}
	before := turn("s1", "Guess what happened on Saturday morning!", 0)
	hit := turn("s1", "We adopted a beagle puppy and named him Biscuit", 1)
	after := turn("s1", "He already chewed through two shoes", 2)
	turn("s1", "Anyway, how was your week at the office?", 3)
	// Distractors that share "puppy", each longer than the last, so that
	// they rank one after another below the hit.
	for i := range 14 {
		turn(fmt.Sprintf("d%d", i), "The puppy in the park"+strings.Repeat(" barked at the neighbours", i), 10+i)
	}
	ids := func() map[string]bool {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "beagle puppy Biscuit", K: 10, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, h := range hits {
			out[h.Drawer.ID] = true
		}
		if len(hits) == 0 || hits[0].Drawer.ID != hit.ID {
			t.Fatalf("the matching turn is not first: %v", hitContents(hits))
		}
		return out
	}
	got := ids()
	if !got[before.ID] || !got[after.ID] {
		t.Fatalf("the turns beside the hit did not rise into the top 10: %v", got)
	}
	t.Setenv("LOCI_NEIGHBOUR", "0")
	if got := ids(); got[before.ID] {
		t.Fatalf("without the lift the announcing turn is still in the top 10: the test shows nothing")
	}
}
