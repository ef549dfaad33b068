package palace_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// The first results of a search do not depend on how many are asked for:
// a search for 5 returns the first 5 of a search for 10, 20 or 50. The
// palace's notes share the query's words in every mix, so its keyword
// lists run far past 50 and the vector list orders them otherwise; a
// keyword list that went three times as deep as the results asked for
// (and no deeper than 50 for fewer) gave a drawer ranked 60th by its
// words something in a search for 20 and nothing in a search for 10.
func TestTheFirstResultsDoNotDependOnHowManyAreAsked(t *testing.T) {
	p := wordMixPalace(t)
	ids := func(q string, k int) []string { return searchIDs(t, p, q, k) }
	for _, q := range []string{"river lantern", "pottery and marble in the garden", "a kettle by the window", "thunder over the harbor"} {
		first := ids(q, 5)
		if len(first) != 5 {
			t.Fatalf("%q: %d results for 5", q, len(first))
		}
		for _, k := range []int{10, 20, 50} {
			if got := ids(q, k); !slices.Equal(got[:5], first) {
				t.Errorf("%q: the first 5 of a search for %d differ from a search for 5:\n%v\n%v", q, k, got[:5], first)
			}
		}
	}
}

// A process's first search of a palace (a CLI call, a hook: each a new
// process) ranks as every later search does. The keyword index is built by
// that first search, and relevance feedback, which needs a palace of 100
// drawers or more, once read the index's size before it was built: the
// first search went without it.
func TestAFirstSearchRanksAsALaterOne(t *testing.T) {
	p := wordMixPalace(t)
	q := "river lantern"
	first := searchIDs(t, p, q, 10)
	if again := searchIDs(t, p, q, 10); !slices.Equal(first, again) {
		t.Fatalf("the first search and the next differ:\n%v\n%v", first, again)
	}
}

// wordMixPalace holds 400 notes of 6 to 15 words drawn from the same 20,
// so that any query of those words matches most of them.
func wordMixPalace(t *testing.T) *palace.Palace {
	t.Helper()
	p := MustOpenPalace(t)
	rng := rand.New(rand.NewPCG(7, 11))
	vocab := strings.Fields("garden river lantern harbor market violin meadow orchard pepper candle " +
		"ladder window blanket compass island thunder pottery saddle marble kettle")
	var ds []*palace.Drawer
	for i := range 400 {
		ws := make([]string, 6+rng.IntN(10))
		for j := range ws {
			ws[j] = vocab[rng.IntN(len(vocab))]
		}
		ds = append(ds, &palace.Drawer{Content: fmt.Sprintf("note %d: %s", i, strings.Join(ws, " "))})
	}
	if err := p.AddMany(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	return p
}

// searchIDs returns the ids of a hybrid search's first k drawers.
func searchIDs(t *testing.T, p *palace.Palace, q string, k int) []string {
	t.Helper()
	hits, err := p.Search(context.Background(), palace.SearchRequest{Query: q, K: k, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Drawer.ID)
	}
	return out
}
