package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// A chat export's "<Media omitted>" after a turn borrows that turn as a
// reply would and so matches its words, yet holds nothing a question asks
// for: it ranks below the turn and the reply to it, where without the
// reading (LOCI_PLACEHOLDERS=0) it ranks above the reply. So does a
// tapback, the other speaker's reaction quoting the turn whole.
func TestPlaceholdersGiveWay(t *testing.T) {
	const said = "I painted a sunset over the lake last weekend."
	for _, c := range []struct{ speaker, line string }{
		{"Melanie", "<Media omitted>"},
		{"Melanie", "IMG-20230512-WA0007.jpg (file attached)"},
		{"Caroline", "Loved “" + said + "”"},
	} {
		t.Run(c.line, func(t *testing.T) {
			p := MustOpenPalace(t)
			turn := conversation(t, p)
			painting := turn("s1", "Melanie", said)
			line := turn("s1", c.speaker, c.line)
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
				return at[painting.ID], at[reply.ID], at[line.ID]
			}
			if pr, rr, lr := ranks(); pr != 1 || rr == 0 || (lr != 0 && lr < rr) {
				t.Errorf("painting %d, reply %d, %q %d; want the painting first and the line below the reply", pr, rr, c.line, lr)
			}
			t.Setenv("LOCI_PLACEHOLDERS", "0")
			if _, rr, lr := ranks(); lr == 0 || (rr != 0 && lr > rr) {
				t.Errorf("without the reading: reply %d, %q %d; want the line above the reply", rr, c.line, lr)
			}
		})
	}
}
