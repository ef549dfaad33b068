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
	reg, err := OpenRegistry(Config{DataDir: t.TempDir(), Embedder: embed.NewHash(256)})
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
