package palace_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
)

var benchVocab = strings.Fields(`deploy gateway token cluster billing invoice refund retry budget
latency cache redis postgres kafka schema migration rollback release train tuesday sprint
frontend react vite test flaky ci pipeline docker image registry secret rotation vault
oncall pager incident postmortem dashboard metric alert threshold quota tenant region
backup restore snapshot index shard replica leader election timeout circuit breaker
feature flag experiment cohort churn onboarding email template locale timezone calendar
meeting agenda decision owner deadline roadmap design review api version deprecation`)

func benchSentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchVocab[r.Intn(len(benchVocab))]
	}
	return strings.Join(w, " ")
}

// benchPalace returns a palace holding n synthetic drawers.
func benchPalace(b *testing.B, n int) *palace.Palace {
	b.Helper()
	p := MustOpenPalace(b)
	r := rand.New(rand.NewSource(1))
	ctx := context.Background()
	for done := 0; done < n; {
		batch := make([]*palace.Drawer, 0, 1000)
		for i := 0; i < 1000 && done < n; i++ {
			batch = append(batch, &palace.Drawer{Content: fmt.Sprintf("note %d: %s", done, benchSentence(r, 8+r.Intn(16)))})
			done++
		}
		if err := p.AddMany(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	return p
}

func benchmarkSearch(b *testing.B, n int, mode palace.Mode) {
	p := benchPalace(b, n)
	ctx := context.Background()
	r := rand.New(rand.NewSource(2))
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = benchSentence(r, 5)
	}
	if _, err := p.Search(ctx, palace.SearchRequest{Query: "warm up", Mode: mode}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Search(ctx, palace.SearchRequest{Query: queries[i%len(queries)], Mode: mode, NoAccess: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchHybrid10k(b *testing.B)  { benchmarkSearch(b, 10000, palace.ModeHybrid) }
func BenchmarkSearchKeyword10k(b *testing.B) { benchmarkSearch(b, 10000, palace.ModeKeyword) }
func BenchmarkSearchVector10k(b *testing.B)  { benchmarkSearch(b, 10000, palace.ModeVector) }

func BenchmarkSearchHybrid50k(b *testing.B) { benchmarkSearch(b, 50000, palace.ModeHybrid) }
