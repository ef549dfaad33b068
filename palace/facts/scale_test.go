package facts_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/palace/palacetest"
)

// engine stands for a model behind an engine whose cosines run lower
// than the default encoder's: the hash embedder's (mean 0.15 between
// unrelated texts, against the default's 0.47), under another name, so
// that it counts as reading what texts say.
type engine struct{ embed.Embedder }

func (engine) ID() string { return "openai/stand-in" }

// The recall tool's floor is stated on the default encoder's cosines
// (0.5); with an embedder whose cosines run lower it is carried down (to
// 0.19 here), so a fact the query shares no word with is still found by
// its cosine (0.21 and 0.24), and a fact further off is not (0.10).
func TestTheFactsFloorIsCarriedToTheEmbeddersScale(t *testing.T) {
	ctx := context.Background()
	reg := palacetest.MustOpenRegistry(t, palace.Config{Embedder: engine{embed.NewHash(0)}})
	p := palacetest.MustCreate(t, reg, "facts")
	q := facts.Of(p)
	for _, f := range []string{"The staging Redis listens on port 6380", "I prefer pnpm over npm", "My sister lives in Porto"} {
		r := mustStage(t, p, f, "infra", 0.9)
		if _, err := q.Approve(ctx, r.Fact.ID); err != nil {
			t.Fatal(err)
		}
	}
	for query, want := range map[string]string{"sisterhood": "My sister lives in Porto", "stager": "The staging Redis listens on port 6380"} {
		got, err := q.Recall(ctx, query, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Fact != want {
			t.Errorf("Recall(%q) = %+v, want %q alone", query, got, want)
		}
	}
}
