package palace_test

import (
	"context"
	"math"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A hybrid search counts the vector leg's vote on a drawer at the share
// of its text written as words (a quarter, for a text of three calls and
// a word), and a text of prose at its full weight.
func TestVectorVoteWeighedByLegibility(t *testing.T) {
	t.Parallel()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	code := palacetest.MustAdd(t, p, &palace.Drawer{Content: "x.y(z) a.b(c) d.e(f) river"})
	prose := palacetest.MustAdd(t, p, &palace.Drawer{Content: "a quiet walk by the river at dusk"})
	// No word of the query is in either text: only the vector leg votes.
	hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "zebra stripes", NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2", len(hits))
	}
	fu := palace.DefaultFusion
	best := (fu.KeywordWeight + fu.VectorWeight) / (fu.K + 1)
	share := map[string]float64{code.ID: 0.25, prose.ID: 1}
	for _, h := range hits {
		if h.KeywordRank != 0 || h.VectorRank == 0 {
			t.Fatalf("%q: keyword rank %d, vector rank %d", h.Drawer.Content, h.KeywordRank, h.VectorRank)
		}
		want := share[h.Drawer.ID] * fu.VectorWeight / (fu.K + float64(h.VectorRank)) / best
		if math.Abs(h.Score-want) > 1e-9 {
			t.Errorf("%q at vector rank %d scores %.6f, want %.6f", h.Drawer.Content, h.VectorRank, h.Score, want)
		}
	}
}
