package palace

import (
	"math"
	"strings"
	"testing"
)

// Prose and chat are legible through and through, whatever punctuation,
// numbers and emoji they hold; code, paths and addresses are not, word
// by word.
func TestLegibleShare(t *testing.T) {
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
		if got := legibleShare(c.text); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("legibleShare(%q) = %.3f, want %.3f", c.text, got, c.want)
		}
	}
	// A long text is judged by its opening: prose for 16 KiB, then code.
	long := strings.Repeat("we walked the dog ", maxLegibleBytes/18+1) + strings.Repeat("x.y(z) ", 100_000)
	if got := legibleShare(long); got != 1 {
		t.Errorf("a long text of prose then code: %.3f, want 1 (its opening)", got)
	}
	if got := legibleShare(strings.Repeat("é", maxLegibleBytes)); got != 1 {
		t.Errorf("a cut inside a character: %.3f", got)
	}
}
