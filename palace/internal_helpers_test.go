package palace

import (
	"context"
	"strings"
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

// walkBack walks back from texts[last] through the texts before it (oldest
// first in texts), newest first, as the walks of turn_context.go do: each a
// drawer of the speaker its "Name: " label names.
func walkBack(texts []string, last int) func() (*Drawer, error) {
	i := last
	return func() (*Drawer, error) {
		if i == 0 {
			return nil, nil
		}
		i--
		who, _, _ := strings.Cut(texts[i], ": ")
		return &Drawer{Content: texts[i], SenderIDs: []string{who}}, nil
	}
}
