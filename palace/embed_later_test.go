package palace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/palacetest"
)

// gatedEmbedder is the hash embedder, but a call with a text of more than
// gateWords words waits until open is closed or its context ends.
type gatedEmbedder struct {
	embed.Embedder
	open chan struct{}
}

const gateWords = 200

func (g gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if len(strings.Fields(t)) > gateWords {
			select {
			case <-g.open:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			break
		}
	}
	return g.Embedder.Embed(ctx, texts)
}

// longText has about n words and one sentence of its own in its middle.
func longText(n int, needle string) string {
	var b strings.Builder
	words := strings.Fields("the deploy of the build queue went through the cache and the worker logs")
	for i := 0; i < n; i++ {
		if i == n/2 {
			b.WriteString(needle + " ")
		}
		b.WriteString(words[i%len(words)])
		b.WriteByte(' ')
	}
	return b.String()
}

// TestLongTextEmbeddedLater: in a long-running process (EmbedLater) a
// text too long to embed while the caller waits is stored at once, found
// by its words at once, and gets its vectors from the background embedder;
// a short text is embedded before the write returns. If the process stops
// first, the drawer keeps no vector, and Reembed (the dreamer's index
// pass, `loci reembed`) makes them.
func TestLongTextEmbeddedLater(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	gate := gatedEmbedder{embed.NewHash(64), make(chan struct{})}
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir, Embedder: gate, EmbedLater: true})
	if err != nil {
		t.Fatal(err)
	}
	p := palacetest.MustCreate(t, reg, "p")
	needle := "The zeppelin hangar doors jammed on Thursday."
	text := longText(3000, needle) // about 120 vector passages, over inlinePassages
	if n := len(palace.VectorPassages(text)); n <= 64 {
		t.Fatalf("the long text has %d vector passages; the test needs more than the inline bound", n)
	}
	// The write returns although embedding it cannot finish yet.
	done := make(chan *palace.Drawer, 1)
	go func() {
		d, err := p.Remember(ctx, text, palace.RememberOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- d
	}()
	var long *palace.Drawer
	select {
	case long = <-done:
	case <-time.After(20 * time.Second):
		close(gate.open)
		t.Fatal("Remember waited for the long text's vectors")
	}
	if long == nil {
		t.FailNow()
	}
	got, err := p.Get(ctx, long.ID)
	if err != nil || got.Model != "" {
		t.Fatalf("the long drawer has a vector (%q) before the background embedder ran: %v", got.Model, err)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "zeppelin hangar doors jammed", Mode: palace.ModeKeyword, K: 3})
	if err != nil || len(hits) == 0 || hits[0].Drawer.ID != long.ID {
		t.Fatalf("the long drawer is not found by its words before its vectors: %v %v", hits, err)
	}
	short, err := p.Remember(ctx, "A short note about the hangar.", palace.RememberOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := p.Get(ctx, short.ID); got.Model == "" {
		t.Fatal("a short text was left to the background embedder")
	}
	// Reembed (the dreamer's index pass) leaves the long drawer to the
	// background embedder that has it in hand rather than embed it again
	// at the same time (it would wait at the gate too).
	if n := p.IndexInfo().Pending; n != 1 {
		t.Errorf("IndexInfo().Pending = %d while the long drawer waits; want 1", n)
	}
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	if n, err := p.Reembed(rctx, 0); err != nil || n != 0 {
		t.Fatalf("Reembed while the background embedder has the long drawer: %d, %v; want 0 and no error", n, err)
	}
	rcancel()

	// The process stops before the background embedder is done: the
	// drawer keeps no vector, and nothing else changes.
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	close(gate.open)
	reg2 := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: gate.Embedder})
	p2, err := reg2.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p2.Get(ctx, long.ID); err != nil || got.Model != "" || got.Content != strings.TrimSpace(text) {
		t.Fatalf("after a stop mid-embedding: model %q, %v", got.Model, err)
	}
	if n, err := p2.Reembed(ctx, 0); err != nil || n != 1 {
		t.Fatalf("Reembed made %d drawers' vectors, want the long one: %v", n, err)
	}
	got, err = p2.Get(ctx, long.ID)
	if err != nil || got.Model == "" || got.VecPassages != len(palace.VectorPassages(got.Content)) {
		t.Fatalf("after Reembed: model %q, %d passage vectors: %v", got.Model, got.VecPassages, err)
	}

	// With the process up, the background embedder makes them itself.
	reg3 := palacetest.MustOpenRegistry(t, palace.Config{DataDir: t.TempDir(), Embedder: gate.Embedder, EmbedLater: true})
	p3 := palacetest.MustCreate(t, reg3, "p")
	long3, err := p3.Remember(ctx, text, palace.RememberOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := p3.WaitEmbedded(wctx); err != nil {
		t.Fatal(err)
	}
	if n := p3.IndexInfo().Pending; n != 0 {
		t.Errorf("IndexInfo().Pending = %d once embedded; want 0", n)
	}
	got, err = p3.Get(ctx, long3.ID)
	if err != nil || got.Model == "" || got.VecPassages != len(palace.VectorPassages(got.Content)) {
		t.Fatalf("the background embedder left model %q, %d passage vectors: %v", got.Model, got.VecPassages, err)
	}
	hits, err = p3.Search(ctx, palace.SearchRequest{Query: "zeppelin hangar doors jammed", Mode: palace.ModeVector, K: 3})
	if err != nil || len(hits) == 0 || hits[0].Drawer.ID != long3.ID || hits[0].Passage == nil ||
		!strings.Contains(got.Content[hits[0].Passage.Start:hits[0].Passage.End], "zeppelin") {
		t.Fatalf("the vector search does not find the long drawer by its passage: %v %v", hits, err)
	}
}

// leftUnembedded stores a long text through a long-running palace whose
// encoder never gets to it, and closes the registry: the drawer is left
// without vectors, as by a process that stopped mid-embedding. It returns
// the drawer's id.
func leftUnembedded(t *testing.T, dir string) string {
	t.Helper()
	gate := gatedEmbedder{embed.NewHash(64), make(chan struct{})}
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir, Embedder: gate, EmbedLater: true})
	if err != nil {
		t.Fatal(err)
	}
	p := palacetest.MustCreate(t, reg, "p")
	d, err := p.Remember(context.Background(), longText(3000, "The zeppelin hangar doors jammed on Thursday."), palace.RememberOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

// TestResumeEmbedding: the next long-running process on a palace queues
// the vectors a stopped one left unmade, once; a short-lived one leaves
// them to Reembed.
func TestResumeEmbedding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	id := leftUnembedded(t, dir)

	short := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: embed.NewHash(64)})
	ps, err := short.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ps.ResumeEmbedding(ctx); err != nil || n != 0 {
		t.Fatalf("a short-lived process queued %d (%v)", n, err)
	}
	if err := short.Close(); err != nil {
		t.Fatal(err)
	}

	reg := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: embed.NewHash(64), EmbedLater: true})
	p, err := reg.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := p.ResumeEmbedding(ctx); err != nil || n != 1 {
		t.Fatalf("ResumeEmbedding queued %d, want the drawer left unembedded (%v)", n, err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := p.WaitEmbedded(wctx); err != nil {
		t.Fatal(err)
	}
	got, err := p.Get(ctx, id)
	if err != nil || got.Model == "" || got.VecPassages != len(palace.VectorPassages(got.Content)) {
		t.Fatalf("after resuming: model %q, %d passage vectors: %v", got.Model, got.VecPassages, err)
	}
	if n, _ := p.ResumeEmbedding(ctx); n != 0 {
		t.Fatalf("a second ResumeEmbedding queued %d; it looks once a process", n)
	}
}
