package palace

import (
	"maps"
	"os"
	"strings"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/words"
)

// A compound is found however it is written.
//
// English writes many compounds closed, open or hyphenated, and people
// differ: "roadtrip" and "road trip", "icecream" and "ice cream", "setup"
// and "set up", "login" and "log in", "codebase" and "code base". A
// hyphenated word is indexed with its parts joined already (palace/bm25,
// "hyphenated"), but a question that wrote a compound closed found none
// of the texts that wrote it open, and the other way round. So a keyword
// search also asks for each compound of the question written the other
// way, when the palace holds it so:
//
//   - two neighbouring words of the question, joined ("road trip" asks
//     for "roadtrip"), when the palace holds the joined word and the
//     first of the two is not a stopword ("tell me an idea" never asks
//     for "mean", nor "this is land" for "island");
//   - a word the lexicon lacks, split into the two lexicon words of three
//     letters or more it is made of ("roadtrip" asks for "road trip"),
//     when the palace holds both. The parts are asked for as one word of
//     two tokens, which BM25 scores as a phrase (palace/bm25, "Words of
//     several tokens"): only a text holding both counts, so a split that
//     reads a word wrongly ("congrats" as "cong rats") finds nothing.
//
// The palace's own words decide, not a list: a compound nobody wrote
// either way asks for nothing more. This is decompounding, which search
// engines do for German and Dutch with a dictionary (Koehn and Knight
// 2003), with the palace's vocabulary as the dictionary; nothing is
// chosen. The lexicon only keeps a real word whole: "carpet" is never
// read as "car pet", since the lexicon knows it. Texts are indexed as
// written: the question does all the work, so nothing is re-indexed.

// compoundsOn reports whether a search asks for its compounds written the
// other way (LOCI_COMPOUNDS=0 turns it off, for comparisons).
func compoundsOn() bool { return os.Getenv("LOCI_COMPOUNDS") != "0" }

// minCompoundPart is the shortest part a word is split into: words of one
// or two letters ("a", "de", "up") are parts of too many words by chance.
const minCompoundPart = 3

// compoundTerms returns the words query asks for when its compounds are
// written the other way (see above), none already among terms; idx is
// the palace's keyword index, and sp reads words against the lexicon
// (nil: no word is split).
func compoundTerms(query string, terms []string, idx *bm25.Index, sp *spelling) []string {
	if idx == nil || !compoundsOn() {
		return nil
	}
	has := func(word string) bool {
		toks := bm25.AppendTokens(nil, word)
		if len(toks) != 1 {
			return false
		}
		df, _ := idx.DocFreq(toks[0])
		return df > 0
	}
	// Only the words searched are read (a long query's rarest
	// maxQueryTerms; searchedTerms), and the compounds asked for stay
	// within the same bound.
	searched := make(map[string]bool, len(terms))
	for _, t := range terms {
		searched[t] = true
	}
	seen := maps.Clone(searched)
	room := maxQueryTerms - len(terms)
	var out []string
	add := func(w string) {
		if len(out) < room && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	var prev words.Word
	words.Each(query, 0, func(wd words.Word) {
		w := strings.ToLower(wd.Text)
		if !lettersOnly(w) {
			prev = words.Word{}
			return
		}
		if p := strings.ToLower(prev.Text); searched[p] && joinable(query[prev.End:wd.Start]) && !words.IsStopword(p) {
			if joined := p + w; !words.IsStopword(joined) && has(joined) {
				add(joined)
			}
		}
		prev = wd
		if sp != nil && searched[w] && len(w) >= 2*minCompoundPart && !words.IsStopword(w) && !sp.known([]byte(w)) {
			for i := minCompoundPart; i <= len(w)-minCompoundPart; i++ {
				a, b := w[:i], w[i:]
				if sp.known([]byte(a)) && sp.known([]byte(b)) && has(a) && has(b) {
					add(a + "-" + b)
				}
			}
		}
	})
	return out
}

// joinable reports whether s, between two words, writes them apart as
// parts of one: spaces or tabs. (A hyphen is not read so: a text that
// wrote "dairy-free" is indexed with "dairyfree" already, palace/bm25's
// catenation, and asking for it again would count it twice for the texts
// that hyphenate it, against those that write it open.)
func joinable(s string) bool {
	return s != "" && strings.Trim(s, " \t") == ""
}
