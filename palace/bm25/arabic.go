package bm25

import (
	"strings"
	"unicode"
)

// Arabic joins its article and some conjunctions and prepositions to the
// word ("البيانات", the data; "والبيانات", and the data; "بالبيانات", with
// the data) and inflects with suffixes ("بيانات", data; "بيانه", his
// data), and FTS5's Porter stemmer, which is English, leaves an Arabic
// token as written: a question asking for "بيانات" matched no memory that
// said "البيانات". A token of Arabic letters only is normalised and
// light-stemmed instead: the forms of alef with hamza or madda read as
// bare alef, a final "ى" as "ي" and a final "ة" as "ه", the kashida
// (tatweel) dropped; then light10 (Larkey, Ballesteros and Connell 2002,
// the light stemmer that did best for Arabic retrieval in their and later
// TREC runs): a leading "و" (and) comes off when three letters or more
// remain, then one article or preposition with the article when two or
// more remain, then each suffix of the list, once and in its order, when
// two or more remain. It has no parameter of ours; Persian and Urdu,
// written in the same letters, are stemmed alike in texts and queries.

// arabicArticles are light10's prefixes, taken off at most one of them.
var arabicArticles = []string{"ال", "وال", "بال", "كال", "فال", "لل"}

// arabicSuffixes are light10's suffixes, tried once each, in this order.
var arabicSuffixes = []string{"ها", "ان", "ات", "ون", "ين", "يه", "ية", "ه", "ة", "ي"}

// allArabic reports whether every character of a folded token is an
// Arabic letter.
func allArabic(tok []byte) bool {
	for i := 0; i < len(tok); {
		c, n := pieceRune(tok[i:])
		if c < 0x600 || c > 0x6FF && !unicode.Is(unicode.Arabic, rune(c)) || !unicode.IsLetter(rune(c)) {
			return false
		}
		i += n
	}
	return len(tok) > 0
}

// arabicStem returns the light10 stem of a token of Arabic letters (a new
// slice, or tok itself when nothing changed or nothing would be left).
func arabicStem(tok []byte) []byte {
	var b strings.Builder
	word := []rune(string(tok))
	for i, c := range word {
		switch {
		case c == 'ـ': // tatweel: drawn-out writing, no letter
			continue
		case c == 'أ' || c == 'إ' || c == 'آ':
			c = 'ا'
		case i == len(word)-1 && c == 'ى':
			c = 'ي'
		case i == len(word)-1 && c == 'ة':
			c = 'ه'
		}
		b.WriteRune(c)
	}
	w := b.String()
	runes := func(s string) int { return len([]rune(s)) }
	if strings.HasPrefix(w, "و") && runes(w) >= 4 {
		w = w[len("و"):]
	}
	for _, p := range arabicArticles {
		if strings.HasPrefix(w, p) && runes(w)-runes(p) >= 2 {
			w = w[len(p):]
			break
		}
	}
	for _, s := range arabicSuffixes {
		if strings.HasSuffix(w, s) && runes(w)-runes(s) >= 2 {
			w = w[:len(w)-len(s)]
		}
	}
	if w == string(tok) || w == "" { // a token of kashidas only stays itself
		return tok
	}
	return []byte(w)
}
