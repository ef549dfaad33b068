package redact

import "strings"

// Secrets written so that a pattern misses them, and what loci does.
//
// Caught: a token glued to a word by a separator (tag-AKIA…, x_ghp_…; see
// gluedOK); a token with zero-width characters inside it (U+200B, U+200C,
// U+200D, U+2060, U+FEFF); a token whose separators are percent-encoded
// (ghp%5F…, api_key%3D…); a password given in a sentence ("my password is
// …", "the passphrase was …") or after pwd/passwd labels.
//
// Not caught, by design (each would redact ordinary text): a token split
// by a space or a line break, base64- or otherwise re-encoded secrets,
// secrets spelled out or in images, and a password of letters alone given
// in a sentence ("the password is swordfish" reads as "the password is
// correct" does; passwords.go).

// zeroWidth are the invisible characters stripped to reveal a secret.
var zeroWidth = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"}

// encodedSeparator decodes the percent-encoding at the start of s when it
// encodes a separator the rules anchor on (_ - = :), else returns 0.
func encodedSeparator(s string) byte {
	if len(s) < 3 || s[0] != '%' {
		return 0
	}
	switch s[1] {
	case '5':
		if s[2]|0x20 == 'f' {
			return '_'
		}
	case '2':
		if s[2]|0x20 == 'd' {
			return '-'
		}
	case '3':
		switch s[2] | 0x20 {
		case 'd':
			return '='
		case 'a':
			return ':'
		}
	}
	return 0
}

// hides reports whether s holds a zero-width character or an encoded
// separator, without allocating.
func hides(s string) bool {
	if strings.IndexByte(s, 0xe2) >= 0 || strings.IndexByte(s, 0xef) >= 0 {
		for _, z := range zeroWidth {
			if strings.Contains(s, z) {
				return true
			}
		}
	}
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '%')
		if i < 0 {
			return false
		}
		i += off
		if encodedSeparator(s[i:]) != 0 {
			return true
		}
		off = i + 1
	}
}

// findRevealed is Find for a text whose secrets show only once revealed:
// the matches of the revealed text, with offsets mapped back to s (a match
// covers the hidden characters inside it).
func (r *Redactor) findRevealed(s string) []Match {
	u, orig := revealMap(s, true)
	var buf [8]span
	sp := r.spans(u, buf[:0])
	out := make([]Match, len(sp))
	for i, m := range sp {
		out[i] = Match{Rule: ruleNames[m.rule], Start: orig[m.start], End: orig[m.end]}
	}
	return out
}

// revealMap is reveal with, when withMap, the offset in s of every byte
// of the result (and of its end). It returns s itself when nothing is
// hidden in it.
func revealMap(s string, withMap bool) (string, []int) {
	var b strings.Builder
	var orig []int
	if withMap {
		orig = make([]int, 0, len(s)+1)
	}
	changed := false
next:
	for i := 0; i < len(s); {
		if s[i] == 0xe2 || s[i] == 0xef {
			for _, z := range zeroWidth {
				if strings.HasPrefix(s[i:], z) {
					i += len(z)
					changed = true
					continue next
				}
			}
		}
		if s[i] == '%' {
			if d := encodedSeparator(s[i:]); d != 0 {
				b.WriteByte(d)
				if withMap {
					orig = append(orig, i)
				}
				i += 3
				changed = true
				continue
			}
		}
		b.WriteByte(s[i])
		if withMap {
			orig = append(orig, i)
		}
		i++
	}
	if !changed {
		return s, nil
	}
	return b.String(), append(orig, len(s))
}

// unhide returns the text to redact: s itself, unless revealing it shows
// secret bytes the rules miss in s; then the revealed form, which is what
// gets redacted (and stored) — an invisible character or an encoded
// separator inside a secret is worth nothing to keep. "Miss" is by bytes,
// not by count: a secret that s shows in part and its revealed form in
// full (emk_… followed by %2d and more of it) is one match either way, and
// redacting only the part left the rest to a second pass, so redaction was
// not idempotent (found by FuzzString).
func (r *Redactor) unhide(s string) string {
	if !hides(s) { // the fast path: clean text allocates nothing
		return s
	}
	u, orig := revealMap(s, true)
	if orig == nil {
		return s
	}
	var a, b [8]span
	revealed := r.spans(u, a[:0])
	if len(revealed) == 0 {
		return s
	}
	plain := r.spans(s, b[:0])
	for _, m := range revealed {
		if !coveredBy(plain, orig[m.start], orig[m.end]) {
			return u
		}
	}
	return s
}

// coveredBy reports whether one of spans covers the bytes [start, end).
func coveredBy(spans []span, start, end int) bool {
	for _, sp := range spans {
		if sp.start <= start && end <= sp.end {
			return true
		}
	}
	return false
}

// scanPhrase: a password given in a sentence — "password is X", "my
// passphrase was X", "pwd is X" — or on a command line or a .netrc line,
// when X reads as a password (labelledPassword: in a sentence, a word
// with a digit or a symbol, so "the password is correct" stays). It looks
// only where "pas" or "pwd" occurs.
func (r *Redactor) scanPhrase(s string, dst []span) []span {
	var f wordFinder
	for off := 0; ; {
		k := f.next(s, off)
		if k < 0 {
			return dst
		}
		off = k + 3
		if k > 0 && class[s[k-1]]&cAlpha != 0 {
			continue // inside a word (bypass, compass)
		}
		w := k
		for w < len(s) && w-k < 11 && class[s[w]]&cAlpha != 0 {
			w++
		}
		switch strings.ToLower(s[k:w]) {
		case "password", "passwd", "passphrase", "pwd":
		default:
			continue
		}
		var v int
		switch {
		case len(s)-w >= 4 && strings.EqualFold(s[w:w+4], " is "):
			v = w + 4
		case len(s)-w >= 5 && strings.EqualFold(s[w:w+5], " was "):
			v = w + 5
		case len(s)-w >= 2 && s[w] == ' ' && (k >= 2 && s[k-2:k] == "--" || afterLogin(s, k)):
			v = w + 1 // a command line's --password X, a .netrc's login U password X
		default:
			continue
		}
		for v < len(s) && (s[v] == ' ' || s[v] == '\t' || s[v] == '"' || s[v] == '\'' || s[v] == '`' || s[v] == ':') {
			v++
		}
		// The value runs to the next space or quote (a password may hold
		// '&' or '$'), less the punctuation that ends a sentence.
		e := trimSentenceEnd(s, v, wordEnd(s, v, v))
		if val := s[v:e]; labelledPassword(val, pwSpaced) && !maskedAt(s, e) {
			dst = r.add(dst, rGeneric, v, e, 0)
			off = max(off, e)
		}
	}
}

// trimSentenceEnd is the end e of a value starting at v less the
// punctuation that ends a sentence or a clause after it ("-p PASSWORD.").
func trimSentenceEnd(s string, v, e int) int {
	for e > v && strings.IndexByte(".,;:!?)]}", s[e-1]) >= 0 {
		e--
	}
	return e
}

// afterLogin reports whether the word at k follows "login <name> ", as a
// password does in a .netrc line ("machine h login u password p").
func afterLogin(s string, k int) bool {
	if k < 2 || s[k-1] != ' ' {
		return false
	}
	a := k - 1
	for a > 0 && k-1-a < maxKey && s[a-1] > ' ' {
		a--
	}
	return a < k-1 && a >= 7 && s[a-1] == ' ' && strings.EqualFold(s[a-6:a-1], "login") && leftOK(s, a-6)
}

// wordFinder yields the starts of "pas" and "pwd", in any case, in s in
// order. It finds candidates with strings.IndexByte on 'p' and on 'P'
// (SIMD, and p is a rare letter), keeping the next hit of each, so a whole
// scan costs one pass per case: much cheaper than a byte loop on the prose
// every write passes through.
type wordFinder struct {
	at   [2]int // next candidate for 'p' and for 'P', -1 none
	init bool
}

func (f *wordFinder) next(s string, off int) int {
	best := -1
	for n, c := range [2]byte{'p', 'P'} {
		if !f.init || f.at[n] >= 0 && f.at[n] < off {
			f.at[n] = findWord(s, off, c)
		}
		if a := f.at[n]; a >= 0 && (best < 0 || a < best) {
			best = a
		}
	}
	f.init = true
	return best
}

// findWord returns the index of the first c at or after off followed by
// "as" or "wd" in any case, or -1.
func findWord(s string, off int, c byte) int {
	for off < len(s) {
		j := strings.IndexByte(s[off:], c)
		if j < 0 {
			return -1
		}
		j += off
		if j+2 < len(s) {
			if a, b := s[j+1]|0x20, s[j+2]|0x20; a == 'a' && b == 's' || a == 'w' && b == 'd' {
				return j
			}
		}
		off = j + 1
	}
	return -1
}
