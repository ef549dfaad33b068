package claudecode

import (
	"strings"
	"unicode"

	"github.com/loci-mem/loci/palace/words"
)

// CountWords counts the words of a prompt the way a reader would across
// scripts. Text is split at white space and at the edges of CJK runs; a
// non-CJK piece counts as one word when it holds at least one letter or
// digit ("debug.js" is one word, "?!" none), and a run of Han, Hiragana or
// Katakana characters counts one word per two characters, rounded up,
// since Chinese and Japanese words average about two characters
// ("如何使用" is two words, "你好" one).
func CountWords(s string) int {
	n, cjk := 0, 0
	word := false // the current non-CJK piece holds a letter or digit
	flush := func() {
		n += (cjk + 1) / 2
		if word {
			n++
		}
		cjk, word = 0, false
	}
	for _, r := range s {
		switch {
		case words.IsCJK(r):
			if word {
				n++
				word = false
			}
			cjk++
		case unicode.IsSpace(r):
			flush()
		default:
			if cjk > 0 {
				flush()
			}
			if words.IsWordRune(r) {
				word = true
			}
		}
	}
	flush()
	return n
}

// hookStopwords are English function words ignored when measuring how much
// of a prompt a memory covers.
var hookStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about after all also am an and any are as at be been but by can
	could did do does doing for from had has have how i if in into is it its just me my no not now of
	on or our please should so some than that the their them then there these they this those to too
	up us was we were what when where which while who why will with would you your yours let lets get
	got make made use using need want know think like one two way thing things here want help`) {
		m[w] = true
	}
	return m
}()

// terms splits text into the units used for lexical coverage: its words
// (words.Each) of at least two characters, lower-cased and stemmed
// (words.Stem), stopwords dropped, and the character bigrams of each CJK
// run (a lone CJK character counts as itself). An informal word or a
// British spelling is read as its standard word (words.Standard: "fam" as
// "family"), and an emoji that names a thing as its words
// (words.EachEmoji: "🐶" as "dog"), as the palace indexes and asks for
// them. Each term appears once.
func terms(s string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	words.Each(s, 0, func(w words.Word) {
		run := []rune(strings.ToLower(w.Text))
		switch {
		case w.CJK:
			words.EachPair(string(run), add)
		case len(run) >= 2:
			words.EachStandard(string(run), func(t string) {
				if !hookStopwords[t] {
					add(words.Stem(t))
				}
			})
		}
	})
	words.EachEmoji(s, func(_, _ int, name string) {
		for _, w := range words.Lower(name, 0) {
			if !hookStopwords[w] {
				add(words.Stem(w))
			}
		}
	})
	return out
}

// coverageCap caps the number of query terms a text must contain for full
// coverage, so that a long prompt is covered by a memory sharing ten of
// its content words.
const coverageCap = 10

// Coverage is the share of the query's terms that occur in text: 1 when the
// text mentions every content word (or CJK bigram) of the query, or ten of
// them, 0 when it mentions none. A query without terms covers nothing.
func Coverage(query, text string) float64 {
	return coverage(terms(query), termSet(text))
}

func coverage(q []string, have map[string]bool) float64 {
	if len(q) == 0 {
		return 0
	}
	hit := 0
	for _, t := range q {
		if have[t] {
			hit++
		}
	}
	return float64(hit) / float64(min(len(q), coverageCap))
}

func termSet(text string) map[string]bool {
	ts := terms(text)
	m := make(map[string]bool, len(ts))
	for _, t := range ts {
		m[t] = true
	}
	return m
}

// similar reports whether two term sets overlap so much (Jaccard index of
// at least one half) that showing both would repeat one memory, as an
// extracted episode repeats the turn it came from.
func similar(a, b map[string]bool) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	both := 0
	for t := range a {
		if b[t] {
			both++
		}
	}
	// Alike as wholes (Jaccard at least 2/3), or one mostly inside the
	// other: a session summary quoting a turn says nothing the turn does
	// not, and showing both repeats the same text.
	small := min(len(a), len(b))
	return 2*both >= len(a)+len(b)-both || small >= 3 && 5*both >= 4*small
}
