package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	_ "github.com/loci-mem/loci/palace/embed/builtin"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A compound is found however the question writes it: closed in the
// question and open in the text ("roadtrip", "road trip"), and the other
// way round ("ice cream", "icecream"), with the built-in lexicon, as a
// palace is opened by default. A word the lexicon knows is never split
// ("carpet" does not find "car" and "pet"), a stopword never starts a
// joined word ("me an" does not ask for "mean"), and LOCI_COMPOUNDS=0
// turns the reading off.
func TestCompoundsAreFoundWrittenEitherWay(t *testing.T) {
	ctx := context.Background()
	open := func(t *testing.T) *palace.Palace {
		return palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	}
	first := func(t *testing.T, p *palace.Palace, query string) string {
		t.Helper()
		hits, err := p.Search(ctx, palace.SearchRequest{Query: query, Mode: palace.ModeKeyword, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			return ""
		}
		return hits[0].Drawer.Content
	}
	// Texts that share no other word with the questions.
	texts := []string{
		"Our road trip along the coast was the best week of the summer",
		"Nate made vegan icecream with coconut milk for the party",
		"The new car is parked outside and the pet sitter comes at noon",
		"Tell me what you mean by that, I did not follow",
	}
	for _, c := range []struct{ query, want string }{
		{"When was the roadtrip?", texts[0]},
		{"Who likes ice cream?", texts[1]},
	} {
		t.Run(c.query, func(t *testing.T) {
			p := open(t)
			for _, text := range texts {
				palacetest.MustAdd(t, p, &palace.Drawer{Content: text})
			}
			if got := first(t, p, c.query); got != c.want {
				t.Errorf("%q finds %q first, want %q", c.query, got, c.want)
			}
			t.Setenv("LOCI_COMPOUNDS", "0")
			if got := first(t, p, c.query); got == c.want {
				t.Errorf("with LOCI_COMPOUNDS=0, %q still finds %q", c.query, got)
			}
		})
	}
	t.Run("words kept whole", func(t *testing.T) {
		p := open(t)
		for _, text := range texts {
			palacetest.MustAdd(t, p, &palace.Drawer{Content: text})
		}
		for _, query := range []string{"Where is the carpet?", "Give me an example"} {
			if got := first(t, p, query); got != "" {
				t.Errorf("%q finds %q; it shares no word with any text", query, got)
			}
		}
	})
}
