package palace

import "unicode"

// Long texts are indexed as overlapping passages and a drawer scores by
// its best passage (MaxP; Dai & Callan, SIGIR 2019): an assistant reply of
// several paragraphs, a pasted file or a 4 MiB log should neither bury a
// one-line match under its length (BM25's length normalisation, an
// averaged embedding) nor be cut off. A short text is its own single
// passage and is indexed exactly as before.
//
// The window is the one MaxP used on long web documents, 150 words with a
// stride of 75 (each word lands in two passages, so a phrase is never split
// by every window); it is a fixed, published default, not a parameter
// fitted to any evaluation set.
const (
	PassageWords  = 150
	PassageStride = 75
)

// MaxPassages bounds the passages of one drawer; with the stride above a
// 4 MiB text of short words stays well inside it. Index keys keep the
// passage number in their low passageBits bits.
const (
	passageBits = 16
	MaxPassages = 1<<passageBits - 1
)

// Span is a passage: byte offsets into a drawer's Content.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Passages returns the passages of a drawer's text, or nil when the text
// fits in one (it is then indexed whole). Words are runs of non-space
// characters; passages start and end on word boundaries, and the last one
// ends with the text.
func Passages(text string) []Span {
	type word struct{ start, end int }
	var words []word
	in := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		switch {
		case !space && !in:
			words = append(words, word{start: i})
			in = true
		case space && in:
			words[len(words)-1].end = i
			in = false
		}
	}
	if in {
		words[len(words)-1].end = len(text)
	}
	if len(words) <= PassageWords {
		return nil
	}
	stride := PassageStride
	if n := (len(words)-PassageWords)/stride + 2; n > MaxPassages {
		stride = (len(words) - PassageWords + MaxPassages - 2) / (MaxPassages - 1)
	}
	var out []Span
	for first := 0; ; first += stride {
		last := min(first+PassageWords, len(words)) - 1
		if last == len(words)-1 {
			first = max(0, last-PassageWords+1) // the last window ends with the text
		}
		out = append(out, Span{Start: words[first].start, End: words[last].end})
		if last == len(words)-1 {
			return out
		}
	}
}

// passageKey packs a drawer-level key (a row id or a vector key) and a
// passage number into one index key: passage 0 is the whole drawer, 1..n
// its passages.
func passageKey(key int64, passage int) int64 { return key<<passageBits | int64(passage) }

// splitKey unpacks passageKey.
func splitKey(k int64) (key int64, passage int) {
	return k >> passageBits, int(k & (1<<passageBits - 1))
}

// passageText is passage p (1-based) of text, or text itself for p = 0.
func passageText(text string, spans []Span, p int) string {
	if p <= 0 || p > len(spans) {
		return text
	}
	return text[spans[p-1].Start:spans[p-1].End]
}
