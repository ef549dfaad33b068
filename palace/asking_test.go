package palace_test

import (
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A question's words of asking ("mention", "describe", "according") are
// not its keywords: "What did she mention about Lisbon?" finds what was
// said about Lisbon before the reply that reports it was mentioned. With
// LOCI_META=0 the reply comes first.
func TestWordsOfAskingAreNotKeywords(t *testing.T) {
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	answer := palacetest.MustAdd(t, p, &palace.Drawer{Content: "We drove to Lisbon in May"})
	reply := palacetest.MustAdd(t, p, &palace.Drawer{Content: "You mentioned Lisbon a few times already, and the week you spent there"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "The river was high in May"})
	for _, query := range []string{"What did she mention about Lisbon?", "According to her, how was Lisbon described?"} {
		wantFirst(t, p, query, answer)
	}
	t.Setenv("LOCI_META", "0")
	wantFirst(t, p, "What did she mention about Lisbon?", reply)
}

// The frame "what kind of" names no kind: "What kind of car is hers?"
// finds her car before a text that is "kind of" long about a car ride.
// Elsewhere the word stays: "type error" finds the type error.
func TestTheFrameKindOfIsNotAKeyword(t *testing.T) {
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	car := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Her car is a red Mini"})
	ride := palacetest.MustAdd(t, p, &palace.Drawer{Content: "The car ride was kind of long and boring"})
	typeErr := palacetest.MustAdd(t, p, &palace.Drawer{Content: "The build failed on a type error in the parser"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "The parser error was fixed"})
	wantFirst(t, p, "What kind of car is hers?", car)
	wantFirst(t, p, "the type error", typeErr)
	t.Setenv("LOCI_META", "0")
	wantFirst(t, p, "What kind of car is hers?", ride)
}
