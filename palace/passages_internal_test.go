package palace

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	lexicon "github.com/loci-mem/loci/palace/words"
)

// splitWordsByRune is splitWords written rune by rune with
// unicode.IsSpace: the reference its ASCII fast path must match.
func splitWordsByRune(text string) []word {
	var words []word
	in := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if lexicon.IsCJK(r) {
			if in {
				words[len(words)-1].end = i
			}
			words = append(words, word{start: i, end: i + utf8.RuneLen(r)})
			in = false
			continue
		}
		switch {
		case !space && !in:
			words = append(words, word{start: i})
			in = true
		case space && in:
			words[len(words)-1].end = i
			in = false
		}
	}
	if in {
		words[len(words)-1].end = len(text)
	}
	return words
}

func TestSplitWordsMatchesRuneScan(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "word", "é", "日本", "カタカナ", "한국어", "x日", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u0085", "\u00a0",
		"\u2003", "\u3000", "\u200b", "\xff", "\xe2\x80", "x\x00y", "."}
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 2000; n++ {
		var b strings.Builder
		for k := r.Intn(40); k > 0; k-- {
			b.WriteString(parts[r.Intn(len(parts))])
		}
		s := b.String()
		if got, want := splitWords(s), splitWordsByRune(s); !slices.Equal(got, want) {
			t.Fatalf("splitWords(%q) = %v, want %v", s, got, want)
		}
	}
}
