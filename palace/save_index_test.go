package palace_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/palacetest"
)

// SaveIndex writes the vector snapshot once enough changed since the last
// one; SaveIndexNow (what `loci palace warm` does after warming) writes it
// whenever anything did, so that the next short-lived process loads what
// this one caught up instead of replaying it.
func TestSaveIndexNowSavesWhatSaveIndexWaitsFor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := palacetest.MustOpenRegistry(t, palace.Config{Embedder: embed.NewHash(64)})
	p := palacetest.MustCreate(t, reg, "p")
	add := func(from, n int) {
		t.Helper()
		ds := make([]*palace.Drawer, n)
		for i := range ds {
			ds[i] = &palace.Drawer{Content: fmt.Sprintf("note %d about the billing service and its deploy", from+i)}
		}
		if err := p.AddMany(ctx, ds); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Search(ctx, palace.SearchRequest{Query: "billing deploy", NoAccess: true}); err != nil {
			t.Fatal(err)
		}
	}
	saved := func() uint64 {
		t.Helper()
		_, meta, err := index.LoadFlatFile(filepath.Join(p.Dir(), "vectors.idx"), index.FlatConfig{Int8: true})
		if err != nil {
			t.Fatal(err)
		}
		return meta.Seq
	}
	add(0, 1100)
	if err := p.SaveIndex(ctx); err != nil {
		t.Fatal(err)
	}
	first := saved()
	if first == 0 {
		t.Fatal("a palace of 1,100 drawers saved no snapshot")
	}
	add(1100, 10)
	if err := p.SaveIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := saved(); got != first {
		t.Fatalf("SaveIndex after 10 changes wrote the snapshot at seq %d (was %d); want it to wait", got, first)
	}
	if err := p.SaveIndexNow(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := saved(), uint64(p.IndexInfo().CaughtUp); got != want || got <= first {
		t.Fatalf("SaveIndexNow wrote seq %d, want the index's %d (was %d)", got, want, first)
	}
}
