//go:build bench

package index_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/index"
)

// BenchmarkEvalGraph measures loci's own graph (graph.go) against the
// exact scan: build time, memory, recall@10 against float32 brute force
// and latency, at several beam widths. Sets: LOCI_GRAPH_SETS (comma
// separated: clustered, random, fashion); size LOCI_BENCH_N (default
// 100000), dimension LOCI_BENCH_DIM (384), queries LOCI_BENCH_Q (1000).
//
//	go test -tags bench -run '^$' -bench BenchmarkEvalGraph -benchtime 1x -v -timeout 60m ./palace/index/
func BenchmarkEvalGraph(b *testing.B) {
	for range b.N {
		for _, set := range strings.Split(envStr("LOCI_GRAPH_SETS", "clustered,random,fashion"), ",") {
			figureEvalGraph(b, set)
		}
	}
}

func figureEvalGraph(b *testing.B, set string) {
	n, d, nq := envInt("LOCI_BENCH_N", 100_000), envInt("LOCI_BENCH_DIM", 384), envInt("LOCI_BENCH_Q", 1000)
	metric := index.Cosine
	var base, queries [][]float32
	switch set {
	case "clustered":
		all := clusteredUnit(11, n+nq, d, max(10, n/100), 0.7)
		base, queries = all[:n], all[n:]
	case "random":
		all := randomUnit(12, n+nq, d)
		base, queries = all[:n], all[n:]
	case "fashion":
		metric = index.L2
		base = fashionMNIST(b, "train-images-idx3-ubyte.gz")
		queries = fashionMNIST(b, "t10k-images-idx3-ubyte.gz")[:nq]
	default:
		b.Fatalf("unknown set %q", set)
	}
	t0 := time.Now()
	truth := groundTruth(base, queries, 10, metric)
	b.Logf("%s: %d × %d, %d queries; ground truth in %v", set, len(base), len(base[0]), len(queries), time.Since(t0).Round(time.Millisecond))

	m := envInt("LOCI_GRAPH_M", index.DefaultGraphM)
	efc := envInt("LOCI_GRAPH_EFC", index.DefaultGraphEfConstruction)
	for _, rerank := range []bool{false, true} {
		h0 := heapInuseMB()
		f := index.NewFlat(index.FlatConfig{Metric: metric, Int8: true, Rerank: rerank,
			Graph: index.GraphConfig{Min: 1, M: m, EfConstruction: efc}})
		t0 = time.Now()
		for i, v := range base {
			f.Add(uint64(i), v)
		}
		build := time.Since(t0)
		st := f.Stats()
		b.Logf("  int8 rerank=%v M=%d efC=%d: build %v (%v/insert), heap +%.0f MB (graph %.0f MB, codes %.0f MB)",
			rerank, m, efc, build.Round(time.Millisecond), (build / time.Duration(len(base))).Round(time.Microsecond),
			heapInuseMB()-h0, float64(st.GraphBytes)/(1<<20), float64(st.CodeBytes)/(1<<20))
		b.Logf("    exact scan:  %v", measure(exactOnly{f}, queries, truth, 10))
		for _, ef := range []int{32, 64, 96, 128, 256} {
			s0 := f.Stats()
			r := measure(efSearch{f, ef}, queries, truth, 10)
			s1 := f.Stats()
			b.Logf("    graph ef=%-3d %v scored/query=%d", ef, r, (s1.Scored-s0.Scored)/max(1, s1.Searches-s0.Searches))
		}
		runtime.KeepAlive(f)
	}
}

// exactOnly searches a Flat by its exact scan.
type exactOnly struct{ *index.Flat }

func (e exactOnly) Search(q []float32, k int, allow func(uint64) bool) []index.Result {
	return e.SearchExact(q, k, allow)
}

// efSearch searches a Flat's graph with beam width ef.
type efSearch struct {
	*index.Flat
	ef int
}

func (e efSearch) Search(q []float32, k int, allow func(uint64) bool) []index.Result {
	return e.SearchEf(q, k, e.ef, allow)
}
