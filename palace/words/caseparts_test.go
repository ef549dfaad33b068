package words

import (
	"slices"
	"testing"
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
