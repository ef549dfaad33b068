package palace

import (
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// legibleShare is the share of text's words that are written as words of
// a language: letters (with an apostrophe or a dash inside: "don't",
// "e-mail", "jazz—it's"; a slash between two: "and/or"), or a number (with a point,
// colon, comma or slash between digits: "3.5", "13:53", "1,000",
// "5/30/23"). The rest are code and
// addresses: an identifier in camel case ("parseHTTPResponse") or with an
// underscore, a call ("Do(req"), a selector ("r.Header"), a path, an
// operator, a URL. Punctuation around a word does not count against it
// ("(see", "done!"), and a token with no letter or digit (an emoji, "—",
// "{") is no word at all. A text without words counts as legible (1).
// Words are cut as passages cut them (splitWords: each character of
// Chinese or Japanese is one), and at the full-width punctuation those
// scripts write without a space (wideStop).
//
// A hybrid search weighs the vector leg's vote on a drawer by the share
// of the text its vector matched that is legible (Search): the sentence
// encoder reads language, so its cosine to a function's code says little
// about which function a question in words asks for, while the keyword
// leg reads an identifier's words (words.CaseParts) as well as prose.
// Nothing is chosen: the share is the fraction of the text the encoder
// could read, and prose and chat are 1, so they rank as before.
//
// Only the first maxLegibleBytes of text are read: a long text's passage
// vectors are each 50 words, and its whole-text vector, the one vector
// that stands for all of a 4 MiB text, is judged by its opening.
func legibleShare(text string) float64 {
	if len(text) > maxLegibleBytes {
		cut := maxLegibleBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	var legible, all int
	for _, sw := range splitWords(text) {
		for _, tok := range strings.FieldsFunc(text[sw.start:sw.end], wideStop) {
			w := strings.TrimFunc(tok, notWordRune)
			if w == "" {
				continue
			}
			all++
			if writtenAsWord(w) {
				legible++
			}
		}
	}
	if all == 0 {
		return 1
	}
	return float64(legible) / float64(all)
}

// maxLegibleBytes bounds the text legibleShare reads: 16 KiB, some 2,500
// words, far more than any passage vector's 50 (VectorPassageWords), so
// that only a long text's whole-text vector is judged by a part of it.
const maxLegibleBytes = 16 << 10

func isWordRune(r rune) bool  { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func notWordRune(r rune) bool { return !isWordRune(r) }

// wideStop reports whether r, a punctuation mark beyond ASCII, ends a
// word as a space would: the full-width comma and stop of Chinese and
// Japanese ("，", "。"), which are written without a space after them.
// An apostrophe or a dash inside a word stays in it.
func wideStop(r rune) bool {
	return r >= utf8.RuneSelf && unicode.IsPunct(r) && r != '’' && !unicode.Is(unicode.Pd, r)
}

// writtenAsWord reports whether w, which starts and ends with a letter
// or digit, is written as a word or a number (legibleShare).
func writtenAsWord(w string) bool {
	var prev rune
	for i, r := range w {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				return false // camel case: an identifier
			}
		case r == '\'' || r == '’' || r == '`' || unicode.Is(unicode.Pd, r):
		case r == '/':
			next, _ := utf8.DecodeRuneInString(w[i+1:])
			if !isWordRune(prev) || !isWordRune(next) {
				return false
			}
		case r == '.' || r == ':' || r == ',':
			next, _ := utf8.DecodeRuneInString(w[i+1:])
			if !unicode.IsDigit(prev) || !unicode.IsDigit(next) {
				return false
			}
		default:
			return false
		}
		prev = r
	}
	return true
}

// legibleOn reports whether hybrid searches weigh the vector leg by
// legibility; LOCI_LEGIBLE=0 turns it off (for comparison).
func legibleOn() bool { return os.Getenv("LOCI_LEGIBLE") != "0" }
