package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// A chat export's "<Media omitted>" after a turn borrows that turn as a
// reply would and so matches its words, yet holds nothing a question asks
// for: it ranks below the turn and the reply to it, where without the
// reading (LOCI_PLACEHOLDERS=0) it ranks above the reply.
func TestPlaceholdersGiveWay(t *testing.T) {
	p := MustOpenPalace(t)
	turn := conversation(t, p)
	painting := turn("s1", "Melanie", "I painted a sunset over the lake last weekend.")
	media := turn("s1", "Melanie", "<Media omitted>")
	reply := turn("s1", "Caroline", "Those colours over the water are stunning")
	for i := range 6 {
		turn("", "Caroline", "The bakery on Main Street sells rye bread, loaf "+string(rune('a'+i)))
	}
	ranks := func() (int, int, int) {
		t.Helper()
		hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "What did Melanie paint at the lake?", K: 10, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		at := map[string]int{}
		for i, h := range hits {
			at[h.Drawer.ID] = i + 1
		}
		return at[painting.ID], at[reply.ID], at[media.ID]
	}
	if pr, rr, mr := ranks(); pr != 1 || rr == 0 || (mr != 0 && mr < rr) {
		t.Errorf("painting %d, reply %d, placeholder %d; want the painting first and the placeholder below the reply", pr, rr, mr)
	}
	t.Setenv("LOCI_PLACEHOLDERS", "0")
	if _, rr, mr := ranks(); mr == 0 || (rr != 0 && mr > rr) {
		t.Errorf("without the reading: reply %d, placeholder %d; want the placeholder above the reply", rr, mr)
	}
}
