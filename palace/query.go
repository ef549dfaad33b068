package palace

import (
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
	if len(kept) > maxQueryTerms {
		kept = kept[:maxQueryTerms]
	}
	return kept
}
