package palace_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// A drawer whose vector changes (edited text, forgotten and restored) must
// come back once, under its new vector only — in the process that made the
// change and in one that loads an older snapshot of the index.
func TestVectorKeysFollowDrawerChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *palace.Palace { return openShared(t, dir, "keys") }
	p := open()
	var batch []*palace.Drawer
	for i := 0; i < 1200; i++ { // enough for a snapshot to be written
		batch = append(batch, &palace.Drawer{Content: fmt.Sprintf("filler note %d about nothing in particular", i)})
	}
	target := &palace.Drawer{Content: "apples and oranges grow in the orchard"}
	batch = append(batch, target)
	if err := p.AddMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if _, err := p.RebuildIndex(ctx); err != nil { // snapshot holds the apples vector
		t.Fatal(err)
	}
	if err := p.WarmIndex(ctx); err != nil {
		t.Fatal(err)
	}
	count := func(p *palace.Palace, query string) (n int, rank int) {
		t.Helper()
		hits, err := p.Search(ctx, palace.SearchRequest{Query: query, K: 20, Mode: palace.ModeVector, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range hits {
			if h.Drawer.ID == target.ID {
				n++
				rank = i + 1
			}
		}
		return n, rank
	}
	if n, rank := count(p, "apples oranges orchard"); n != 1 || rank != 1 {
		t.Fatalf("before the edit: target found %d times, rank %d", n, rank)
	}
	if _, err := p.Update(ctx, target.ID, func(d *palace.Drawer) error {
		d.Content = "bananas wear pyjamas on tuesdays"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []*palace.Palace{p, open()} { // this process, and a fresh one on the old snapshot
		if n, _ := count(q, "apples oranges orchard"); n != 0 {
			t.Fatalf("the edited drawer still answers for its old text (%d times)", n)
		}
		if n, rank := count(q, "bananas pyjamas tuesdays"); n != 1 || rank != 1 {
			t.Fatalf("after the edit: target found %d times, rank %d", n, rank)
		}
	}
	if _, _, err := p.Forget(ctx, target.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := count(p, "bananas pyjamas tuesdays"); n != 0 {
		t.Fatal("a forgotten drawer was recalled")
	}
	if _, err := p.Update(ctx, target.ID, func(d *palace.Drawer) error {
		d.Status = palace.StatusActive
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []*palace.Palace{p, open()} {
		if n, rank := count(q, "bananas pyjamas tuesdays"); n != 1 || rank != 1 {
			t.Fatalf("after restoring: target found %d times, rank %d", n, rank)
		}
	}
}
