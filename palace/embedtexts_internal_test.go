package palace

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
)

// countingEmbedder is the hash embedder, counting the texts it is given.
type countingEmbedder struct {
	embed.Embedder
	mu    sync.Mutex
	given map[string]int
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	for _, t := range texts {
		c.given[t]++
	}
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, texts)
}

// A conversation recorded without a user id stores its episode once for
// each participant, in the same words: the encoder reads it once, and each
// drawer still owns its vectors.
func TestATextGivenTwiceIsEmbeddedOnce(t *testing.T) {
	counter := &countingEmbedder{Embedder: embed.NewHash(64)}
	p := newTestPalaceWith(t, counter)
	var long strings.Builder
	for i := range 400 { // long enough to be embedded as passages too
		long.WriteString([]string{"the ", "harbour ", "pilot ", "tide ", "chart "}[i%5])
	}
	ds := []*Drawer{{Content: long.String()}, {Content: "a short note"}, {Content: long.String()}}
	counter.mu.Lock()
	counter.given = map[string]int{}
	counter.mu.Unlock()
	vs := p.Embed(context.Background(), ds)

	if len(vs[0].Passages) < 2 {
		t.Fatalf("the long text has %d vector passages, want several", len(vs[0].Passages))
	}
	for text, n := range counter.given {
		if n != 1 {
			t.Errorf("embedded %d times: %.40q", n, text)
		}
	}
	if len(vs[2].Passages) != len(vs[0].Passages) || !equalVector(vs[0].Whole, vs[2].Whole) {
		t.Fatal("the same text got different vectors")
	}
	for j := range vs[0].Passages {
		if !equalVector(vs[0].Passages[j], vs[2].Passages[j]) {
			t.Fatalf("passage %d differs between the two copies", j)
		}
	}
	vs[2].Whole[0] += 1
	vs[2].Passages[0][0] += 1
	if vs[0].Whole[0] == vs[2].Whole[0] || vs[0].Passages[0][0] == vs[2].Passages[0][0] {
		t.Error("the two drawers share one vector's memory")
	}
}

func equalVector(a, b []float32) bool {
	if len(a) != len(b) || a == nil {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
