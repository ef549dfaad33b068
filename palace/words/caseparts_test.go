package words

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCaseParts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"RateLimiter", []string{"Rate", "Limiter"}},
		{"rateLimiter", []string{"rate", "Limiter"}},
		{"parseHTTPResponse", []string{"parse", "HTTP", "Response"}},
		{"HTTPServer", []string{"HTTP", "Server"}},
		{"base64Encode", []string{"base64", "Encode"}},
		{"ServeFileFS", []string{"Serve", "File", "FS"}},
		{"YouTube", []string{"You", "Tube"}},
		{"getURLs", []string{"get", "URLs"}},
		{"McDonald", []string{"Mc", "Donald"}},
		{"naïveBayes", []string{"naïve", "Bayes"}},
		// Not identifiers of two parts or more: nil.
		{"Caroline", nil},
		{"NASA", nil},
		{"URLs", nil},
		{"APIs", nil},
		{"iPhone", nil},
		{"lowercase", nil},
		{"covid19", nil},
		{"", nil},
	} {
		if got := CaseParts(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("CaseParts(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// CaseParts never panics, and what it returns is two parts or more, each
// of two runes or more, standing in w in order without overlapping.
func FuzzCaseParts(f *testing.F) {
	for _, s := range []string{"RateLimiter", "parseHTTPResponse", "getURLs", "base64Encode", "naïveBayes", "ÀÉc", "a\xffB", "ABc", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		parts := CaseParts(w)
		if len(parts) == 1 {
			t.Fatalf("CaseParts(%q) = %q: one part", w, parts)
		}
		at := 0
		for _, p := range parts {
			if utf8.RuneCountInString(p) < 2 {
				t.Fatalf("CaseParts(%q) = %q: part %q is shorter than two runes", w, parts, p)
			}
			i := strings.Index(w[at:], p)
			if i < 0 {
				t.Fatalf("CaseParts(%q) = %q: part %q is not in %q", w, parts, p, w[at:])
			}
			at += i + len(p)
		}
	})
}
