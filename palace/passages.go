package palace

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/words"
)

// Long texts are indexed as overlapping passages and a drawer scores by
// its best passage (MaxP; Dai & Callan, SIGIR 2019): an assistant reply of
// several paragraphs, a pasted file or a 4 MiB log should neither bury a
// one-line match under its length (BM25's length normalisation, an
// averaged embedding) nor be cut off. A short text is its own single
// passage and is indexed exactly as before.
//
// The two legs cut the text differently, each to what its scorer reads:
//
//   - Keywords: 150 words with a stride of 75, the window MaxP used on long
//     web documents. BM25 reads every word of a window, and a wider one
//     keeps a passage's term statistics steady.
//   - Vectors: 50 words with a stride of 25. An encoder reads a bounded
//     input: the built-in transformer (USE-lite) sees the first 128
//     tokens, about 100 English words, so most of a 150-word window never
//     reached it; an averaged word vector (the GloVe part) blurs as a
//     window grows. Fifty words, two or three sentences, fit inside 128
//     tokens with room for long words, and are the length sentence
//     encoders are trained on. A text of over about 100k words gets wider
//     windows instead (maxVectorPassages).
//
// Both strides are half their window, so each word lands in two passages
// and a phrase is never split by every window. Both windows are published
// or derived defaults, not parameters fitted to an evaluation set; the
// vector window was checked on LoCoMo 1–5, 6–10 and both ingestion paths
// (RECALL.md, "Vector passages of 50 words").
const (
	PassageWords  = 150
	PassageStride = 75

	VectorPassageWords  = 50
	VectorPassageStride = 25
)

// vectorLayout names the vector window and its bound, and what a vector
// reads besides a text's words; a palace records it in its meta once every
// stored vector is of it (see reembed.go).
var vectorLayout = fmt.Sprintf("%d/%d/%d/%s/%s", VectorPassageWords, VectorPassageStride, maxVectorPassages, wordRule, vectorWords)

// vectorWords names what a vector reads beside a text's own words, so that
// a palace whose vectors were made without it re-embeds the texts it
// concerns: "idents", the words of the identifiers in camel case a text
// holds (withIdentifierWords), "emoji", the words of the emoji that
// name things, read in their place (withEmojiWords), and "fixes", the
// word a misspelt, drawn-out or informal word stands for, read in its
// place (withFixedWords).
const vectorWords = "idents-emoji-fixes"

// wordRule names how splitWords counts words, so that a palace whose long
// texts were cut by another rule re-embeds those the new one cuts
// otherwise: "cjk", each CJK character a word (before it, a text of
// Chinese or Japanese without spaces was one word and never cut).
const wordRule = "cjk"

// MaxPassages bounds the keyword passages of one drawer; with the stride
// above a 4 MiB text of ordinary words stays inside it (a longer run of
// very short words widens the stride instead). Index keys keep the passage
// number in their low passageBits bits.
const (
	passageBits = 16
	MaxPassages = 1<<passageBits - 1
)

// Span is a passage: byte offsets into a drawer's Content.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Of is the part of text s spans, and whether s is a non-empty span within
// it, starting and ending between characters (a nil span is none; so is
// one that cuts a character, as a span kept from an earlier text could).
func (s *Span) Of(text string) (string, bool) {
	if s == nil || s.Start < 0 || s.End > len(text) || s.Start >= s.End ||
		!utf8.RuneStart(text[s.Start]) || s.End < len(text) && !utf8.RuneStart(text[s.End]) {
		return "", false
	}
	return text[s.Start:s.End], true
}

// Passages returns the keyword passages of a drawer's text, or nil when
// the text fits in one (it is then indexed whole). Words are runs of
// non-space characters; passages start and end on word boundaries, and
// the last one ends with the text.
func Passages(text string) []Span {
	sp, _ := cut(splitWords(text), PassageWords, PassageStride, MaxPassages, false)
	return sp
}

// maxVectorPassages bounds the vector passages of one drawer, and with
// them the embedding work one write asks for (about a minute of the
// built-in encoder on 2 cores): a text of up to about 100k words keeps
// 50-word windows, a longer one gets wider windows, still overlapping by
// half, of which the encoder reads the start. Keyword passages have no
// such bound: BM25 indexes every word of every window at little cost.
const maxVectorPassages = 4096

// VectorPassages returns the passages a drawer's text is embedded in, or
// nil when it is embedded whole; as Passages, with the vector window.
func VectorPassages(text string) []Span {
	words := splitWords(text)
	keyword := -1
	for limit := maxVectorPassages; ; limit-- {
		sp, capped := cut(words, VectorPassageWords, VectorPassageStride, limit, true)
		if !capped {
			return sp
		}
		// The count of a drawer's passage vectors tells which window they
		// were cut in (vectorSpans), and an earlier release cut them in the
		// keyword window. Uncapped, the vector window always gives more
		// passages; capped, it can give as many (at a stride of 75 it is
		// the keyword window), so one fewer is allowed until it does not.
		if keyword < 0 {
			kw, _ := cut(words, PassageWords, PassageStride, MaxPassages, false)
			keyword = len(kw)
		}
		if len(sp) != keyword {
			return sp
		}
	}
}

// vectorSpans are the spans of a drawer's stored passage vectors: n of
// them, of the current window or, for vectors stored by an earlier
// release and not yet re-embedded (see reembed.go), of the keyword window
// they were made with. nil when neither has n passages.
func vectorSpans(text string, n int) []Span {
	if n == 0 {
		return nil
	}
	if sp := VectorPassages(text); len(sp) == n {
		return sp
	}
	if sp := Passages(text); len(sp) == n {
		return sp
	}
	return nil
}

// word is a run of non-space characters, or one CJK character (see
// splitWords): byte offsets into a text.
type word struct{ start, end int }

// splitWords splits text at white space, and around each character of
// Han, Hiragana and Katakana (words.IsCJK), which is a word alone.
func splitWords(text string) []word {
	ws := make([]word, 0, len(text)/6+1) // about six bytes a word in English
	in := false
	for i := 0; i < len(text); {
		c, size := text[i], 1
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			space = unicode.IsSpace(r)
			if words.IsCJK(r) {
				// A character of a script written without spaces is a
				// word of its own: the keyword index searches it (and its
				// pairs) as one, and the encoder reads it as a token or
				// two, so a window of Chinese or Japanese holds about
				// what a window of English words does.
				if in {
					ws[len(ws)-1].end = i
				}
				ws = append(ws, word{start: i, end: i + size})
				in = false
				i += size
				continue
			}
		}
		switch {
		case !space && !in:
			ws = append(ws, word{start: i})
			in = true
		case space && in:
			ws[len(ws)-1].end = i
			in = false
		}
		i += size
	}
	if in {
		ws[len(ws)-1].end = len(text)
	}
	return ws
}

// asciiSpace holds the ASCII bytes unicode.IsSpace reports as space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// cut cuts words into windows of window words every stride words, at most
// limit of them: past that the stride grows (and with widen the window
// too, to twice the stride, so that windows still overlap by half). It
// reports whether the limit applied.
func cut(words []word, window, stride, limit int, widen bool) ([]Span, bool) {
	if len(words) <= window {
		return nil, false
	}
	capped := false
	if n := (len(words)-window)/stride + 2; n > limit {
		capped = true
		if widen { // windows of 2s words every s: ceil(W/s)-1 <= limit-2 of them
			stride = (len(words) + limit - 2) / (limit - 1)
			window = 2 * stride
		} else {
			stride = (len(words) - window + limit - 2) / (limit - 1)
		}
	}
	var out []Span
	for first := 0; ; first += stride {
		last := min(first+window, len(words)) - 1
		if last == len(words)-1 {
			first = max(0, last-window+1) // the last window ends with the text
		}
		out = append(out, Span{Start: words[first].start, End: words[last].end})
		if last == len(words)-1 {
			return out, capped
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
