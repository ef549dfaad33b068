package dreamer_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func TestDecayHalvesTowardsTheFloor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	s := dreamer.Settings{HalfLife: 10 * 24 * time.Hour, Floor: 0.1}
	d := add(t, p, &palace.Drawer{Content: "the build uses make and go", Importance: 0.9})
	low := add(t, p, &palace.Drawer{Content: "a passing remark about the weather", Importance: 0.05})
	pin := add(t, p, &palace.Drawer{Content: "never commit secrets", Importance: 0.8, Pinned: true})

	clk.Advance(10 * 24 * time.Hour)
	rep := dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"decay"}, Settings: s})
	if got, want := get(t, p, d.ID).Importance, 0.1+(0.9-0.1)*0.5; !near(got, want) {
		t.Fatalf("after one half-life: %v, want %v", got, want)
	}
	if got := get(t, p, low.ID).Importance; got != 0.05 {
		t.Fatalf("a drawer below the floor decayed to %v", got)
	}
	if got := get(t, p, pin.ID).Importance; got != 0.8 {
		t.Fatalf("pinned drawer decayed to %v", got)
	}
	sum := passReport(t, rep, "decay").Decay
	if sum == nil || sum.Decayed != 1 || sum.Pinned != 1 {
		t.Fatalf("decay summary %+v", sum)
	}

	// The same now again changes nothing; decay never compounds.
	if pr := passReport(t, dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"decay"}, Settings: s}), "decay"); pr.Changed != 0 {
		t.Fatalf("second run at the same time changed %d", pr.Changed)
	}
	clk.Advance(10 * 24 * time.Hour)
	dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"decay"}, Settings: s})
	if got, want := get(t, p, d.ID).Importance, 0.1+(0.9-0.1)*0.25; !near(got, want) {
		t.Fatalf("after two half-lives: %v, want %v", got, want)
	}
	// Nothing is hidden by decay.
	counts, err := p.CountByStatus(ctx)
	if err != nil || counts[palace.StatusActive] != 3 || len(counts) != 1 {
		t.Fatalf("counts %v (%v)", counts, err)
	}
}

func TestDecayAccessAndEditsMoveTheBase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	s := dreamer.Settings{HalfLife: 10 * 24 * time.Hour, Floor: 0.1, AccessBoost: 0.5}
	used := add(t, p, &palace.Drawer{Content: "kubernetes namespaces for the staging cluster", Importance: 0.9})
	idle := add(t, p, &palace.Drawer{Content: "the office plant needs water on mondays", Importance: 0.9})

	clk.Advance(20 * 24 * time.Hour)
	// Recalled often just now: its clock restarts and it earns a boost.
	for i := 0; i < 10; i++ {
		if _, err := p.Search(ctx, palace.SearchRequest{Query: "kubernetes staging namespaces", K: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.FlushAccess(ctx); err != nil {
		t.Fatal(err)
	}
	dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"decay"}, Settings: s})
	if got := get(t, p, used.ID).Importance; got != 0.9 {
		t.Fatalf("a drawer used just now decayed to %v", got)
	}
	if got, want := get(t, p, idle.ID).Importance, 0.1+0.8*0.25; !near(got, want) {
		t.Fatalf("idle drawer: %v, want %v", got, want)
	}

	// Someone sets the importance: that is the new base.
	if _, err := p.Update(ctx, idle.ID, func(d *palace.Drawer) error { d.Importance = 0.6; return nil }); err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * 24 * time.Hour)
	dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"decay"}, Settings: s})
	// Age counts from creation, 30 days: 0.1 + 0.5 * 2^-3.
	if got, want := get(t, p, idle.ID).Importance, 0.1+0.5*0.125; !near(got, want) {
		t.Fatalf("after an edit: %v, want %v", got, want)
	}
}

func TestDecayUndoRestoresImportance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	s := dreamer.Settings{HalfLife: 24 * time.Hour}
	d := add(t, p, &palace.Drawer{Content: "an old memory about the first prototype", Importance: 0.7})
	clk.Advance(72 * time.Hour)
	rep := dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"decay"}, Settings: s})
	if get(t, p, d.ID).Importance >= 0.7 {
		t.Fatal("did not decay")
	}
	if _, err := dreamer.Undo(ctx, p, rep.RunID, dreamer.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := get(t, p, d.ID).Importance; got != 0.7 {
		t.Fatalf("after undo: %v, want 0.7", got)
	}
	// The base survived the undo: decaying again gives the same value.
	clk.Advance(time.Millisecond)
	dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"decay"}, Settings: s})
	if got, want := get(t, p, d.ID).Importance, 0.1+0.6*0.125; !near(got, want) {
		t.Fatalf("after undo and a new pass: %v, want %v", got, want)
	}
}
