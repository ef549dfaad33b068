package palace

import (
	"slices"
	"strings"
	"testing"
)

// A drawer's topic words are the words said in at least two of the texts
// before it that it does not say itself, the most said first, then the
// most recent; each is given as it was last written.
func TestTopicWords(t *testing.T) {
	window := []string{ // newest first
		"It opens at 7 and the studio is packed",
		"The opening night of the studio is tomorrow!",
		"How is the dance studio going?",
		"I had pasta with my sister",
		"Pasta again? Dance class after?",
	}
	// studio (three texts), then opens/opening (one word to BM25), dance
	// and pasta (two each), the most recent first.
	got := topicWords("I'm excited!", window)
	if want := []string{"studio", "opens", "dance", "pasta"}; !slices.Equal(got, want) {
		t.Errorf("topic words %q, want %q", got, want)
	}
	// What the drawer says or borrows is not repeated; a word said once
	// ("night", "sister") is no topic.
	got = topicWords("the studio is ready to open", window)
	if want := []string{"dance", "pasta"}; !slices.Equal(got, want) {
		t.Errorf("topic words %q, want %q", got, want)
	}
	// One text, however long, is no conversation to read a topic from.
	if got := topicWords("hi", []string{"the studio, the studio and the studio"}); len(got) != 0 {
		t.Errorf("one text lent %q", got)
	}
	// At most topicWordsMax.
	many := []string{"alpha beta gamma delta epsilon zeta", "alpha beta gamma delta epsilon zeta"}
	if got := topicWords("", many); len(got) != topicWordsMax {
		t.Errorf("%d topic words, want %d", len(got), topicWordsMax)
	}
}

// The topic is read from the texts within turnContextBytes before a
// drawer, and only in a conversation (a drawer with a speaker).
func TestBorrowedContextTakesTheTopicWithinReach(t *testing.T) {
	texts := []string{ // oldest first
		"Ana: the garden party was lovely",
		"Ben: the garden party? " + strings.Repeat("la ", 200),
		"Ana: our greyhound loves the river",
		"Ben: your greyhound swims?",
		"Ana: ha",
		"Ben: what is its name?",
		"Ana: Pixel",
	}
	stream := func() func() (*Drawer, error) { return walkBack(texts, len(texts)-1) } // the last is the drawer itself
	d := &Drawer{Content: texts[len(texts)-1], SenderIDs: []string{"Ana"}}
	kw, err := borrowedContext(d, stream())
	if err != nil {
		t.Fatal(err)
	}
	// It borrows Ben's question. "greyhound", said twice within reach,
	// is its topic; "garden" and "party", said twice but only beyond the
	// 600 bytes (Ben's long text ends the window), are not.
	if want := texts[5] + "\ngreyhound"; kw != want {
		t.Errorf("keywords %q, want %q", kw, want)
	}
	d.SenderIDs = nil
	if kw, _ := borrowedContext(d, stream()); kw != texts[5] {
		t.Errorf("a note without a speaker took %q", kw)
	}
}

// lastSaid keeps the end of a long text and the speaker label it opens
// with; a text within the budget is borrowed whole.
func TestLastSaid(t *testing.T) {
	long := "Caroline: " + strings.Repeat("we painted the fence ", 10) + "and then it rained"
	for _, c := range []struct {
		text string
		n    int
		want string
	}{
		{"Caroline: it rained", 100, "Caroline: it rained"},
		{long, 40, "Caroline: …the fence and then it rained"},
		{strings.TrimPrefix(long, "Caroline: "), 30, "…the fence and then it rained"},
		{long, 8, "…rained"}, // no room for the label
	} {
		if got := lastSaid(c.text, c.n); got != c.want {
			t.Errorf("lastSaid(%q, %d) = %q, want %q", c.text, c.n, got, c.want)
		}
	}
}
