package palace

import (
	"strings"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/words"
)

// Restated sentences. In a conversation a text often says again what an
// earlier text said: an assistant's reply opens by restating what it was
// told ("Since you deploy on a Raspberry Pi 4 with 4 GB…"), re-pastes the
// code it was shown, a person quotes the message they answer. The earlier
// text is the memory of those words; the restatement is not. Indexed at
// full weight, every reply that restates a statement competes with it for
// the statement's own questions, and in user–assistant chats, where most
// evidence is the user's statements and the long replies around them
// repeat their words, the replies win (../shared/RETRIEVAL.md).
//
// So a drawer written in a session (a recorded conversation's turn, a
// Claude Code round, an agent's text) or with a speaker through one
// connection finds the sentences of its own text that restate an earlier
// text of its session or connection, and indexes them as context, at
// half weight, as it indexes what it borrows: still found by those words,
// no longer ranked on them as though it were their source. Its vector is
// made from the rest (ownWords). This is novelty detection at the
// sentence level (Allan, Wade and Bolivar 2003; the TREC Novelty track),
// used to weigh a text's words instead of to filter it. The text itself,
// and what later texts borrow from it, are unchanged.
const (
	// restatedShare: a sentence restates an earlier text when at least
	// this share of its words (BM25 tokens of two letters or more,
	// stopwords aside) were said in that one text: all but one word in
	// five, so a restatement that adds a word ("You mentioned…") is one.
	// Chosen on conversations 1–5 (session path, hybrid any@10) from 0.5,
	// 0.8 and 1: LoCoMo .872, .864, .866 (.865 without), its rewrite with
	// replies that restate eight turns .789, .802, .802 (.758 without),
	// four turns .827, .829, .829 (.813), short messages .751, .750, .750
	// (.749); RECALL.md has the held-out halves.
	restatedShare = 0.8
	// restatedMinWords: a sentence of fewer words is a formula ("Thanks,
	// Nate!", "Sounds great."), not a statement to restate; the feedback
	// pass's bound on restating texts (feedbackRestateWords).
	restatedMinWords = feedbackRestateWords
	// restatedWindowBytes bounds the earlier text a drawer reads for
	// restatements (a bound on work, with maxBorrowTurns): the texts just
	// before it, newest first, the last one cut to its end.
	restatedWindowBytes = 32 << 10
	// restatedMaxBytes bounds the restated sentences a drawer keeps in its
	// keywords (they are a copy of its own text): a pasted file that
	// repeats an earlier one is demoted up to here, then indexed as it is.
	restatedMaxBytes = 64 << 10
)

// restatedMark separates, in a drawer's keywords, what it borrows from the
// sentences of its own text that restate an earlier text, one a line. It is
// a control character (unit separator), which no borrowed text keeps
// (withRestated drops it).
const restatedMark = "\x1f"

// withRestated is a drawer's keywords: what it borrowed (kw) and its
// restated sentences.
func withRestated(kw string, restated []string) string {
	kw = strings.ReplaceAll(kw, restatedMark, " ")
	if len(restated) == 0 {
		return kw
	}
	return kw + restatedMark + strings.Join(restated, "\n")
}

// splitRestated is the reverse of withRestated: the borrowed keywords and
// the restated sentences (keywords may end in the names the text
// addresses, withAddressed).
func splitRestated(keywords string) (string, []string) {
	keywords, names := splitAddressed(keywords)
	kw, rest, ok := strings.Cut(keywords, restatedMark)
	if !ok {
		return keywords, nil
	}
	// As the text they are found in is read: without the names it
	// addresses (address.go).
	return kw, strings.Split(unaddressed(rest, names), "\n")
}

// ownWords is content[start:end] without the restated sentences wholly
// inside it, for its vector: a reply's vector is made from what it adds,
// as its words are indexed (the statement it restates has its own). A
// span that only restates keeps its words, so it is still found.
func ownWords(content string, start, end int, ranges [][2]int) string {
	own, moved := splitOff(content, start, end, ranges)
	if moved == "" || strings.TrimSpace(own) == "" {
		return content[start:end]
	}
	return own
}

// restatedWindow reads the texts a drawer may restate (earlier returns
// them newest first, nil when there are no more): what they say, without
// header or speaker label (spokenWords), at most maxBorrowTurns of them
// and restatedWindowBytes in all.
func restatedWindow(earlier func() (*Drawer, error)) ([]string, error) {
	var out []string
	left := restatedWindowBytes
	for len(out) < maxBorrowTurns && left > 0 {
		x, err := earlier()
		if err != nil || x == nil {
			return out, err
		}
		t := spokenWords(x.Content, x)
		if len(t) > left {
			t = lastBytes(t, left)
		}
		out = append(out, t)
		left -= len(t)
	}
	return out, nil
}

// restatedSentences are the sentences of own (in order) that restate one
// of the texts in window, up to restatedMaxBytes of them. own is what the
// drawer says (spokenWords): who says a sentence is not what it says.
func restatedSentences(own string, window []string) []string {
	if len(window) == 0 {
		return nil
	}
	said := make([]map[string]bool, len(window))
	for i, w := range window {
		said[i] = sentenceWords(w)
	}
	var out []string
	size := 0
	for _, s := range extract.Sentences(own) {
		ws := sentenceWords(s)
		if len(ws) < restatedMinWords {
			continue
		}
		for _, prev := range said {
			n := 0
			for t := range ws {
				if prev[t] {
					n++
				}
			}
			if float64(n) >= restatedShare*float64(len(ws)) {
				if size+len(s) > restatedMaxBytes {
					return out
				}
				out = append(out, s)
				size += len(s) + 1
				break
			}
		}
	}
	return out
}

// sentenceWords is the set of words of text that can restate: BM25
// tokens of two letters or more, stopwords aside.
func sentenceWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, t := range bm25.AppendTokens(nil, text) {
		if len(t) >= 2 && !words.IsStopword(t) {
			out[t] = true
		}
	}
	return out
}

// restatedRanges locates the restated sentences in content, in order (they
// were taken from it in order), as byte ranges; one not found (the text was
// edited since) is skipped.
func restatedRanges(content string, restated []string) [][2]int {
	var out [][2]int
	at := 0
	for _, s := range restated {
		if s == "" {
			continue
		}
		i := strings.Index(content[at:], s)
		if i < 0 {
			continue
		}
		out = append(out, [2]int{at + i, at + i + len(s)})
		at += i + len(s)
	}
	return out
}

// splitOff returns content[start:end] with the ranges inside it cut out,
// and the text of those ranges, one a line: what the index counts at full
// weight, and what it counts with the keywords.
func splitOff(content string, start, end int, ranges [][2]int) (string, string) {
	var own, moved strings.Builder
	at := start
	for _, r := range ranges {
		if r[0] < start || r[1] > end {
			continue
		}
		own.WriteString(content[at:r[0]])
		own.WriteByte(' ')
		if moved.Len() > 0 {
			moved.WriteByte('\n')
		}
		moved.WriteString(content[r[0]:r[1]])
		at = r[1]
	}
	if moved.Len() == 0 {
		return content[start:end], ""
	}
	own.WriteString(content[at:end])
	return own.String(), moved.String()
}
