package palace

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// splitWordsByRune is splitWords as first written, rune by rune with
// unicode.IsSpace: the reference its ASCII fast path must match.
func splitWordsByRune(text string) []word {
	var words []word
	in := false
	for i, r := range text {
		space := unicode.IsSpace(r)
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
	parts := []string{"a", "word", "é", "日本", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u0085", "\u00a0",
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
