//go:build bench

package index_test

import (
	"fmt"
	"testing"

	"github.com/loci-mem/loci/palace/index"
)

// figureEvalFlat: the exact index in its three storage modes at 10k, 50k and
// LOCI_BENCH_N (100000) clustered unit vectors of LOCI_BENCH_DIM (384):
// heap, recall@10 against float32 exact, p50/p99 of 500 queries.
func figureEvalFlat(t testing.TB) {
	n := envInt("LOCI_BENCH_N", 100000)
	d := envInt("LOCI_BENCH_DIM", 384)
	const nq = 500
	all := clusteredUnit(2, n+nq, d, 1000, 0.7)
	base, queries := all[:n], all[n:]
	for _, size := range []int{10000, 50000, n} {
		truth := groundTruth(base[:size], queries, 10, index.Cosine)
		for _, cfg := range []index.FlatConfig{{}, {Int8: true}, {Int8: true, Rerank: true}} {
			before := heapInuseMB()
			f := index.NewFlat(cfg)
			for i, v := range base[:size] {
				f.Add(uint64(i), v)
			}
			mem := heapInuseMB() - before
			fmt.Printf("flat n=%d d=%d int8=%v rerank=%v heap=%.0fMB %v\n", size, d, cfg.Int8, cfg.Rerank, mem, measure(f, queries, truth, 10))
		}
	}
}

// BenchmarkEvalFlat runs figureEvalFlat once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkEvalFlat(b *testing.B) {
	for range b.N {
		figureEvalFlat(b)
	}
}
