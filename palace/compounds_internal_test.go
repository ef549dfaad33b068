package palace

import (
	"slices"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/bm25"
)

// compoundTerms asks for a compound written the other way only where the
// palace holds it so, reads only the words searched, and never takes a
// query past maxQueryTerms.
func TestCompoundTerms(t *testing.T) {
	idx := bm25.New(ftsWeights...)
	idx.Put(1, true, "our roadtrip and the setup", "")
	idx.Put(2, true, "ice cream by the road, a long trip", "")
	known := map[string]bool{"road": true, "trip": true, "ice": true, "cream": true, "set": true, "setup": true}
	sp := newSpelling(func(w []byte) bool { return known[string(w)] })
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"the road trip", []string{"roadtrip"}},
		{"the road-trip", nil},  // hyphenated texts hold "roadtrip" already
		{"the road, trip", nil}, // a comma parts them
		{"set up the roadtrip", []string{"setup", "road-trip"}},
		{"icecream", []string{"ice-cream"}}, // both parts are in the palace
		{"the carpet", nil},                 // no part is
		{"cream ice", nil},                  // "creamice" is nowhere
	} {
		got := compoundTerms(c.query, queryTerms(c.query), idx, sp)
		if !slices.Equal(got, c.want) {
			t.Errorf("compoundTerms(%q) = %q, want %q", c.query, got, c.want)
		}
	}
	// A query of more words than are searched asks for no more: with
	// "road trip" its 47th and 48th terms there is no room left, with
	// them its 46th and 47th there is room for one.
	for _, c := range []struct {
		before int
		want   []string
	}{{46, nil}, {45, []string{"roadtrip"}}} {
		var words []string
		for i := range c.before {
			words = append(words, "q"+string(rune('a'+i/26))+string(rune('a'+i%26)))
		}
		query := strings.Join(words, " ") + " road trip"
		terms := queryTerms(query)
		if got := compoundTerms(query, terms, idx, sp); !slices.Equal(got, c.want) || len(terms)+len(got) > maxQueryTerms {
			t.Errorf("%d words before \"road trip\": %d terms and compounds %q, want %q", c.before, len(terms), got, c.want)
		}
	}
}
