package words

import (
	"math"
	"testing"
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
