package palace_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A palace records its embedder. Opened by a process that embeds with
// another model, its vector side refuses with an error naming `loci
// reembed` (keyword search still answers); after Reembed it ranks by
// vectors again and records the new embedder. A palace of an earlier
// release, with no record, is judged by its vectors.
func TestEmbedderMismatchNamesReembed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	old := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: embed.NewHash(64)})
	p := palacetest.MustCreate(t, old, "p")
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "the gateway validates JWT tokens with RS256"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "deploys run on fridays after the smoke tests"})
	if got, _ := p.Meta(ctx, "embedder"); got != embed.NewHash(64).ID()+" 64" {
		t.Fatalf("recorded embedder %q", got)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	reg := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: embed.NewHash(128)})
	q, err := reg.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []palace.Mode{palace.ModeHybrid, palace.ModeVector} {
		_, err := q.Search(ctx, palace.SearchRequest{Query: "JWT tokens", Mode: mode})
		if palace.ErrorCode(err) != palace.CodeConflict || !strings.Contains(err.Error(), "loci reembed --palace p") {
			t.Errorf("%s search with another embedder: %v; want a conflict naming loci reembed", mode, err)
		}
	}
	if hits, err := q.Search(ctx, palace.SearchRequest{Query: "JWT tokens", Mode: palace.ModeKeyword}); err != nil || len(hits) == 0 {
		t.Errorf("keyword search: %v, %d hits", err, len(hits))
	}
	if n, err := q.Reembed(ctx, 0); err != nil || n != 2 {
		t.Fatalf("reembed: %d, %v", n, err)
	}
	hits, err := q.Search(ctx, palace.SearchRequest{Query: "JWT tokens", Mode: palace.ModeVector})
	if err != nil || len(hits) == 0 {
		t.Fatalf("vector search after reembed: %v, %d hits", err, len(hits))
	}
	if got, _ := q.Meta(ctx, "embedder"); got != embed.NewHash(128).ID()+" 128" {
		t.Errorf("recorded embedder after reembed %q", got)
	}

	// No record (a palace of an earlier release): judged by its vectors.
	if err := q.Write(ctx, func(tx *palace.Tx) error { return tx.Store().Meta().Set(ctx, "embedder", "") }); err != nil {
		t.Fatal(err)
	}
	third := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: embed.NewHash(128)})
	r, err := third.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Search(ctx, palace.SearchRequest{Query: "JWT tokens"}); err != nil {
		t.Errorf("vectors all of this embedder, no record: %v", err)
	}
	if got, _ := r.Meta(ctx, "embedder"); got != embed.NewHash(128).ID()+" 128" {
		t.Errorf("the record was not filled in: %q", got)
	}
}
