package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text output is read on a terminal, and stored text is anyone's: a note
// holding "\x1b]0;…\x07" or "\x1b[2J" would retitle or clear the reader's
// terminal, and a right-to-left override (U+202E) would make the line read
// other than it is. termSafe renders such characters visibly instead of
// sending them: C0 controls but newline and tab, DEL and C1 controls as
// \xNN, bidirectional controls as <U+NNNN>, invalid UTF-8 bytes as \xNN.
// JSON and YAML output escape what they must and are left alone.
func termSafe(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports a character that text output must not send raw.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidirectional marks, embeddings, overrides and isolates
	}
	return false
}
