package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A misspelt word is found by the word it misspells, on every search
// mode, and a palace without a lexicon finds it by keywords only as typed.
func TestMisspeltWordsAreFoundByTheirWord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	known := map[string]bool{"vacation": true, "booked": true, "dentist": true, "june": true, "yosemite": true}
	lex := func(w []byte) bool { return known[string(w)] }
	for _, c := range []struct {
		name  string
		lex   func([]byte) bool
		found bool
	}{{"with a lexicon", lex, true}, {"without", func([]byte) bool { return true }, false}} {
		p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Lexicon: c.lex}), "p")
		typo := palacetest.MustAdd(t, p, &palace.Drawer{Content: "We finally booked the vacaton in Yosemite for June"})
		palacetest.MustAdd(t, p, &palace.Drawer{Content: "We booked the dentist for June"})
		for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeHybrid} {
			hits, err := p.Search(ctx, palace.SearchRequest{Query: "vacation", Mode: mode, NoAccess: true})
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, h := range hits {
				got = got || h.Drawer.ID == typo.ID && h.KeywordRank == 1
			}
			if got != c.found {
				t.Errorf("%s, %s search for \"vacation\": the misspelt text matched its words: %v, want %v", c.name, mode, got, c.found)
			}
		}
		// The text itself is unchanged.
		d, err := p.Get(ctx, typo.ID)
		if err != nil || d.Content != typo.Content {
			t.Errorf("%s: stored text %q (%v)", c.name, d.Content, err)
		}
	}
}

// A misspelt word of a query asks for the word it misspells as well.
func TestMisspeltQueriesFindTheirWord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	known := map[string]bool{"vacation": true, "booked": true, "dentist": true}
	for _, c := range []struct {
		name  string
		lex   func([]byte) bool
		found bool
	}{
		{"with a lexicon", func(w []byte) bool { return known[string(w)] }, true},
		{"without", func([]byte) bool { return true }, false},
	} {
		p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Lexicon: c.lex}), "p")
		d := palacetest.MustAdd(t, p, &palace.Drawer{Content: "We booked the vacation"})
		palacetest.MustAdd(t, p, &palace.Drawer{Content: "We booked the dentist"})
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "the vacaton", Mode: palace.ModeKeyword, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		got := len(hits) > 0 && hits[0].Drawer.ID == d.ID
		if got != c.found {
			t.Errorf("%s: \"the vacaton\" finds %q first: %v, want %v (hits %d)", c.name, d.Content, got, c.found, len(hits))
		}
	}
}

// A word drawn out for emphasis ("puppyyyy", "sooo happyyy") is found by
// the word it stretches, and such a word in a query asks for it too; with
// the built-in lexicon, as a palace is opened by default.
func TestDrawnOutWordsAreFoundByTheirWord(t *testing.T) {
	t.Parallel()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Lexicon: embed.DefaultLexicon()}), "p")
	puppy := palacetest.MustAdd(t, p, &palace.Drawer{Content: "omg we got a puppyyyy today, I'm sooo happyyy"})
	bored := palacetest.MustAdd(t, p, &palace.Drawer{Content: "work was sooo boooring, ughhh"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "The vet said the kitten is healthy"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "A happy, healthy dog needs a long walk every day"})
	wantFirstIn(t, p, palace.ModeKeyword, "puppy", puppy)
	wantFirstIn(t, p, palace.ModeKeyword, "was it boring?", bored)
	wantFirstIn(t, p, palace.ModeKeyword, "a new puppyyy", puppy)
}
