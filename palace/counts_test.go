package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// Counts are kept between calls, by the drawer seq: a write by another
// process (here another registry on the same files), a forget and a
// caller changing what it was given all show in the next count.
func TestCountsFollowEveryChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := palace.Config{DataDir: t.TempDir()}
	a := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, cfg), "c")
	b, err := palacetest.MustOpenRegistry(t, cfg).Open(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	active := func(p *palace.Palace) int64 {
		t.Helper()
		c, err := p.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c.ByStatus[palace.StatusActive]
	}
	x := palacetest.MustAdd(t, a, &palace.Drawer{Content: "the first note"})
	palacetest.MustAdd(t, a, &palace.Drawer{Content: "the second note"})
	if n := active(a); n != 2 {
		t.Fatalf("%d active, want 2", n)
	}
	palacetest.MustAdd(t, b, &palace.Drawer{Content: "a note from another process"})
	if n := active(a); n != 3 {
		t.Fatalf("after another process's write: %d active, want 3", n)
	}
	if n := active(b); n != 3 {
		t.Fatalf("the other process counts %d active, want 3", n)
	}
	if _, _, err := a.Forget(ctx, x.ID); err != nil {
		t.Fatal(err)
	}
	if n := active(b); n != 2 {
		t.Fatalf("after a forget: %d active, want 2", n)
	}
	c, err := a.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.ByStatus[palace.StatusActive] = 99
	if n := active(a); n != 2 {
		t.Fatalf("a caller's change to its counts leaked into the next call: %d", n)
	}
	in, err := a.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if in.DrawerCount != 2 {
		t.Fatalf("palace info counts %d drawers, want 2", in.DrawerCount)
	}
}
