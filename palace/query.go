package palace

import (
	"strings"
	"unicode"
)

// stopwords are dropped from keyword queries: they match nearly every
// drawer and drown the words that carry the question. The list is the
// usual English function words plus question words ("when", "did").
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are
	as at be because been before being below between both but by can could did do does doing down
	during each few for from further had has have having he her here hers herself him himself his how
	i if in into is it its itself just me more most my myself no nor not now of off on once only or
	other our ours ourselves out over own same she should so some such than that the their theirs them
	themselves then there these they this those through to too under until up very was we were what
	when where which while who whom why will with would you your yours yourself yourselves also ever
	s t don doesn didn isn wasn aren weren won wouldn shouldn couldn ve ll re d m o y let lets get got
	tell say said like may might must shall much many`) {
		m[w] = true
	}
	return m
}()

// maxQueryTerms bounds the number of terms a query is searched with.
const maxQueryTerms = 48

// queryTerms splits free text into lower-cased search terms the way the
// keyword index's tokenizer separates words, dropping stopwords (unless nothing else is
// left) and duplicates.
func queryTerms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	var kept, all []string
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.Trim(w, "_")
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if !stopwords[w] {
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

// IsStopword reports whether w (lower case) is one of the function words
// keyword queries drop.
func IsStopword(w string) bool { return stopwords[w] }
