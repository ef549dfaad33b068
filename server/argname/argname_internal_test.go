package argname

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"query", "query", 2, 0},
		{"querry", "query", 2, 1},
		{"qeury", "query", 2, 2},
		{"tag", "room", 2, 3},
		{"", "ab", 2, 2},
		{"abcdef", "a", 2, 3},
	} {
		if got := editDistance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}
