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
		wantFirst(t, p, q.query, q.want)
	}
	d, err := p.Get(ctx, limiter.ID)
	if err != nil || d.Content != limiter.Content {
		t.Errorf("stored text %q (%v)", d.Content, err)
	}
}

// A vector reads an identifier's words too: a vector search (the
// sentence encoder's vocabularies hold "rate" and "limiter", not
// "RateLimiter") finds the code by the words a person asks in, and an
// identifier in a query is read by its words as well.
func TestIdentifiersAreReadByTheirWordsInVectors(t *testing.T) {
	t.Parallel()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	limiter := palacetest.MustAdd(t, p, &palace.Drawer{Content: "func (l *RateLimiter) Allow() bool { return l.tokens.take(1) }"})
	attempts := palacetest.MustAdd(t, p, &palace.Drawer{Content: "cfg.maxUploadAttempts = 3"})
	drain := palacetest.MustAdd(t, p, &palace.Drawer{Content: "if x.closeIdleConnections() { pool.drainQueue() }"})
	budget := palacetest.MustAdd(t, p, &palace.Drawer{Content: "The retry budget of the upload client is three attempts"})
	for _, text := range []string{
		"resp, err := parseHTTPResponse(conn)",
		"func (c *Client) Do(req *Request) error",
		"func (s *Server) Shutdown(ctx context.Context) error",
		"var defaultCookieJar = newMemoryJar()",
		"func readCertificateChain(path string) ([]byte, error)",
		"We went hiking on Saturday",
		"The dog ate my homework again",
	} {
		palacetest.MustAdd(t, p, &palace.Drawer{Content: text})
	}
	for _, q := range []struct {
		query string
		want  *palace.Drawer
	}{
		{"the rate limiter", limiter},
		{"how many times do we retry an upload", attempts},
		{"drain the queue", drain},
		{"uploadClient retryBudget", budget},
	} {
		wantFirstIn(t, p, palace.ModeVector, q.query, q.want)
	}
}
