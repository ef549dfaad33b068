package dreamer_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/facts"
)

// The property the dreamer lives by: after any sequence of writes,
// forgets, review-queue decisions, passes and undos, every drawer ever
// acknowledged is still readable by id with its text intact, resolves to a
// live drawer through its superseding links, and recall never returns a
// superseded or stale memory.

var propTexts = []string{
	"The deploy script lives in tools/deploy.sh and needs Go 1.22 on the build machine",
	"The deploy script lives in tools/deploy.sh, and it needs Go 1.22 on the build machine!",
	"the deploy script lives in tools/deploy.sh and needs go 1.22 on the build machine",
	"Postgres for staging listens on port 5432 behind pgbouncer",
	"Postgres for staging listens on port 5433 behind pgbouncer",
	"Remember that the VPN config lives in the shared drive under ops/vpn",
	"Remember that the VPN config lives in the shared drive under ops/vpn.",
	"The user prefers dark mode in every editor and terminal",
	"The user prefers light mode in every editor and terminal",
	"Lunch on Fridays is at the Thai place around the corner",
	"Caroline went to the LGBTQ support group meeting on Monday evening",
	"Caroline went to the LGBTQ support group meeting on Monday evening!",
}

var propQueries = []string{"deploy script build machine", "postgres staging port", "VPN config shared drive",
	"dark mode editor", "lunch Fridays", "support group Caroline"}

func TestPropertyNothingAcknowledgedIsLost(t *testing.T) {
	seeds := []int64{1, 2, 3, 4, 5, 6}
	if testing.Short() {
		seeds = seeds[:2]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { propertyRun(t, seed, 70) })
	}
}

func propertyRun(t *testing.T, seed int64, steps int) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed))
	clk := newClock()
	p := openPalace(t, clk)
	settings := dreamer.Settings{FactHorizon: 20 * 24 * time.Hour, HalfLife: 10 * 24 * time.Hour}
	written := map[string]string{} // id -> text as acknowledged
	var ids []string
	var runs []string
	passNames := []string{"stale", "dedup", "decay", "closets", "skills", "kg", "index"}

	for step := 0; step < steps; step++ {
		op := r.Intn(10)
		switch {
		case op < 5: // write
			text := propTexts[r.Intn(len(propTexts))]
			d := &palace.Drawer{Content: text, Room: []string{"General", "Backend"}[r.Intn(2)], Pinned: r.Intn(10) == 0}
			if r.Intn(3) == 0 {
				d.Kind = palace.KindFact
				d.Meta = map[string]any{facts.MetaFactKind: "tooling",
					facts.MetaConfirmedAt: clk.Now().Add(-time.Duration(r.Intn(40)) * 24 * time.Hour).Format(time.RFC3339)}
			}
			add(t, p, d)
			written[d.ID] = d.Content
			ids = append(ids, d.ID)
		case op == 5 && len(ids) > 0: // forget
			id := ids[r.Intn(len(ids))]
			if d := get(t, p, id); d.Status != palace.StatusDeleted {
				if _, _, err := p.Forget(ctx, id); err != nil {
					t.Fatal(err)
				}
			}
		case op == 6 && len(ids) > 0: // the review queue brings a superseded or stale drawer back
			id := ids[r.Intn(len(ids))]
			if d := get(t, p, id); d.Status == palace.StatusSuperseded || d.Status == palace.StatusStale {
				if _, err := p.SetStatus(ctx, id, palace.StatusActive, ""); err != nil {
					t.Fatal(err)
				}
			}
		case op == 7 && len(runs) > 0: // undo a run
			id := runs[r.Intn(len(runs))]
			if _, err := dreamer.Undo(ctx, p, id, dreamer.RunOptions{}); err != nil && !isConflict(err) {
				t.Fatal(err)
			}
		default: // time passes, a dream runs
			clk.Advance(time.Duration(r.Intn(15*24)) * time.Hour)
			var passes []string
			for _, n := range passNames {
				if r.Intn(2) == 0 {
					passes = append(passes, n)
				}
			}
			if len(passes) == 0 {
				passes = []string{"dedup"}
			}
			rep := dreamWith(t, p, clk, dreamer.RunOptions{Passes: passes, Settings: settings})
			runs = append(runs, rep.RunID)
		}
		if step%5 == 4 || step == steps-1 {
			checkInvariants(t, p, written, step)
		}
	}
	// The sequence must have exercised the dreamer's changes, or it proves
	// nothing.
	changes, undone := 0, 0
	for _, id := range runs {
		run, err := dreamlog.Of(p).Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		changes += run.Changes
		if !run.UndoneAt.IsZero() {
			undone++
		}
	}
	counts, _ := p.CountByStatus(ctx)
	t.Logf("%d drawers, %d runs with %d changes, %d undone; by status %v", len(written), len(runs), changes, undone, counts)
	if changes == 0 {
		t.Fatal("no dream changed anything")
	}
}

func checkInvariants(t *testing.T, p *palace.Palace, written map[string]string, step int) {
	t.Helper()
	ctx := context.Background()
	for id, text := range written {
		d, err := p.Get(ctx, id)
		if err != nil {
			t.Fatalf("step %d: acknowledged drawer %s unreadable: %v", step, id, err)
		}
		if d.Content != text {
			t.Fatalf("step %d: drawer %s text changed: %q, want %q", step, id, d.Content, text)
		}
		res, err := p.Resolve(ctx, id)
		if err != nil {
			t.Fatalf("step %d: resolve %s: %v", step, id, err)
		}
		if d.Status == palace.StatusSuperseded {
			if d.SupersededBy == "" {
				t.Fatalf("step %d: %s superseded without a pointer", step, id)
			}
			if res.Status == palace.StatusSuperseded {
				t.Fatalf("step %d: %s resolves to %s, itself superseded", step, id, res.ID)
			}
		}
	}
	for _, q := range propQueries {
		for _, deep := range []bool{false, true} {
			hits, err := p.Recall(ctx, palace.RecallRequest{Query: q, K: 10, Deep: deep})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.Drawer.Status != palace.StatusActive {
					t.Fatalf("step %d: recall %q returned a %s drawer %s", step, q, h.Drawer.Status, h.Drawer.ID)
				}
			}
		}
	}
}
