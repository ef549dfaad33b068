package palace_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// Relevance feedback finds the memory that answers a question in other
// words: "where does Caroline work?" against "She joined the Mercy clinic
// downtown as a nurse", which shares no word with it, through the words
// the memories about Caroline's work share with it. (Not parallel: it
// compares with LOCI_FEEDBACK=0.)
func TestFeedbackFindsOtherWording(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	r := rand.New(rand.NewSource(7))
	filler := strings.Fields("budget plant office printer lunch meeting garden bicycle recipe holiday weather train ticket " +
		"movie concert museum library kitchen window paint carpet guitar piano camera phone laptop coffee")
	for i := range 150 {
		var b strings.Builder
		fmt.Fprintf(&b, "Note %d:", i)
		for range 10 {
			b.WriteString(" " + filler[r.Intn(len(filler))])
		}
		palacetest.MustAdd(t, p, &palace.Drawer{Content: b.String()})
	}
	for _, s := range []string{
		"Caroline works long shifts at the clinic and the nurses rely on her.",
		"Caroline said work at the clinic was hectic; the nurse rota changed again.",
		"At work Caroline handles the clinic nurse rota and the night shifts.",
		"Caroline's work friends from the clinic threw her a farewell party.",
	} {
		palacetest.MustAdd(t, p, &palace.Drawer{Content: s})
	}
	target := palacetest.MustAdd(t, p, &palace.Drawer{Content: "She joined the Mercy clinic downtown as a nurse in March, on the night shift."})
	rankOf := func() int {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "where does Caroline work?", K: 10, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range hits {
			if h.Drawer.ID == target.ID {
				return i + 1
			}
		}
		return 0
	}
	t.Setenv("LOCI_FEEDBACK", "0")
	without := rankOf()
	t.Setenv("LOCI_FEEDBACK", "1")
	with := rankOf()
	if with == 0 || (without != 0 && with >= without) {
		t.Errorf("the answer ranks %d with feedback and %d without (0: not in the top 10); feedback should lift it", with, without)
	}
	t.Logf("rank without feedback %d, with %d", without, with)
}
