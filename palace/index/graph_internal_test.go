package index

import (
	"math"
	"math/rand"
	"testing"
)

// A parallel build leaves every row reachable from the entry point on
// layer 0. Rows linked at the same moment do not see each other, and
// without the relinking pass a few of them lost every in-edge to the
// pruning of full lists (up to five a build here, with eight workers on
// two cores).
func TestParallelBuildLeavesNoRowUnreachable(t *testing.T) {
	t.Parallel()
	const n, d = 3000, 24
	for seed := range int64(6) {
		r := rand.New(rand.NewSource(seed))
		centres := make([][]float64, 30)
		for i := range centres {
			centres[i] = make([]float64, d)
			for j := range centres[i] {
				centres[i][j] = r.NormFloat64() / math.Sqrt(d)
			}
		}
		f := NewFlat(FlatConfig{Metric: Cosine, Int8: true,
			Graph: GraphConfig{Min: 1 << 30, M: 12, EfConstruction: 64}})
		for i := range n {
			ce, v := centres[r.Intn(len(centres))], make([]float32, d)
			for j := range v {
				v[j] = float32(ce[j] + 0.8/math.Sqrt(d)*r.NormFloat64())
			}
			unit(v)
			f.Add(uint64(i), v)
		}
		g := newGraph(f.cfg.Graph)
		f.mu.Lock()
		g.build(f, 0, n, 8)
		f.mu.Unlock()
		if lost := g.unreachable(); len(lost) > 0 {
			t.Fatalf("seed %d: %d rows unreachable: %v", seed, len(lost), lost)
		}
	}
}

// unit scales v to length 1, as the embedders' vectors are.
func unit(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(s))
	}
}
