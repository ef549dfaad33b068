package palace_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A hybrid search counts the vector leg's vote on a drawer at the share
// of its text written as words (a quarter, for a text of three calls and
// a word), and a text of prose at its full weight; only the part of the
// vote made by models that read language only (embed.LanguageShare) is
// weighed, so a model that reads code, as the hash embedder and a remote
// one do, keeps its whole vote.
func TestVectorVoteWeighedByLegibility(t *testing.T) {
	t.Parallel()
	for _, lang := range []float64{1, 0.5, 0} {
		t.Run(fmt.Sprint(lang), func(t *testing.T) {
			t.Parallel()
			emb := embed.NewHash(embed.HashDim)
			if lang > 0 {
				emb = languageOnly{emb, lang}
			}
			p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Embedder: emb}), "p")
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
				vote := 1 - lang*(1-share[h.Drawer.ID])
				want := vote * fu.VectorWeight / (fu.K + float64(h.VectorRank)) / best
				if math.Abs(h.Score-want) > 1e-9 {
					t.Errorf("%q at vector rank %d scores %.6f, want %.6f", h.Drawer.Content, h.VectorRank, h.Score, want)
				}
			}
		})
	}
}

// languageOnly is an embedder declared to read language only for share of
// its cosine, as the built-in models declare it (embed.LanguageShare).
type languageOnly struct {
	embed.Embedder
	share float64
}

func (l languageOnly) LanguageShare() float64 { return l.share }
