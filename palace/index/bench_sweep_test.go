//go:build bench

package index_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/index"
)

// figureSweepHNSW builds coder/hnsw graphs through the wrapper over a grid of
// M, Ml and EfSearch on random and clustered unit vectors and prints
// recall@10 and latency. Size: LOCI_SWEEP_N (default 20000), dim 384.
func figureSweepHNSW(t testing.TB) {
	n := envInt("LOCI_SWEEP_N", 20000)
	const d, nq = 384, 300
	sets := map[string][][]float32{
		"random":    randomUnit(1, n+nq, d),
		"clustered": clusteredUnit(2, n+nq, d, 100, 0.7),
	}
	for _, name := range []string{"clustered", "random"} {
		all := sets[name]
		base, queries := all[:n], all[n:]
		truth := groundTruth(base, queries, 10, index.Cosine)
		for _, m := range []int{16, 32, 48} {
			for _, ml := range []float64{0.25, 1 / math.Log(float64(m))} {
				h := index.NewHNSW(index.HNSWConfig{M: m, Ml: ml, Seed: 1})
				t0 := time.Now()
				for i, v := range base {
					h.Add(uint64(i), v)
				}
				build := time.Since(t0)
				for _, ef := range []int{10, 64, 128, 256, 512} {
					h.SetEfSearch(ef)
					fmt.Printf("sweep %s n=%d M=%d Ml=%.2f build=%v ef=%d %v\n", name, n, m, ml, build.Round(time.Millisecond), ef, measure(h, queries, truth, 10))
				}
			}
		}
	}
}

// BenchmarkSweepHNSW runs figureSweepHNSW once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkSweepHNSW(b *testing.B) {
	for range b.N {
		figureSweepHNSW(b)
	}
}
