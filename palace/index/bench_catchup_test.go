//go:build bench

package index_test

import (
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/index"
)

// BenchmarkCatchUpBuild measures building a graph the way a palace loads
// its vectors from the store: batches of 1,024 rows through AddBatch
// (each linked on every core), the graph built once the rows pass its
// threshold, then one Relink. Size LOCI_BENCH_N (default 200000),
// dimension LOCI_BENCH_DIM (64).
//
//	go test -tags bench -run '^$' -bench BenchmarkCatchUpBuild -benchtime 1x -v ./palace/index/
func BenchmarkCatchUpBuild(b *testing.B) {
	n, d := envInt("LOCI_BENCH_N", 200_000), envInt("LOCI_BENCH_DIM", 64)
	vecs := clusteredUnit(21, n, d, max(10, n/100), 0.7)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	for range b.N {
		f := index.NewFlat(index.FlatConfig{Int8: true, Graph: index.GraphConfig{Min: 10_000}})
		start := time.Now()
		for lo := 0; lo < n; lo += 1024 {
			hi := min(lo+1024, n)
			f.AddBatch(keys[lo:hi], vecs[lo:hi])
		}
		f.Relink()
		b.ReportMetric(time.Since(start).Seconds(), "build-s")
		if st := f.Stats(); st.Graph != n {
			b.Fatalf("graph of %d rows, want %d", st.Graph, n)
		}
	}
}
