package palace_test

import (
	"context"
	"os"
	"testing"

	"github.com/loci-mem/loci/palace"
)

func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// firstIn is the drawer a search of mode for query finds first, or nil
// when it finds none.
func firstIn(t *testing.T, p *palace.Palace, mode palace.Mode, query string) *palace.Drawer {
	t.Helper()
	hits, err := p.Search(context.Background(), palace.SearchRequest{Query: query, Mode: mode, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		return nil
	}
	return hits[0].Drawer
}

// wantFirst fails t unless a keyword search for query finds want first.
func wantFirst(t *testing.T, p *palace.Palace, query string, want *palace.Drawer) {
	t.Helper()
	wantFirstIn(t, p, palace.ModeKeyword, query, want)
}

// wantFirstIn fails t unless a search of mode for query finds want first.
func wantFirstIn(t *testing.T, p *palace.Palace, mode palace.Mode, query string, want *palace.Drawer) {
	t.Helper()
	got := firstIn(t, p, mode, query)
	if got == nil {
		t.Errorf("%s %q finds nothing, want %q", mode, query, want.Content)
	} else if got.ID != want.ID {
		t.Errorf("%s %q finds %q first, want %q", mode, query, got.Content, want.Content)
	}
}

// timesFound counts the hits that are drawer d.
func timesFound(hits []palace.Hit, d *palace.Drawer) int {
	n := 0
	for _, h := range hits {
		if h.Drawer.ID == d.ID {
			n++
		}
	}
	return n
}
