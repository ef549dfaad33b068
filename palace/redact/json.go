package redact

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON returns the JSON document v with the secrets inside its strings
// (keys and values) redacted; the result stays valid JSON when v is.
//
// It works in two passes. The first scans the raw document like Bytes: every
// rule stops at '"' and '\', and masks contain neither quotes, backslashes nor
// control bytes, so replacements stay inside one string literal and never
// split an escape sequence. This pass also sees key/value context such as
// {"password": "..."}. The second pass decodes the string literals holding
// escapes (which can hide a secret from the raw scan, e.g. Go's \u0026 for
// '&' in a signed URL, or \t after "Bearer"), redacts the decoded text and
// re-encodes the literal, escaping only what JSON requires, when something
// was found.
//
// Passes repeat until nothing changes, so JSON(JSON(v)) == JSON(v). When
// nothing is redacted v itself is returned, without allocating (the decoding
// buffer is pooled). If a valid v ever became invalid the result is
// recomputed string by string, dropping the key/value context.
func (r *Redactor) JSON(v []byte) []byte {
	out, changed := v, false
	for pass := 0; pass < maxPasses; pass++ {
		next, n := r.Bytes(out) // already a fixpoint of the raw scan
		k := 0
		if bytes.IndexByte(next, '\\') >= 0 {
			next, k = r.jsonStrings(next, false)
		}
		if n+k > 0 {
			out, changed = next, true
		}
		if k == 0 {
			break
		}
	}
	if changed && !json.Valid(out) && json.Valid(v) {
		out, _ = r.jsonStrings(v, true)
	}
	return out
}

// jsonStrings redacts the decoded text of the string literals of doc: every
// literal when all is set, otherwise only those with escapes. doc is
// returned as is when nothing changes. It also returns the number of
// literals rewritten.
func (r *Redactor) jsonStrings(doc []byte, all bool) ([]byte, int) {
	var out []byte
	n := 0
	scratch := scratchPool.Get().(*[]byte)
	defer scratchPool.Put(scratch)
	last := 0
	for i := 0; i < len(doc); {
		q := bytes.IndexByte(doc[i:], '"')
		if q < 0 {
			break
		}
		st := i + q
		j, special := st+1, all
		for j < len(doc) && doc[j] != '"' {
			if doc[j] == '\\' {
				special = true
				j += 2
				continue
			}
			j++
		}
		if j >= len(doc) {
			break
		}
		i = j + 1
		if !special {
			continue
		}
		dec, ok := unquote((*scratch)[:0], doc[st+1:j])
		if cap(dec) <= 1<<16 {
			*scratch = dec
		}
		if !ok {
			continue
		}
		var buf [8]span
		sp := r.spans(bytesView(dec), buf[:0])
		if len(sp) == 0 {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(doc)+32)
		}
		out = append(out, doc[last:st]...)
		red, _ := r.Bytes(apply(make([]byte, 0, outLen(len(dec), sp)), dec, sp))
		out = quote(out, red)
		last = j + 1
		n++
	}
	if out == nil {
		return doc, 0
	}
	return append(out, doc[last:]...), n
}

var scratchPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// unquote appends the decoded body of a JSON string literal (quotes
// excluded) to dst. It reports false on a malformed escape.
func unquote(dst, lit []byte) ([]byte, bool) {
	for i := 0; i < len(lit); {
		c := lit[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		if i+1 >= len(lit) {
			return dst, false
		}
		switch e := lit[i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r1, ok := hex4(lit[i+2:])
			if !ok {
				return dst, false
			}
			i += 6
			if utf16.IsSurrogate(r1) {
				r2, ok := rune(0), false
				if i+1 < len(lit) && lit[i] == '\\' && lit[i+1] == 'u' {
					r2, ok = hex4(lit[i+2:])
				}
				if d := utf16.DecodeRune(r1, r2); ok && d != utf8.RuneError {
					r1 = d
					i += 6
				} else {
					r1 = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r1)
			continue
		default:
			return dst, false
		}
		i += 2
	}
	return dst, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// quote appends s as a JSON string literal. Only what JSON requires is
// escaped, plus U+2028 and U+2029; invalid UTF-8 is copied as it was.
func quote(dst, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
