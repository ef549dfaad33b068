package palace

import (
	"strings"
	"testing"
)

// lastBytes keeps a text's end within the budget, on a character
// boundary and, where a word starts close by, at a word's start.
func TestLastBytes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short enough", 20, "short enough"},
		{"short enough", 12, "short enough"},
		{"the old coat first, then prime", 12, "…then prime"},
		{"naïveté", 5, "…veté"},                                      // "ï" is two bytes: the cut moves past it
		{strings.Repeat("x", 50), 10, "…" + strings.Repeat("x", 10)}, // no space: cut at the budget
		{"abc", 0, "…"},
	} {
		got := lastBytes(c.s, c.n)
		if got != c.want {
			t.Errorf("lastBytes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
		if body := strings.TrimPrefix(got, "…"); len(body) > max(c.n, 0) && got != c.s {
			t.Errorf("lastBytes(%q, %d) kept %d bytes", c.s, c.n, len(body))
		}
	}
}
