package palace_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// The vector list reaches past the keyword depth into the fusion: two
// notes match the query's one word equally (a tie in BM25), and the one
// whose vector is nearer the query's, ranked beyond the 80 near-spellings
// above both, comes first. With a vector list cut at the keyword depth
// neither would be in it, and the tie would go to the newer note.
func TestVectorListReachesPastTheKeywordDepth(t *testing.T) {
	t.Setenv("LOCI_FEEDBACK", "0") // the two notes' own words would break the tie
	ctx := context.Background()
	p := MustOpenPalace(t)
	// The same length and one "lantern" each; the nearer one's other words
	// share letter trigrams with it (the default encoder here hashes them).
	nearer := mustAdd(t, p, &palace.Drawer{Content: "the lantern western modern cavern quiz jog buffet mud pick sofa duck fog yak zoo hub kiwi box fix wolf ivy gym joy oak elm bay cod"})
	farther := mustAdd(t, p, &palace.Drawer{Content: "the lantern dog cat owl quiz jog buffet mud pick sofa duck fog yak zoo hub kiwi box fix wolf ivy gym joy oak elm bay cod"})
	// Nearer the query than both by vector, matching no word of it.
	for i := range 80 {
		mustAdd(t, p, &palace.Drawer{Content: fmt.Sprintf("lanternish %d", i)})
	}
	for i := range 100 {
		mustAdd(t, p, &palace.Drawer{Content: fmt.Sprintf("zebra crossing %d", i)})
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "lantern", K: 10, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 2 || hits[0].Drawer.ID != nearer.ID || hits[1].Drawer.ID != farther.ID {
		t.Fatalf("want the nearer note first, then the farther: %v", hitContents(hits))
	}
	if hits[0].KeywordRank != hits[1].KeywordRank {
		t.Fatalf("the two notes should tie in BM25: ranks %d and %d", hits[0].KeywordRank, hits[1].KeywordRank)
	}
	if r := hits[0].VectorRank; r <= 80 || r > 150 {
		t.Fatalf("the nearer note's vector rank is %d; the test means it to be past 80 and within 150", r)
	}
}
