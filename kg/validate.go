package kg

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on stored text, in bytes after trimming.
const (
	MaxTermBytes       = 1024 // subject, predicate, object
	MaxProvenanceBytes = 4096
)

// minStorable and maxStorable bound the times kg can store in fixed width.
var (
	minStorable = time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC) // the zero time means "unset"
	maxStorable = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// validTerm validates and normalises a subject, predicate or object: trimmed of
// surrounding white space, non-empty, valid UTF-8 without NUL bytes, at most
// MaxTermBytes.
func validTerm(field, v string) (string, error) {
	if err := checkText(field, v); err != nil {
		return "", err
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", invalidf(field, "must not be empty")
	}
	if len(v) > MaxTermBytes {
		return "", invalidf(field, "must be at most %d bytes, got %d", MaxTermBytes, len(v))
	}
	return v, nil
}

// provenance validates and normalises a provenance; "" (after trimming)
// means none.
func provenance(v string) (string, error) {
	if err := checkText("provenance", v); err != nil {
		return "", err
	}
	v = strings.TrimSpace(v)
	if len(v) > MaxProvenanceBytes {
		return "", invalidf("provenance", "must be at most %d bytes, got %d", MaxProvenanceBytes, len(v))
	}
	return v, nil
}

func checkText(field, v string) error {
	if !utf8.ValidString(v) {
		return invalidf(field, "must be valid UTF-8")
	}
	if strings.IndexByte(v, 0) >= 0 {
		return invalidf(field, "must not contain NUL bytes")
	}
	return nil
}

// confidence validates an optional confidence, defaulting to 1.
func confidence(c *float64) (float64, error) {
	if c == nil {
		return 1, nil
	}
	v := *c
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, invalidf("confidence", "must be a finite number, got %v", v)
	}
	if v < 0 || v > 1 {
		return 0, invalidf("confidence", "must be in [0,1], got %v", v)
	}
	if v == 0 {
		v = 0 // no negative zero
	}
	return v, nil
}

// checkTime rejects times kg cannot store (outside years 1–9999).
func checkTime(field string, t time.Time) error {
	if t.Before(minStorable) || t.After(maxStorable) {
		return invalidf(field, "must be between year 1 and 9999, got %s", t.UTC().Format(time.RFC3339Nano))
	}
	return nil
}
