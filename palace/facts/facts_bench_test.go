package facts_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

// seedFacts stages and approves n distinct facts.
func seedFacts(b *testing.B, p *palace.Palace, n int) {
	b.Helper()
	ctx := context.Background()
	tools := []string{"pnpm", "cargo", "uv", "poetry", "bun", "deno", "maven", "gradle", "bazel", "nix"}
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("Service %d of team %d builds with %s and deploys to region r%d", i, i%37, tools[i%len(tools)], i%11)
		r, err := facts.Of(p).Stage(ctx, facts.Input{Text: text, Kind: "project", Confidence: 0.7})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := facts.Of(p).Approve(ctx, r.Fact.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// Run: go test ./palace -run '^$' -bench 'Facts' -benchtime 200x
func BenchmarkStageFacts(b *testing.B) {
	p, _ := mustFactPalace(b, "")
	seedFacts(b, p, 2000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := fmt.Sprintf("Batch job %d writes its reports to bucket number %d every night", i, i*7)
		if _, err := facts.Of(p).Stage(ctx, facts.Input{Text: text, Kind: "infra", Confidence: 0.6}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecallFacts(b *testing.B) {
	p, _ := mustFactPalace(b, "")
	seedFacts(b, p, 2000)
	ctx := context.Background()
	for _, q := range []string{"", "which services build with cargo"} {
		b.Run(fmt.Sprintf("query=%q", q), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := facts.Of(p).Recall(ctx, q, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
