package redact

import (
	"math"
	"strings"
)

// Character classes, one bit each, looked up in class.
const (
	cAlnum = 1 << iota // A-Z a-z 0-9
	cAlpha             // A-Z a-z
	cWord              // alnum _
	cTok               // alnum _ -           (emk_, sk-, Slack, JWT segments)
	cB64               // alnum - . _ ~ + / = (RFC 6750 b64token)
	cURLV              // alnum - . _ ~ + / = %  (query values)
	cVal               // alnum - . _ ~ + / = ! @ # % ^ *  (assignment values)
	cKey               // alnum _ . -         (assignment keys)
)

// cPath (webhook paths) does not fit in the byte; it is tested separately.
const cPath = cTok | 1<<8

var class = func() (t [256]uint8) {
	set := func(bits uint8, chars string) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] |= bits
		}
	}
	for c := 0; c < 256; c++ {
		b := byte(c)
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' {
			t[c] |= cAlnum | cAlpha | cWord | cTok | cB64 | cURLV | cVal | cKey
		}
		if b >= '0' && b <= '9' {
			t[c] |= cAlnum | cWord | cTok | cB64 | cURLV | cVal | cKey
		}
	}
	set(cWord|cTok|cB64|cURLV|cVal|cKey, "_")
	set(cTok|cB64|cURLV|cVal|cKey, "-")
	set(cB64|cURLV|cVal|cKey, ".")
	set(cB64|cURLV|cVal, "~+/=")
	set(cURLV|cVal, "%")
	set(cVal, "!@#^*")
	return t
}()

// spanClass returns the end of the run of bytes of class c starting at i.
func spanClass(s string, i int, c int) int {
	if c == cPath {
		for i < len(s) && (class[s[i]]&cTok != 0 || s[i] == '/') {
			i++
		}
		return i
	}
	cc := uint8(c)
	for i < len(s) && class[s[i]]&cc != 0 {
		i++
	}
	return i
}

// spanValue is spanClass for labelled values: it stops one byte past
// maxValue, which every caller treats as "not a secret", so repeated labels
// (password=password=...) cannot make a scan quadratic.
func spanValue(s string, i int, c int) int {
	if lim := i + maxValue + 1; lim < len(s) {
		return spanClass(s[:lim], i, c)
	}
	return spanClass(s, i, c)
}

// leftOK reports whether a token may start at i: at the start of the text,
// after a byte that cannot be part of a token, or right after a JSON escape
// such as \n or \u0026 (so raw JSON text is scanned like its decoded form).
func leftOK(s string, i int) bool {
	return i == 0 || class[s[i-1]]&cTok == 0 || escBefore(s, i)
}

// gluedOK is leftOK for a distinctive vendor prefix (AKIA, ghp_, glpat-,
// xoxb-, npm_, hf_, sk_live_, AIza): such a prefix may also follow a
// separator inside a larger word — tag-AKIA…, x_ghp_…, build.AKIA…,
// path/ghp_… — because no ordinary word ends in one by chance.
func gluedOK(s string, i int) bool {
	return leftOK(s, i) || i > 0 && strings.IndexByte("-_./", s[i-1]) >= 0
}

func escBefore(s string, i int) bool {
	if i >= 2 && s[i-2] == '\\' && (isEscWS(s[i-1]) || s[i-1] == 'b' || s[i-1] == 'f') {
		return true
	}
	if i >= 6 && s[i-6] == '\\' && s[i-5] == 'u' {
		for _, c := range []byte(s[i-4 : i]) {
			if !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f') {
				return false
			}
		}
		return true
	}
	return false
}

func isSpace(c byte) bool     { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isEscWS(c byte) bool     { return c == 'n' || c == 'r' || c == 't' }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isUpper(c byte) bool     { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool     { return c >= 'a' && c <= 'z' }
func isSymbol(c byte) bool    { return strings.IndexByte("+/=~!@#%^*", c) >= 0 }
func hasMarker(v string) bool { return strings.Contains(v, "REDACTED") }

// maskedAt reports whether a mask starts at e, i.e. the value ending at e is
// the kept prefix of an earlier redaction (AKIA[REDACTED]).
func maskedAt(s string, e int) bool {
	return strings.HasPrefix(s[e:], Mask) || strings.HasPrefix(s[e:], SeedMask)
}

// tokenish reports whether v looks generated rather than written: it has a
// digit, or both upper- and lower-case letters. Identifiers such as
// evt_handler_for_clicks fail it.
func tokenish(v string) bool {
	var up, lo bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
			return true
		case isUpper(c):
			up = true
		case isLower(c):
			lo = true
		}
	}
	return up && lo
}

// identLike reports whether an emk_/evt_ tail reads like a program
// identifier rather than a generated key: every part between '_' and '-' is
// lower-case letters, digits only, or camelCase words (each capital followed
// by at least two lower-case letters), e.g. handler_for_click or
// 2024_01_15_deploy_log or handlerForClickEvents.
func identLike(t string) bool {
	start := 0
	for i := 0; i <= len(t); i++ {
		if i < len(t) && t[i] != '_' && t[i] != '-' {
			continue
		}
		if !wordy(t[start:i]) {
			return false
		}
		start = i + 1
	}
	return true
}

func wordy(seg string) bool {
	digits := 0
	for i := 0; i < len(seg); i++ {
		if isDigit(seg[i]) {
			digits++
		}
	}
	if digits > 0 {
		return digits == len(seg)
	}
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; {
		case isLower(c):
		case isUpper(c):
			if i+2 >= len(seg) || !isLower(seg[i+1]) || !isLower(seg[i+2]) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// strongValue is the high-entropy test for labelled values (assignments,
// Authorization headers, bare Bearer tokens). v must be at least minLen bytes,
// not already redacted, contain a letter, and either contain a digit or a
// symbol, or mix cases evenly (at least a quarter each) as random text does
// and CamelCase words do not; and its Shannon entropy must reach
// min(3.0, log2(len)-0.5) bits per byte.
func strongValue(v string, minLen int) bool {
	n := len(v)
	if n < minLen || n > maxValue || hasMarker(v) {
		return false
	}
	var lo, up, dg, sy, num int
	for i := 0; i < n; i++ {
		c := v[i]
		if isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
			num++
		}
		switch {
		case isLower(c):
			lo++
		case isUpper(c):
			up++
		case isDigit(c):
			dg++
		case isSymbol(c):
			sy++
		}
	}
	if lo+up == 0 || num == n { // no letter, or a number such as 1.5e+21
		return false
	}
	if dg == 0 && sy == 0 && (up*4 < n || lo*4 < n) {
		return false
	}
	th := min(3.0, math.Log2(float64(n))-0.5)
	return entropy(v) >= th
}

func entropy(v string) float64 {
	var cnt [256]uint16
	for i := 0; i < len(v); i++ {
		cnt[v[i]]++
	}
	n := float64(len(v))
	h := 0.0
	for _, c := range cnt {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// pathLike: an absolute or home-relative lower-case path, not a secret.
func pathLike(v string) bool {
	if v == "" || (v[0] != '/' && v[0] != '.' && v[0] != '~') {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; isUpper(c) || strings.IndexByte("+=!@#%^*", c) >= 0 {
			return false
		}
	}
	return true
}
