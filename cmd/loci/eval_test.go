package main

import (
	"context"
	"os"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
)

// TestLocomoHybridBeatsKeyword runs the evaluation on LoCoMo's first
// conversation with the built-in default encoder: hybrid ranking must find
// more evidence than BM25 alone (any@10 higher, frac@10 no lower; measured
// .833/.777 against .817/.777). The data lives outside the repository
// (../shared/data); without it the test skips, except in CI.
func TestLocomoHybridBeatsKeyword(t *testing.T) {
	data := defaultLocomoPath()
	if _, err := os.Stat(data); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("LoCoMo data missing at %s", data)
		}
		t.Skipf("LoCoMo data not found at %s", data)
	}
	ks := []int{10}
	run := func(mode palace.Mode) map[string]float64 {
		rows, _, turns, err := runLocomo(context.Background(), locomoOptions{
			Data: data, Method: mode, Embedder: embed.Default(), Ks: ks, Samples: []int{1},
		})
		if err != nil {
			t.Fatal(err)
		}
		if turns != 419 || len(rows) < 190 {
			t.Fatalf("conversation 1: %d turns, %d questions; want 419 turns and ~197 questions", turns, len(rows))
		}
		g := aggregate("overall 1-5", rows, ks)
		t.Logf("%s: any@10 %.3f frac@10 %.3f (n=%d)", mode, g.Metrics["any@10"], g.Metrics["frac@10"], g.N)
		return g.Metrics
	}
	kw := run(palace.ModeKeyword)
	hy := run(palace.ModeHybrid)
	if hy["any@10"] <= kw["any@10"] || hy["frac@10"] < kw["frac@10"] {
		t.Fatalf("hybrid (any@10 %.3f, frac@10 %.3f) does not beat BM25 alone (%.3f, %.3f)",
			hy["any@10"], hy["frac@10"], kw["any@10"], kw["frac@10"])
	}
}
