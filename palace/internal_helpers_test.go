package palace

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
)

// newTestPalace opens a palace in a fresh registry (the hash embedder, so
// no model loads), closed when the test ends.
func newTestPalace(t *testing.T) *Palace {
	t.Helper()
	return newTestPalaceWith(t, embed.NewHash(256))
}

// newTestPalaceWith is newTestPalace with the embedder emb.
func newTestPalaceWith(t *testing.T, emb embed.Embedder) *Palace {
	t.Helper()
	reg, err := OpenRegistry(Config{DataDir: t.TempDir(), Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	p, err := reg.Create(context.Background(), "p", "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
