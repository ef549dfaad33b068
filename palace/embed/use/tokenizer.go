package use

import (
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// reservedPieces are the ids the tokenizer never produces from text
// (unknown, <s>, </s> and three extra ids). The unknown id is 0.
const reservedPieces = 6

// MaxTokens is the number of tokens the encoder reads; longer inputs are
// truncated.
const MaxTokens = 128

// spaceMark is SentencePiece's word-boundary symbol, U+2581.
const spaceMark = '\u2581'

// tokenizer is a SentencePiece unigram tokenizer: it finds the
// segmentation of the text into vocabulary pieces with the highest total
// score (Viterbi), with the same tie-breaking as the JavaScript reference
// implementation so that both produce the same ids.
type tokenizer struct {
	root    trieNode
	scores  []float64
	pieceLn []int // length of each piece in UTF-16 code units
}

type trieNode struct {
	kids  map[rune]*trieNode
	id    int32 // piece id when end is true
	end   bool
	score float64
}

func newTokenizer(pieces []string, scores []float64) *tokenizer {
	tk := &tokenizer{scores: scores, pieceLn: make([]int, len(pieces))}
	for id, p := range pieces {
		tk.pieceLn[id] = len(utf16.Encode([]rune(p)))
		if id < reservedPieces {
			continue
		}
		n := &tk.root
		for _, r := range p {
			next := n.kids[r]
			if next == nil {
				if n.kids == nil {
					n.kids = make(map[rune]*trieNode)
				}
				next = &trieNode{}
				n.kids[r] = next
			}
			n = next
		}
		n.end, n.id, n.score = true, int32(id), scores[id]
	}
	return tk
}

// candidate is a piece that can end at some position.
type candidate struct {
	start int
	id    int32
	score float64
}

// encode returns the token ids of text, not truncated.
//
// The rules reproduce the reference exactly: NFKC, a leading U+2581 and
// every ASCII space replaced by it; at each position every vocabulary
// piece that is a prefix of the rest is a candidate, or else a one-symbol
// unknown (id 0, score 0); Viterbi over end positions taking candidates in
// ascending start order, where a candidate replaces the best so far when
// that best is exactly 0 or the candidate scores at least as well;
// backtracking by the piece's length in UTF-16 units; runs of unknowns
// merged into one.
func (tk *tokenizer) encode(text string) []int32 {
	text = norm.NFKC.String(text)
	syms := []rune(string(spaceMark) + strings.ReplaceAll(text, " ", string(spaceMark)))
	n := len(syms)
	// ends[e] lists the candidates ending at e, in ascending start order
	// because starts are visited in order.
	ends := make([][]candidate, n+1)
	for i := 0; i < n; i++ {
		found := false
		node := &tk.root
		for j := i; j < n; j++ {
			node = node.kids[syms[j]]
			if node == nil {
				break
			}
			if node.end {
				ends[j+1] = append(ends[j+1], candidate{start: i, id: node.id, score: node.score})
				found = true
			}
		}
		if !found {
			ends[i+1] = append(ends[i+1], candidate{start: i, id: 0, score: 0})
		}
	}
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for e := 1; e <= n; e++ {
		for _, c := range ends[e] {
			s := c.score + best[c.start]
			if best[e] == 0 || s >= best[e] {
				best[e] = s
				words[e] = c.id
			}
		}
	}
	var rev []int32
	prevUnk := false
	for at := n; at > 0; {
		id := words[at]
		if !(prevUnk && id == 0) {
			rev = append(rev, id)
		}
		prevUnk = id == 0
		at -= tk.pieceLn[id]
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
