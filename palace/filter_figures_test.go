//go:build stdiobench

package palace

import (
	"context"
	"math/rand"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
)

// BenchmarkFilterShares times vector searches within filters that admit
// one to eight of the nine rooms of the stdio figures' 100k palace (a
// ninth of its drawers each), through the index's own search with the
// filter (index.Flat.Search: the graph's beam, then the scan when it held
// too few admitted rows) and through index.Flat.SearchFiltered, for the
// palace's 432 candidates, and the share of the exact top 10 each holds.
// The palace is the one `BenchmarkStdioFigures` seeds in LOCI_BENCH_HOME:
//
//	LOCI_BENCH_HOME=/tmp/benchhome go test -tags 'stdiobench sqlite_fts5' \
//	    -run '^$' -bench BenchmarkFilterShares -benchtime 1x -v ./palace
func BenchmarkFilterShares(b *testing.B) {
	home := benchHome(b)
	ctx := context.Background()
	reg, err := OpenRegistry(Config{DataDir: home, Embedder: embed.Default()})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	p, err := reg.Open(ctx, "bench100000-default")
	if err != nil {
		b.Fatal(err)
	}
	if err := p.WarmIndex(ctx); err != nil {
		b.Fatal(err)
	}
	idx, err := p.vec.sync(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("index: %+v", p.IndexInfo())
	questions := benchQuestions
	const cands, runs = 432, 40
	r := rand.New(rand.NewSource(1))
	for range b.N {
		for _, rooms := range []int{1, 2, 3, 5, 8} {
			allowed := &allowedSet{}
			for _, room := range Rooms[:rooms] {
				a, err := p.allowedDrawers(ctx, Filter{Room: room})
				if err != nil {
					b.Fatal(err)
				}
				for _, k := range a.keyList {
					allowed.keys.add(k)
				}
			}
			admitted := p.vec.vectorsOf(allowed.keys.len(), idx.Len())
			var before, after []time.Duration
			var hitBefore, hitAfter float64
			for range runs {
				qv := p.queryVector(ctx, questions[r.Intn(len(questions))]+" "+Rooms[r.Intn(len(Rooms))])
				exact := idx.SearchAllowed(qv, 10, allowed.hasKey)
				start := time.Now()
				got := idx.Search(qv, cands, allowed.hasKey)
				before = append(before, time.Since(start))
				hitBefore += shareOf(got, exact)
				start = time.Now()
				got = idx.SearchFiltered(qv, cands, allowed.hasKey, admitted, false)
				after = append(after, time.Since(start))
				hitAfter += shareOf(got, exact)
			}
			st := idx.Stats()
			b.Logf("graph searches so far scored %.1f rows each on average", float64(st.Scored)/float64(max(1, st.Searches)))
			b.Logf("%d rooms (%d drawers, ~%d of %d vectors): Search p50 %v p90 %v, exact top 10 held %.3f; SearchFiltered p50 %v p90 %v, %.3f",
				rooms, allowed.keys.len(), admitted, idx.Len(), quantile(before, .5), quantile(before, .9), hitBefore/runs,
				quantile(after, .5), quantile(after, .9), hitAfter/runs)
		}
	}
}

// benchHome is the directory LOCI_BENCH_HOME names, where
// BenchmarkStdioFigures seeds its 100k palace.
func benchHome(b *testing.B) string {
	home := os.Getenv("LOCI_BENCH_HOME")
	if home == "" {
		b.Fatal("LOCI_BENCH_HOME names no directory with the 100k palace")
	}
	return home
}

// benchQuestions are questions of the kind the 100k palace's texts answer.
var benchQuestions = []string{"What did Caroline do last weekend?", "When did Melanie paint a sunrise?", "What is Jon's job?",
	"Where did they go camping?", "What books does Tim like?", "How many kids does Deborah have?",
	"What did John buy for his dog?", "When is the charity race?"}

// shareOf is the share of want's keys that got holds.
func shareOf(got, want []index.Result) float64 {
	in := map[uint64]bool{}
	for _, r := range got {
		in[r.Key] = true
	}
	n := 0
	for _, r := range want {
		if in[r.Key] {
			n++
		}
	}
	return float64(n) / float64(max(1, len(want)))
}

func quantile(d []time.Duration, q float64) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[int(q*float64(len(d)-1))]
}
