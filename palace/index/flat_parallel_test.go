package index

import (
	"math/rand"
	"runtime"
	"testing"
)

// A scan split across cores must return exactly what one core returns,
// with tombstones and a filter in play.
func TestParallelScanMatchesSerial(t *testing.T) {
	const n, dim = 40000, 256 // rows*dim: three parts on four cores
	if n*dim < 2*parallelScanWork {
		t.Fatal("test too small to split")
	}
	r := rand.New(rand.NewSource(5))
	f := NewFlat(FlatConfig{Int8: true, Rerank: true})
	vec := make([]float32, dim)
	for k := uint64(1); k <= n; k++ {
		for i := range vec {
			vec[i] = float32(r.NormFloat64())
		}
		if k%97 == 0 { // duplicates make equal scores: ties must merge deterministically
			vec[0] = 1
		}
		f.Add(k, vec)
	}
	for k := uint64(3); k <= n; k += 11 {
		f.Remove(k)
	}
	allow := func(k uint64) bool { return k%5 != 0 }
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	for q := 0; q < 20; q++ {
		for i := range vec {
			vec[i] = float32(r.NormFloat64())
		}
		var filter func(uint64) bool
		if q%2 == 1 {
			filter = allow
		}
		runtime.GOMAXPROCS(4)
		par := f.Search(vec, 50, filter)
		runtime.GOMAXPROCS(1)
		ser := f.Search(vec, 50, filter)
		if len(par) != len(ser) || len(par) != 50 {
			t.Fatalf("query %d: %d parallel results, %d serial", q, len(par), len(ser))
		}
		for i := range ser {
			if par[i] != ser[i] {
				t.Fatalf("query %d result %d: parallel %+v, serial %+v", q, i, par[i], ser[i])
			}
			if ser[i].Key%11 == 3 || (filter != nil && !filter(ser[i].Key)) {
				t.Fatalf("query %d returned removed or filtered key %d", q, ser[i].Key)
			}
		}
	}
}
