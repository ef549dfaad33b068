package index_test

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/loci-mem/loci/palace/index"
)

// unitVecs returns n random unit vectors of dimension d.
func unitVecs(seed int64, n, d int) [][]float32 {
	r := rand.New(rand.NewSource(seed))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, d)
		var s float64
		for j := range v {
			v[j] = float32(r.NormFloat64())
			s += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(s))
		}
		out[i] = v
	}
	return out
}

// bruteForce is the reference: every vector scored, best first.
func bruteForce(vecs map[uint64][]float32, q []float32, k int, m index.Metric, allow func(uint64) bool) []index.Result {
	var all []index.Result
	for key, v := range vecs {
		if allow != nil && !allow(key) {
			continue
		}
		var s float64
		for i := range q {
			if m == index.L2 {
				d := float64(q[i] - v[i])
				s += d * d
			} else {
				s += float64(q[i]) * float64(v[i])
			}
		}
		if m == index.L2 {
			s = -math.Sqrt(s)
		}
		all = append(all, index.Result{Key: key, Score: float32(s)})
	}
	slices.SortFunc(all, func(a, b index.Result) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return int(a.Key) - int(b.Key)
	})
	return all[:min(k, len(all))]
}

func keysOf(rs []index.Result) []uint64 {
	out := make([]uint64, len(rs))
	for i, r := range rs {
		out[i] = r.Key
	}
	return out
}

// sameTop compares result keys, tolerating a swap of near-equal scores.
func sameTop(t *testing.T, got, want []index.Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Key != want[i].Key && math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
			t.Fatalf("result %d: got %v, want %v", i, got[i], want[i])
		}
		if math.Abs(float64(got[i].Score-want[i].Score)) > 1e-4 {
			t.Fatalf("result %d score: got %v, want %v", i, got[i].Score, want[i].Score)
		}
	}
}

// testGraph is a small, fast graph configuration for behaviour tests,
// built from the 50th row on.
var testGraph = index.GraphConfig{Min: 50, M: 8, EfConstruction: 32, EfSearch: 32}

// indexes returns one of each configuration for shared behaviour tests.
func indexes() map[string]func() index.Index {
	return map[string]func() index.Index{
		"flat": func() index.Index { return index.NewFlat(index.FlatConfig{}) },
		"flat-int8-graph": func() index.Index {
			return index.NewFlat(index.FlatConfig{Int8: true, Graph: testGraph})
		},
		"flat-int8-rerank-graph": func() index.Index {
			return index.NewFlat(index.FlatConfig{Int8: true, Rerank: true, Graph: testGraph})
		},
		"flat-int8": func() index.Index { return index.NewFlat(index.FlatConfig{Int8: true}) },
		"flat-int8-rerank": func() index.Index {
			return index.NewFlat(index.FlatConfig{Int8: true, Rerank: true})
		},
	}
}

func TestExactMatchesBruteForce(t *testing.T) {
	vecs := unitVecs(1, 500, 37)
	queries := unitVecs(2, 20, 37)
	for _, m := range []index.Metric{index.Cosine, index.L2} {
		t.Run(m.String(), func(t *testing.T) {
			f := index.NewFlat(index.FlatConfig{Metric: m})
			ref := map[uint64][]float32{}
			for i, v := range vecs {
				f.Add(uint64(i), v)
				ref[uint64(i)] = v
			}
			allow := func(k uint64) bool { return k%3 != 0 }
			for _, q := range queries {
				sameTop(t, f.Search(q, 10, nil), bruteForce(ref, q, 10, m, nil))
				sameTop(t, f.Search(q, 7, allow), bruteForce(ref, q, 7, m, allow))
			}
			// With a graph, the exact path must agree too.
			g := index.NewFlat(index.FlatConfig{Metric: m, Int8: true, Rerank: true, Graph: testGraph})
			for i, v := range vecs {
				g.Add(uint64(i), v)
			}
			for _, q := range queries {
				sameTop(t, g.SearchExact(q, 10, allow), bruteForce(ref, q, 10, m, allow))
			}
		})
	}
}

func TestInt8Recall(t *testing.T) {
	vecs := unitVecs(3, 2000, 128)
	queries := unitVecs(4, 50, 128)
	exact := index.NewFlat(index.FlatConfig{})
	q8 := index.NewFlat(index.FlatConfig{Int8: true})
	rr := index.NewFlat(index.FlatConfig{Int8: true, Rerank: true})
	for i, v := range vecs {
		exact.Add(uint64(i), v)
		q8.Add(uint64(i), v)
		rr.Add(uint64(i), v)
	}
	for _, q := range queries {
		sameTop(t, rr.Search(q, 10, nil), exact.Search(q, 10, nil))
	}
	var hit int
	for _, q := range queries {
		want := keysOf(exact.Search(q, 10, nil))
		for _, r := range q8.Search(q, 10, nil) {
			if slices.Contains(want, r.Key) {
				hit++
			}
		}
	}
	if recall := float64(hit) / float64(10*len(queries)); recall < 0.9 {
		t.Errorf("int8 recall@10 = %.3f, want >= 0.9", recall)
	}
}

func TestGraphSearchIsExactWhenExhaustive(t *testing.T) {
	// A beam as wide as the graph visits every reachable row: the answer
	// must then be brute force's, and every stored vector must be its own
	// nearest neighbour at the default width.
	vecs := unitVecs(5, 300, 16)
	ref := map[uint64][]float32{}
	for i, v := range vecs {
		ref[uint64(i)] = v
	}
	for _, m := range []index.Metric{index.Cosine, index.L2} {
		g := index.NewFlat(index.FlatConfig{Metric: m, Int8: true, Rerank: true, Graph: testGraph})
		for i, v := range vecs {
			g.Add(uint64(i), v)
		}
		for _, q := range unitVecs(6, 20, 16) {
			sameTop(t, g.SearchEf(q, 5, 300, nil), bruteForce(ref, q, 5, m, nil))
		}
		misses := 0
		for i, q := range vecs {
			if res := g.Search(q, 1, nil); len(res) != 1 || res[0].Key != uint64(i) {
				misses++
			}
		}
		if misses > 0 {
			t.Errorf("%v: %d of %d stored vectors not found first", m, misses, len(vecs))
		}
	}
}
