package palace

import (
	"os"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/words"
)

// maxQueryTerms bounds the number of terms a query is searched with.
const maxQueryTerms = 48

// queryTerms splits free text into lower-cased search terms (words, with
// underscores kept inside identifiers), dropping duplicates and, unless
// nothing else is left, stopwords, the words that ask about a
// conversation rather than what it said (asking) and the frame "what
// kind of" (kinds).
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
