package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// An identifier written in camel case is found by its words ("the rate
// limiter" finds RateLimiter), and such an identifier in a query asks for
// its words too. The text is unchanged.
func TestIdentifiersAreFoundByTheirWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	limiter := palacetest.MustAdd(t, p, &palace.Drawer{Content: "func (l *RateLimiter) Allow() bool { return l.tokens.take(1) }"})
	parse := palacetest.MustAdd(t, p, &palace.Drawer{Content: "resp, err := parseHTTPResponse(conn)"})
	retries := palacetest.MustAdd(t, p, &palace.Drawer{Content: "The retry budget of the upload client is three attempts"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "Rates went up again this quarter"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "func (c *Client) Do(req *Request) error"})
	for _, q := range []struct {
		query string
		want  *palace.Drawer
	}{
		{"how does the rate limiter allow a request", limiter},
		{"where do we parse the HTTP response", parse},
		{"uploadClient retryBudget", retries},
	} {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: q.query, Mode: palace.ModeKeyword, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Drawer.ID != q.want.ID {
			first := ""
			if len(hits) > 0 {
				first = hits[0].Drawer.Content
			}
			t.Errorf("%q finds %q first, want %q", q.query, first, q.want.Content)
		}
	}
	d, err := p.Get(ctx, limiter.ID)
	if err != nil || d.Content != limiter.Content {
		t.Errorf("stored text %q (%v)", d.Content, err)
	}
}
