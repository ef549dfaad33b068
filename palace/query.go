package palace

import (
	"math"
	"os"
	"sort"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/words"
)

// maxQueryTerms bounds the terms a query is searched with: a question
// has a dozen words that are not stopwords at most, and a pasted
// paragraph or a long prompt asked as a query is searched with the
// maxQueryTerms the palace holds fewest texts of (searchedTerms).
const maxQueryTerms = 48

// queryTerms splits free text into lower-cased search terms (words, with
// underscores kept inside identifiers), dropping duplicates and, unless
// nothing else is left, stopwords, the words that ask about a
// conversation rather than what it said (asking) and the frame "what
// kind of" (kinds). It keeps them all, in the order they come;
// searchedTerms bounds them.
func queryTerms(text string) []string {
	var kept, all []string
	seen := map[string]bool{}
	meta := metaOn()
	ws := words.Lower(text, words.Underscores)
	for i, w := range ws {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		frame := meta && kinds[w] && i+1 < len(ws) && ws[i+1] == "of"
		if !words.IsStopword(w) && !(meta && asking[w]) && !frame {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = all
	}
	return kept
}

// termCost is what a term takes of a search's maxQueryTerms: one, or for
// a word of Chinese, Japanese, Korean or Thai one for each of its
// characters, since the index searches it by its characters and their
// pairs (palace/bm25, cjkPieces).
func termCost(w string) int {
	if r, _ := utf8.DecodeRuneInString(w); bm25.CutInPieces(r) {
		return utf8.RuneCountInString(w)
	}
	return 1
}

// searchedTerms bounds a query's terms to maxQueryTerms of cost. A query
// within the bound (every question) is searched with all its terms. A
// longer one keeps the terms the palace holds fewest texts of, by df (the
// texts holding a term's rarest token; terms no text holds come last, as
// they can match nothing), and among terms as rare the earlier: the words
// that tell a long prompt's subject apart ("the error from
// parseInvoiceLines") are never dropped for the common ones around them,
// as IDF weighs them (query reduction by IDF; Bendersky and Croft 2008
// and Kumaran and Carvalho 2009 measure it as a strong way to shorten
// verbose queries). With df nil (no index to ask) it keeps the first.
// A term that does not fit whole is passed over for the next that does;
// the first word of characters passed over (only such a word costs more
// than one) is cut to the characters that still fit at the end. The terms
// kept stay in the query's order.
func searchedTerms(terms []string, df func(term string) int) []string {
	total := 0
	for _, w := range terms {
		total += termCost(w)
	}
	if total <= maxQueryTerms {
		return terms
	}
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	if df != nil {
		rarity := make([]int, len(terms))
		for i, w := range terms {
			if rarity[i] = df(w); rarity[i] <= 0 {
				rarity[i] = math.MaxInt
			}
		}
		sort.SliceStable(order, func(a, b int) bool { return rarity[order[a]] < rarity[order[b]] })
	}
	keep := make([]bool, len(terms))
	budget, over := maxQueryTerms, -1
	for _, i := range order {
		if cost := termCost(terms[i]); cost <= budget {
			keep[i] = true
			budget -= cost
		} else if over < 0 && cost > 1 {
			over = i
		}
	}
	out := make([]string, 0, len(terms))
	for i, w := range terms {
		switch {
		case keep[i]:
			out = append(out, w)
		case i == over && budget > 0:
			out = append(out, string([]rune(w)[:budget]))
		}
	}
	return out
}

// termDocFreq is df for searchedTerms over idx: the number of texts
// holding a term's rarest token the index holds, or 0 when it holds none.
func termDocFreq(idx *bm25.Index) func(string) int {
	return func(term string) int {
		least := 0
		for _, tok := range bm25.AppendTokens(nil, term) {
			if n, _ := idx.DocFreq(tok); n > 0 && (least == 0 || n < least) {
				least = n
			}
		}
		return least
	}
}

// A question about a conversation names the act of conversing: "How does
// Melanie describe her journey?", "What did John mention about his
// trip?", "What did they discuss?", "According to Sam, …". The answer
// says what was said, not that it was said, so these words match only
// the texts that report speech ("you mentioned the trip…"): the replies
// that restate the answer, never the answer. They are left out of a
// query's keywords as its stopwords are (which hold "say", "said" and
// "tell" already), the way TREC's description queries drop their "find
// documents that discuss" (Callan and Croft's stop structure). The list
// is the verbs of reporting speech with no second sense a question asks
// about, and the words that name the conversation; "talk" (a talk is
// given), "share" (a photo is shared) and "chat" are not among them.
// Written before it was measured; nothing chosen.
var asking = map[string]bool{
	"mention": true, "mentions": true, "mentioned": true, "mentioning": true,
	"discuss": true, "discusses": true, "discussed": true, "discussing": true,
	"describe": true, "describes": true, "described": true, "describing": true,
	"saying": true, "according": true, "conversation": true, "conversations": true,
}

// kinds are the words of a question's frame "what kind of", "which type
// of": it asks for a kind and names none ("What kind of car does she
// drive?" is answered by "a red Mini"), and "kind of" in a chat is a
// hedge ("kind of tired"). Before "of" they are left out of a query's
// keywords with its words of asking; elsewhere ("a type error", "her
// kind") they are kept.
var kinds = map[string]bool{"kind": true, "kinds": true, "type": true, "types": true, "sort": true, "sorts": true}

// metaOn reports whether a query's words of asking are left out of its
// keywords (LOCI_META=0 keeps them, for comparisons).
func metaOn() bool { return os.Getenv("LOCI_META") != "0" }
