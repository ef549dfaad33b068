package locomo

import (
	"math"
	"slices"
	"strings"

	"github.com/loci-mem/loci/palace"
)

// MethodPlainBM25 is the baseline every recall figure of loci is read
// against: plain Okapi BM25 over a conversation's turns, as the shared
// baseline script ranks them (../shared/eval/locomo_bm25.py --stopwords).
// It stores nothing in a palace and uses none of loci's methods, so a run
// of it on any file in LoCoMo's schema, rewritten or not, gives the lead
// of loci's rankings over plain BM25 on the same questions (and, with
// --json, question by question for `loci eval compare`).
const MethodPlainBM25 palace.Mode = "plain-bm25"

// The baseline's ranking function, as the script sets it: Okapi BM25 with
// the parameters FTS5 and Lucene ship and Lucene's idf, which is never
// negative.
const (
	plainK1 = 1.2
	plainB  = 0.75
)

// plainStopwords are the script's stopwords, a small English list of the
// Lucene and Snowball kind, with the pieces an apostrophe leaves ("s" of
// "it's", "ll" of "we'll"). It is the script's, not loci's
// (words.IsStopword): the baseline is what it is measured against.
var plainStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a about above after again against all am an and any are as at be because been before being below
		between both but by can could did do does doing down during each few for from further had has have
		having he her here hers herself him himself his how i if in into is it its itself just me more most
		my myself no nor not now of off on once only or other our ours ourselves out over own same she should
		so some such than that the their theirs them themselves then there these they this those through to
		too under until up very was we were what when where which while who whom why will with would you your
		yours yourself yourselves s t d ll m re ve`) {
		m[w] = true
	}
	return m
}()

// plainTokens are the baseline's terms of a text: its runs of ASCII
// letters and digits after lower-casing, stopwords left out. Any other
// character separates words ("don't" is "don" and "t").
func plainTokens(text string) []string {
	text = strings.ToLower(text)
	var out []string
	start := -1
	for i := 0; i <= len(text); i++ {
		inWord := i < len(text) && (text[i] >= 'a' && text[i] <= 'z' || text[i] >= '0' && text[i] <= '9')
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			if w := text[start:i]; !plainStopwords[w] {
				out = append(out, w)
			}
			start = -1
		}
	}
	return out
}

// plainIndex is the baseline's index of one conversation: one document
// per turn, in the order of the file.
type plainIndex struct {
	ids      []string
	length   []float64
	avgLen   float64
	postings map[string][]plainPosting
	idf      map[string]float64
}

type plainPosting struct {
	doc   int
	count float64
}

// newPlainIndex indexes texts, the turns of one conversation as the
// baseline reads them ("Speaker: text [shares image: caption]", TurnText),
// under ids (their dia_id, normalised).
func newPlainIndex(ids, texts []string) *plainIndex {
	x := &plainIndex{ids: ids, length: make([]float64, len(texts)), postings: map[string][]plainPosting{}, idf: map[string]float64{}}
	total := 0.0
	for doc, text := range texts {
		toks := plainTokens(text)
		counts := map[string]int{}
		var order []string // first occurrence, so postings are built in a fixed order
		for _, t := range toks {
			if counts[t] == 0 {
				order = append(order, t)
			}
			counts[t]++
		}
		for _, t := range order {
			x.postings[t] = append(x.postings[t], plainPosting{doc, float64(counts[t])})
		}
		x.length[doc] = float64(len(toks))
		total += x.length[doc]
	}
	if n := float64(len(texts)); n > 0 {
		x.avgLen = total / n
		for t, ps := range x.postings {
			df := float64(len(ps))
			x.idf[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
		}
	}
	return x
}

// rank orders every turn by its BM25 score for question, best first, ties
// in the order of the file, and returns the first k ids. Turns that match
// no word of the question rank too (after every match, in file order), as
// the script ranks them: a question whose words match fewer than k turns
// still has k.
func (x *plainIndex) rank(question string, k int) []string {
	scores := x.scores(question)
	order := make([]int, len(x.ids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	out := make([]string, 0, min(k, len(order)))
	for _, i := range order[:min(k, len(order))] {
		out = append(out, x.ids[i])
	}
	return out
}

// scores are the turns' BM25 scores for question, in file order.
func (x *plainIndex) scores(question string) []float64 {
	scores := make([]float64, len(x.ids))
	seen := map[string]bool{}
	for _, t := range plainTokens(question) {
		if seen[t] { // each distinct word of the question counts once
			continue
		}
		seen[t] = true
		idf, ok := x.idf[t]
		if !ok {
			continue
		}
		for _, p := range x.postings[t] {
			norm := plainK1 * (1 - plainB + plainB*x.length[p.doc]/x.avgLen)
			scores[p.doc] += idf * p.count * (plainK1 + 1) / (p.count + norm)
		}
	}
	return scores
}
