package palace

import (
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/words"
)

// maxQueryTerms bounds the number of terms a query is searched with.
const maxQueryTerms = 48

// queryTerms splits free text into lower-cased search terms (words, with
// underscores kept inside identifiers), dropping stopwords (unless nothing
// else is left) and duplicates.
func queryTerms(text string) []string {
	var kept, all []string
	seen := map[string]bool{}
	for _, w := range words.Lower(text, words.Underscores) {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if !words.IsStopword(w) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = all
	}
	// A word of Chinese, Japanese, Korean or Thai is searched by its
	// characters and their pairs (palace/bm25, cjkPieces), so each of its
	// characters counts as a term: a pasted paragraph is searched with its
	// first 48 in any script.
	budget := maxQueryTerms
	for i, w := range kept {
		cost := 1
		if r, _ := utf8.DecodeRuneInString(w); bm25.CutInPieces(r) {
			cost = utf8.RuneCountInString(w)
		}
		if cost > budget {
			if cost > 1 && budget > 0 {
				kept[i] = string([]rune(w)[:budget])
				i++
			}
			return kept[:i]
		}
		budget -= cost
	}
	return kept
}
