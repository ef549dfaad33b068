//go:build bench

package index_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/hnsw"
	"github.com/loci-mem/loci/palace/index"
)

// figureCoderRaw uses coder/hnsw directly, exactly as its README shows
// (NewGraph defaults, the first k results of Search), to reproduce the
// design's "almost no correct neighbours".
func figureCoderRaw(t testing.TB) {
	const n, d, nq = 20000, 384, 300
	for _, set := range []struct {
		name string
		all  [][]float32
	}{
		{"random", randomUnit(1, n+nq, d)},
		{"clustered", clusteredUnit(2, n+nq, d, 100, 0.7)},
	} {
		base, queries := set.all[:n], set.all[n:]
		truth := groundTruth(base, queries, 10, index.Cosine)
		g := hnsw.NewGraph[uint64]()
		for i, v := range base {
			g.Add(hnsw.MakeNode(uint64(i), v))
		}
		var hit, sorted int
		for i, q := range queries {
			res := g.Search(q, 10)
			for j, r := range res {
				for _, w := range truth[i] {
					if r.Key == w {
						hit++
					}
				}
				if j > 0 && hnsw.CosineDistance(res[j-1].Value, q) <= hnsw.CosineDistance(r.Value, q) {
					sorted++
				}
			}
		}
		fmt.Printf("coder-raw %s n=%d d=%d M=16 Ml=0.25 EfSearch=20 recall@10=%.3f results-in-order=%.2f\n",
			set.name, n, d, float64(hit)/float64(10*nq), float64(sorted)/float64(9*nq))
	}
}

// figureEvalFashionMNIST: 60k train images as base, 10k test images as
// queries, L2 on raw pixels, through the HNSW wrapper.
func figureEvalFashionMNIST(t testing.TB) {
	base := fashionMNIST(t, "train-images-idx3-ubyte.gz")
	queries := fashionMNIST(t, "t10k-images-idx3-ubyte.gz")
	nq := envInt("LOCI_FASHION_QUERIES", len(queries))
	queries = queries[:nq]
	t0 := time.Now()
	truth := groundTruth(base, queries, 10, index.L2)
	fmt.Printf("fashion ground truth (%d queries, 2 cores): %v\n", nq, time.Since(t0).Round(time.Millisecond))

	for _, int8 := range []bool{false, true} {
		f := index.NewFlat(index.FlatConfig{Metric: index.L2, Int8: int8})
		for i, v := range base {
			f.Add(uint64(i), v)
		}
		fmt.Printf("fashion flat int8=%v n=60000 d=784 %v\n", int8, measure(f, queries[:1000], truth, 10))
	}
	for _, m := range []int{16, 32, 48} {
		h := index.NewHNSW(index.HNSWConfig{M: m, Metric: index.L2, Seed: 1})
		t0 := time.Now()
		for i, v := range base {
			h.Add(uint64(i), v)
		}
		build := time.Since(t0)
		for _, ef := range []int{10, 64, 128, 256, 1024} {
			h.SetEfSearch(ef)
			fmt.Printf("fashion hnsw M=%d build=%v ef=%d %v\n", m, build.Round(time.Millisecond), ef, measure(h, queries, truth, 10))
		}
	}
}

// figureEval100k: random and clustered unit vectors, n = LOCI_BENCH_N
// (100000) of dimension LOCI_BENCH_DIM (384): HNSW build, recall, latency,
// memory, save and load.
func figureEval100k(t testing.TB) {
	n := envInt("LOCI_BENCH_N", 100000)
	d := envInt("LOCI_BENCH_DIM", 384)
	nq := envInt("LOCI_BENCH_QUERIES", 1000)
	sets := strings.Split(envStr("LOCI_BENCH_SETS", "clustered,random"), ",")
	var params []struct{ m, ef int }
	for _, f := range strings.Split(envStr("LOCI_BENCH_HNSW", "16:64,32:256"), ",") {
		var p struct{ m, ef int }
		if _, err := fmt.Sscanf(f, "%d:%d", &p.m, &p.ef); err != nil {
			t.Fatalf("LOCI_BENCH_HNSW %q: want M:EfSearch,...", f)
		}
		params = append(params, p)
	}
	for _, name := range sets {
		var all [][]float32
		switch name {
		case "clustered":
			all = clusteredUnit(2, n+nq, d, 1000, 0.7)
		case "random":
			all = randomUnit(1, n+nq, d)
		default:
			t.Fatalf("LOCI_BENCH_SETS: unknown set %q", name)
		}
		base, queries := all[:n], all[n:]
		truth := groundTruth(base, queries, 10, index.Cosine)

		for _, p := range params {
			before := heapInuseMB()
			h := index.NewHNSW(index.HNSWConfig{M: p.m, EfSearch: p.ef, Seed: 1})
			t0 := time.Now()
			for i, v := range base {
				h.Add(uint64(i), v)
			}
			build := time.Since(t0)
			mem := heapInuseMB() - before
			res := measure(h, queries, truth, 10)
			path := filepath.Join(t.TempDir(), "bench.hnsw")
			t0 = time.Now()
			if err := h.SaveFile(path, index.SnapshotMeta{Model: "bench", Seq: 1}); err != nil {
				t.Fatal(err)
			}
			save := time.Since(t0)
			st, _ := os.Stat(path)
			t0 = time.Now()
			g, _, err := index.LoadHNSWFile(path, index.HNSWConfig{EfSearch: p.ef})
			if err != nil {
				t.Fatal(err)
			}
			load := time.Since(t0)
			loaded := measure(g, queries, truth, 10)
			fmt.Printf("hnsw %s n=%d d=%d M=%d ef=%d build=%v heap=%.0fMB %v | save=%v file=%.0fMB load=%v loaded: %v\n",
				name, n, d, p.m, p.ef, build.Round(time.Millisecond), mem, res,
				save.Round(time.Millisecond), float64(st.Size())/(1<<20), load.Round(time.Millisecond), loaded)
			h, g = nil, nil
		}
	}
}

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

// BenchmarkCoderRaw runs figureCoderRaw once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkCoderRaw(b *testing.B) {
	for range b.N {
		figureCoderRaw(b)
	}
}

// BenchmarkEvalFashionMNIST runs figureEvalFashionMNIST once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkEvalFashionMNIST(b *testing.B) {
	for range b.N {
		figureEvalFashionMNIST(b)
	}
}

// BenchmarkEval100k runs figureEval100k once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkEval100k(b *testing.B) {
	for range b.N {
		figureEval100k(b)
	}
}

// BenchmarkEvalFlat runs figureEvalFlat once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkEvalFlat(b *testing.B) {
	for range b.N {
		figureEvalFlat(b)
	}
}
