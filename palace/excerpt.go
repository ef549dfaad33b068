package palace

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Excerpt is what a face that splices memories into a model's context
// shows of one (the prompt hook, the mem_* tools' markdown): its text,
// when it fits in n characters; else, when the search matched a passage
// that ends past its first n characters (an answer deep in a long reply,
// a line of a pasted log), its opening line cut to n/5, "…" and that
// passage, so the part that answers is the part read; else its first n
// characters. A passage is a window of at most PassageWords words, whose
// match may lie at its end, so it is shown whole up to 2n characters. A
// text cut short ends in "…".
func Excerpt(content string, passage *Span, n int) string {
	text := strings.TrimSpace(content)
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	matched, ok := passage.Of(content)
	lead := len(content) - len(strings.TrimLeftFunc(content, unicode.IsSpace)) // where text starts
	if !ok || passage.End <= lead || utf8.RuneCountInString(content[lead:passage.End]) <= n {
		return clipRunes(text, n) // no passage, or it ends within the first n characters
	}
	return clipRunes(firstLine(text), n/5) + "\n…\n" + clipRunes(strings.TrimSpace(matched), 2*n)
}

// clipRunes cuts s to at most n characters, the last of them "…" when it
// cuts.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:max(n-1, 0)])) + "…"
}

// firstLine is the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
