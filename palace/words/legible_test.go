package words

import (
	"math"
	"testing"
	"unicode/utf8"
)

// Prose and chat are legible through and through, whatever punctuation,
// numbers and emoji they hold; code, paths and addresses are not, word
// by word.
func TestLegible(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want float64
	}{
		{"Cool! Who's your favorite basketball team/player?", 1},
		{"It`s Susie! I've had her for two years now.", 1},
		{"Challenges, growth, all that jazz—it's been amazing.", 1},
		{"The e-mail said 3.5 km at 13:53 on 5/30/23, for $1,000 (or 50%) 🎉 — ok?", 1},
		{"😀 👍", 1},
		{"我们每周二部署新版本。数据库使用Postgres，缓存使用Redis", 1},
		{"数据库使用PostgreSQL，缓存使用Redis", 10.0 / 11},
		{"", 1},
		{"parseHTTPResponse", 0},
		{"see https://example.com/a?b=c", 0.5},
		{"call r.Header.Get(name) now", 2.0 / 3},
		{"snake_case and camelCase", 1.0 / 3},
		// Punctuation around a word does not count, so a signature reads
		// almost as words; a body's calls and selectors do not.
		{"func (c *Client) Do(req *Request) (*Response, error) {", 6.0 / 7},
		{"resp, err := c.transport.RoundTrip(req)\nif err != nil { return nil, fmt.Errorf(\"do: %w\", err) }", 9.0 / 11},
	} {
		legible, all := Legible(c.text)
		got := 1.0
		if all > 0 {
			got = float64(legible) / float64(all)
		}
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Legible(%q) = %d of %d, want a share of %.3f", c.text, legible, all, c.want)
		}
	}
}

// Legible never panics, counts no more legible words than words and no
// more words than runes, and counts two texts joined by a space as the
// two apart: white space ends every word.
func FuzzLegible(f *testing.F) {
	for _, s := range []string{"It's 3.5 km", "func (c *Client) Do(req", "数据库使用PostgreSQL，缓存", "a\xffb c", "e-mail—ok", "x.y(z)", ""} {
		f.Add(s, "and/or 13:53")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		la, na := Legible(a)
		lb, nb := Legible(b)
		if la < 0 || la > na || na > utf8.RuneCountInString(a) {
			t.Fatalf("Legible(%q) = %d of %d", a, la, na)
		}
		if l, n := Legible(a + " " + b); l != la+lb || n != na+nb {
			t.Fatalf("Legible(%q + %q) = %d of %d, want %d of %d", a, b, l, n, la+lb, na+nb)
		}
	})
}
