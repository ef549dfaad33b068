package dreamer_test

import (
	"context"
	"testing"
	"time"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

func fact(tb testing.TB, p *palace.Palace, text, engram string, confirmed time.Time) *palace.Drawer {
	tb.Helper()
	return add(tb, p, &palace.Drawer{Kind: palace.KindFact, Content: text, Meta: map[string]any{
		palace.MetaEngramID: engram, facts.MetaFactKind: "tooling",
		facts.MetaConfirmedAt: confirmed.UTC().Format(time.RFC3339)}})
}

func TestStaleMarksUnconfirmedFacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	horizon := 30 * 24 * time.Hour
	old := fact(t, p, "The team uses pnpm for the web client", "mem-0001", clk.Now().Add(-40*24*time.Hour))
	fresh := fact(t, p, "The API server is written in Go", "mem-0002", clk.Now().Add(-5*24*time.Hour))
	oldNote := add(t, p, &palace.Drawer{Content: "an ordinary note that never goes stale",
		Meta: map[string]any{facts.MetaConfirmedAt: clk.Now().Add(-400 * 24 * time.Hour).Format(time.RFC3339)}})

	rep := dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"stale"}, Settings: dreamer.Settings{FactHorizon: horizon}})
	pr := passReport(t, rep, "stale")
	if len(pr.Stale) != 1 || pr.Stale[0].DrawerID != old.ID || pr.Stale[0].EngramID != "mem-0001" {
		t.Fatalf("stale report %+v", pr.Stale)
	}
	if d := get(t, p, old.ID); d.Status != palace.StatusStale || d.Content != old.Content {
		t.Fatalf("old fact: %s %q", d.Status, d.Content)
	}
	for _, id := range []string{fresh.ID, oldNote.ID} {
		if d := get(t, p, id); d.Status != palace.StatusActive {
			t.Fatalf("%s became %s", id, d.Status)
		}
	}
	if contains(recallIDs(t, p, "pnpm web client", 10), old.ID) {
		t.Fatal("recall returned a stale fact")
	}
	// Kept in history: listable with its status.
	n, err := p.Count(ctx, palace.Filter{Statuses: []string{palace.StatusStale}})
	if err != nil || n != 1 {
		t.Fatalf("stale count %d (%v)", n, err)
	}
	// Time passes: the fresh one goes stale too, at its own horizon.
	clk.Advance(26 * 24 * time.Hour)
	pr = passReport(t, dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"stale"},
		Settings: dreamer.Settings{FactHorizon: horizon}}), "stale")
	if len(pr.Stale) != 1 || pr.Stale[0].DrawerID != fresh.ID {
		t.Fatalf("second pass %+v", pr.Stale)
	}
	// Undo of the first run brings the fact back.
	if _, err := dreamer.Undo(ctx, p, rep.RunID, dreamer.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := get(t, p, old.ID); d.Status != palace.StatusActive {
		t.Fatalf("after undo: %s", d.Status)
	}
}

func TestStaleUsesThePalaceHorizon(t *testing.T) {
	t.Setenv("LOCI_FACT_HORIZON", "off")
	clk := newClock()
	p := openPalace(t, clk)
	f := fact(t, p, "The team uses pnpm for the web client", "mem-0001", clk.Now().Add(-4000*24*time.Hour))
	pr := passReport(t, dream(t, p, clk, "stale"), "stale")
	if pr.Status != dreamer.PassSkipped || get(t, p, f.ID).Status != palace.StatusActive {
		t.Fatalf("with the horizon off: %+v", pr)
	}
	t.Setenv("LOCI_FACT_HORIZON", "10d")
	pr = passReport(t, dream(t, p, clk, "stale"), "stale")
	if len(pr.Stale) != 1 || get(t, p, f.ID).Status != palace.StatusStale {
		t.Fatalf("with a 10 day horizon: %+v", pr)
	}
}
