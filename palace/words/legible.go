package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Legible counts the words of text (all) and those of them written as
// words of a language (legible): letters, with an apostrophe or a dash
// inside ("don't", "e-mail", "jazz—it's") or a slash between two
// ("and/or"), or a number, with a point, colon, comma or slash between
// digits ("3.5", "13:53", "1,000", "5/30/23"). The others are written as
// code or addresses: an identifier in camel case ("parseHTTPResponse") or
// with an underscore, a call ("Do(req"), a selector ("r.Header"), a path,
// an operator, a URL.
//
// Words are what white space and the full-width punctuation of Chinese
// and Japanese ("，", "。") separate, less the punctuation around them
// ("(see", "done!" are words), and each character of Han, Hiragana and
// Katakana (IsCJK) is a word of its own. A run of punctuation, symbols
// or emoji ("—", "{", ":=", "🎉") is no word at all.
func Legible(text string) (legible, all int) {
	count := func(tok string) {
		w := strings.TrimFunc(tok, notWordRune)
		if w == "" {
			return
		}
		all++
		if writtenAsWord(w) {
			legible++
		}
	}
	start := -1
	for i, r := range text {
		switch {
		case IsCJK(r):
			if start >= 0 {
				count(text[start:i])
				start = -1
			}
			all++
			legible++
		case unicode.IsSpace(r) || wideStop(r):
			if start >= 0 {
				count(text[start:i])
				start = -1
			}
		case start < 0:
			start = i
		}
	}
	if start >= 0 {
		count(text[start:])
	}
	return legible, all
}

func notWordRune(r rune) bool { return !IsWordRune(r) }

// wideStop reports whether r, a punctuation mark beyond ASCII, ends a
// word as a space would: the full-width comma and stop of Chinese and
// Japanese, written without a space after them. An apostrophe or a dash
// inside a word stays in it.
func wideStop(r rune) bool {
	return r >= utf8.RuneSelf && unicode.IsPunct(r) && r != '’' && !unicode.Is(unicode.Pd, r)
}

// writtenAsWord reports whether w, which starts and ends with a word
// character, is written as a word or a number (Legible).
func writtenAsWord(w string) bool {
	var prev rune
	for i, r := range w {
		switch {
		case IsWordRune(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				return false // camel case: an identifier
			}
		case r == '\'' || r == '’' || r == '`' || unicode.Is(unicode.Pd, r):
		case r == '/':
			next, _ := utf8.DecodeRuneInString(w[i+1:])
			if !IsWordRune(prev) || !IsWordRune(next) {
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
