package palace

import (
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/embed/glove"
)

func lexiconOf(ws ...string) embed.Lexicon {
	known := map[string]bool{}
	for _, w := range ws {
		known[w] = true
	}
	return func(w []byte) bool { return known[string(w)] }
}

// A word the lexicon lacks is read as the one lexicon word a single edit
// away: a letter left out, added, changed, or two neighbours swapped.
func TestTypoFixes(t *testing.T) {
	known := newSpelling(lexiconOf("vacation", "receive", "support", "stories", "awesome", "yosemite",
		"hiking", "hiked", "painted", "painter", "sister", "group", "went", "the", "with", "my", "to", "we"))
	// Twice over: the second round reads the fixes the first remembered.
	for range 2 {
		testTypoFixes(t, known)
	}
	if got := wordFixes("vacaton", nil); got != "" {
		t.Errorf("without a lexicon: %q", got)
	}
	if got, want := withWordFixes("we went on vacaton", known), "we went on vacaton\ngo vacation"; got != want {
		t.Errorf("withWordFixes = %q, want %q", got, want)
	}
	// A spelling remembers only the words the lexicon lacks, and no more
	// than maxSpellingMemo of them.
	if n := known.size.Load(); n == 0 || n > 10 {
		t.Errorf("the spelling remembers %d words after the table", n)
	}
	known.size.Store(maxSpellingMemo)
	if got := known.fix("recieeve"); got != "" {
		t.Errorf("recieeve: %q", got)
	}
	if _, ok := known.fixes.Load("recieeve"); ok {
		t.Error("a full memo took another word")
	}
}

func testTypoFixes(t *testing.T, known *spelling) {
	t.Helper()
	for _, c := range []struct{ text, want string }{
		{"We went on vacaton to Yosemite", "go vacation"},                 // left out (and went read as its verb)
		{"did you recieve it", "receive"},                                 // swapped
		{"an LGBTQ saupport group", "support"},                            // added
		{"so atesome, with stkries", "awesome stories"},                   // changed, twice
		{"vacaton vacaton Vacaton", "vacation vacation vacation"},         // as often as misspelt
		{"my sister went hiking", "go"},                                   // all known: only went read as its verb
		{"we painte here", ""},                                            // painted or painter? left alone
		{"the grop, we hikde", ""},                                        // too short to guess
		{"café vacaton2", ""},                                             // not the letters a–z
		{"the qwertyuiop", ""},                                            // nothing one edit away
		{"vacaton and vacation", "vacation"},                              // its word said as well
		{"Stories about a vacaton: the awesoem kind", "vacation awesome"}, // in order
	} {
		if got := wordFixes(c.text, known); got != c.want {
			t.Errorf("wordFixes(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// A word drawn out for emphasis is read as the known word it stretches:
// each run of three or more of a letter as two of it, then as one, with
// more runs kept double first, whatever the word's length.
func TestDrawnOutWords(t *testing.T) {
	known := lexiconOf("so", "soo", "good", "god", "cool", "col", "yes", "love", "puppy", "happy",
		"support", "see", "hi", "ugh", "i", "ii", "w", "ww", "z")
	for w, want := range map[string]string{
		"sooo":           "soo",  // both known: the double first
		"goood":          "good", // not "god"
		"cooooool":       "cool",
		"yesss":          "yes", // "yess" is no word
		"loveeeee":       "love",
		"puppyyyy":       "puppy",
		"haaappyyy":      "happy", // two runs, one read double and one single
		"suppport":       "support",
		"seeeeeee":       "see",
		"hiiiii":         "hi",
		"ughhhh":         "ugh",
		"iii":            "", // a word of one letter only
		"www":            "",
		"zzzzz":          "",
		"soo":            "", // no run of three
		"love":           "",
		"blaaargh":       "", // no known reading
		"aaabbbcccdddee": "", // no known reading of its first four runs
	} {
		if got := unstretched(w, known); got != want {
			t.Errorf("unstretched(%q) = %q, want %q", w, got, want)
		}
	}
	// A short word drawn out is read, where a short misspelling is not;
	// a word of other letters is not read at all.
	sp := newSpelling(known)
	for text, want := range map[string]string{
		"omg i loveeee my puppyyyy":  "love puppy",
		"yesss sooo goood":           "yes soo good",
		"caf\u00e9\u00e9\u00e9 2222": "",
	} {
		if got := wordFixes(text, sp); got != want {
			t.Errorf("wordFixes(%q) = %q, want %q", text, got, want)
		}
	}
}

// BenchmarkTypoFixes reads a chat turn of 40 words, two of them misspelt
// (one long enough to be read), and the same turn spelt right, against the
// built-in lexicon (GloVe's vocabulary).
func BenchmarkTypoFixes(b *testing.B) {
	lexicon := embed.Lexicon(glove.New().Knows)
	text := "Hey Mel! I went to the LGBTQ suppport group yesterday and it was so powerful. " +
		"The transgender stories were inspiring, and I was so happy and thankful for all the " +
		"support. We are planning a camping trip to Yosemite this summer, the whole famly."
	lexicon([]byte("warm")) // decode the vocabulary before timing
	for _, c := range []struct{ name, text string }{
		{"two misspelt", text},
		{"none", strings.NewReplacer("suppport", "support", "famly", "family").Replace(text)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				wordFixes(c.text, newSpelling(lexicon)) // nothing remembered from the last round
			}
		})
	}
}

// standardText writes each informal word and British spelling as its
// standard word, in place, and leaves every other byte as it was.
func TestStandardText(t *testing.T) {
	for in, want := range map[string]string{
		"see u tmrw!":               "see u tomorrow!",
		"My Fav colour, for 2 yrs.": "My favorite color, for 2 years.",
		"nothing informal here":     "nothing informal here",
		"":                          "",
		"pics of the bday":          "photos pictures of the birthday",
		"caf\u00e9 tonite — gr8":    "caf\u00e9 tonight — gr8",
	} {
		if got := standardText(in); got != want {
			t.Errorf("standardText(%q) = %q, want %q", in, got, want)
		}
	}
}
