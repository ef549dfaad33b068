package dreamer_test

import (
	"context"
	"testing"
	"time"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/kg"
)

func TestKGPassMergesAndReportsChurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	// Identical active triples, as an import behind kg's back leaves them.
	ts := clk.Now().Add(-time.Hour).UTC()
	tx, err := p.Store().BeginTriples(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := tx.Insert(ctx, kg.Triple{Subject: "svc", Predicate: "lang", Object: "go", ValidFrom: ts,
			Confidence: 0.9, CreatedAt: ts}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// A subject whose owner keeps changing.
	for i, who := range []string{"ana", "bo", "cy", "dee", "ana"} {
		if _, err := p.KG().Assert(ctx, kg.Assertion{Subject: "svc", Predicate: "owner", Object: who,
			ValidFrom: clk.Now().Add(time.Duration(i-10) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	dry := dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"kg"}, DryRun: true})
	if pr := passReport(t, dry, "kg"); pr.KG.Merged != 2 {
		t.Fatalf("dry run would merge %d, want 2", pr.KG.Merged)
	}
	rep := dream(t, p, clk, "kg")
	pr := passReport(t, rep, "kg")
	if pr.KG.Merged != 2 {
		t.Fatalf("merged %d, want 2", pr.KG.Merged)
	}
	if len(pr.KG.Churn) != 1 || pr.KG.Churn[0].Subject != "svc" || pr.KG.Churn[0].Predicate != "owner" {
		t.Fatalf("churn %+v", pr.KG.Churn)
	}
	active, err := p.KG().Query(ctx, "svc")
	if err != nil || len(active) != 2 {
		t.Fatalf("active triples of svc: %v (%v)", active, err)
	}
}
