package palace

import (
	"encoding/json"
	"strings"

	"github.com/loci-mem/loci/palace/redact"
)

// Everything that enters a palace passes through Scrub before it is
// stored: spans the user marked <private>…</private> are removed, then
// secrets are redacted (package redact). Drawers (every field), session
// messages, facts, knowledge-graph triples, descriptions and imports all
// go through it, so no face can store what it missed.

const (
	privateOpen  = "<private>"
	privateClose = "</private>"
)

// Scrub removes private spans and redacts secrets in s, and returns how
// many spans and secrets it replaced.
func Scrub(s string) (string, int) {
	s, n := StripPrivate(s)
	s, k := redact.String(s)
	return s, n + k
}

// StripPrivate removes every <private>…</private> span of s (tags matched
// case-insensitively; a span may cross lines) and returns how many it
// removed. An opening tag without its closing tag hides everything after
// it: text someone meant to keep private is never stored because a tag
// was mistyped. A removed span leaves one space, so the words around it
// stay apart.
func StripPrivate(s string) (string, int) {
	lower := strings.ToLower(s)
	if !strings.Contains(lower, privateOpen) {
		return s, 0
	}
	var b strings.Builder
	n, i := 0, 0
	for {
		open := strings.Index(lower[i:], privateOpen)
		if open < 0 {
			b.WriteString(s[i:])
			break
		}
		open += i
		b.WriteString(s[i:open])
		n++
		end := strings.Index(lower[open+len(privateOpen):], privateClose)
		if end < 0 {
			break
		}
		i = open + len(privateOpen) + end + len(privateClose)
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String()), n
}

// ScrubJSON scrubs a JSON document: private spans removed from every
// string (keys included), then secrets redacted by redact.JSON, which also
// knows secret-bearing keys ("api_key": …). It returns the document and
// whether it changed. Invalid JSON is scrubbed as text.
func ScrubJSON(raw []byte) ([]byte, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		s, n := Scrub(string(raw))
		return []byte(s), n > 0
	}
	in := raw
	if v, n := stripValue(v); n > 0 {
		if b, err := json.Marshal(v); err == nil {
			in = b
		}
	}
	out := redact.JSON(in)
	return out, string(out) != string(raw)
}

// stripValue removes private spans from every string in a decoded JSON
// value.
func stripValue(v any) (any, int) {
	switch x := v.(type) {
	case string:
		return StripPrivate(x)
	case []any:
		n := 0
		for i, e := range x {
			var k int
			x[i], k = stripValue(e)
			n += k
		}
		return x, n
	case map[string]any:
		n := 0
		out := make(map[string]any, len(x))
		for key, e := range x {
			clean, k := StripPrivate(key)
			var m int
			out[clean], m = stripValue(e)
			n += k + m
		}
		return out, n
	}
	return v, 0
}
