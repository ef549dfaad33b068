package index

import (
	"math/rand"
	"testing"
)

// BenchmarkSearchKeys scores a ninth of 100k rows of the default encoder's
// width (996), as a palace's search within one of its nine rooms does: by
// key (SearchKeys) and by a filter admitting the same keys (SearchAllowed,
// the filter a bitset as the palace's is), per search and per row scored.
func BenchmarkSearchKeys(b *testing.B) {
	const n, dim, share = 100000, 996, 9
	f := NewFlat(FlatConfig{Int8: true})
	r := rand.New(rand.NewSource(1))
	const batch = 4096
	var q []float32
	for lo := 0; lo < n; lo += batch {
		keys := make([]uint64, 0, batch)
		vecs := make([][]float32, 0, batch)
		for i := lo; i < min(n, lo+batch); i++ {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(r.NormFloat64())
			}
			keys, vecs = append(keys, uint64(i+1)), append(vecs, v)
		}
		f.AddBatch(keys, vecs)
		if q == nil {
			q = vecs[7]
		}
	}
	var keys []uint64
	allowed := make([]uint64, (n+64)/64)
	for _, i := range r.Perm(n)[:n/share] {
		keys = append(keys, uint64(i+1))
		allowed[(i+1)/64] |= 1 << ((i + 1) % 64)
	}
	allow := func(key uint64) bool { return allowed[key/64]&(1<<(key%64)) != 0 }
	perRow := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(keys)), "ns/row")
	}
	b.Run("keys", func(b *testing.B) {
		for b.Loop() {
			f.SearchKeys(q, 150, keys)
		}
		perRow(b)
	})
	b.Run("allowed", func(b *testing.B) {
		for b.Loop() {
			f.SearchAllowed(q, 150, allow)
		}
		perRow(b)
	})
}
