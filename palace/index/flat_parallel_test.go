package index

import (
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"
)

// A scan split across cores must return exactly what one core returns,
// with tombstones and a filter in play; so must SearchKeys and
// SearchAllowed over enough rows to be split, and agree with the scan
// filtered to the same keys.
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
	var keys []uint64
	for k := uint64(n); k >= 1; k-- { // not in the rows' order
		if allow(k) {
			keys = append(keys, k)
		}
	}
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	if scanParts(len(keys)*dim) < 2 {
		t.Fatal("key set too small to split")
	}
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
		if filter == nil {
			continue
		}
		runtime.GOMAXPROCS(4)
		parKeys, parAllowed := f.SearchKeys(vec, 50, keys), f.SearchAllowed(vec, 50, filter)
		runtime.GOMAXPROCS(1)
		serKeys, serAllowed := f.SearchKeys(vec, 50, keys), f.SearchAllowed(vec, 50, filter)
		for _, got := range [][]Result{parKeys, serKeys, parAllowed, serAllowed} {
			if !slices.Equal(got, ser) {
				t.Fatalf("query %d: SearchKeys %v parallel, %v serial; SearchAllowed %v parallel, %v serial; the filtered scan %v",
					q, parKeys, serKeys, parAllowed, serAllowed, ser)
			}
		}
	}
}

// SearchKeys must rank a key subset as a scan filtered to the same keys
// does (int8 candidates re-ranked in float32: the exact answer here),
// skipping keys that are not (or no longer) indexed.
func TestSearchKeysMatchesFilteredScan(t *testing.T) {
	const n, dim = 3000, 64
	r := rand.New(rand.NewSource(9))
	exact := NewFlat(FlatConfig{})
	fast := NewFlat(FlatConfig{Int8: true, Rerank: true})
	codes := NewFlat(FlatConfig{Int8: true})
	if got := exact.SearchKeys(make([]float32, dim), 3, []uint64{1}); got != nil {
		t.Fatalf("empty index: %v", got)
	}
	vec := make([]float32, dim)
	for k := uint64(1); k <= n; k++ {
		for i := range vec {
			vec[i] = float32(r.NormFloat64())
		}
		exact.Add(k, vec)
		fast.Add(k, vec)
		codes.Add(k, vec)
	}
	for k := uint64(7); k <= n; k += 13 {
		exact.Remove(k)
		fast.Remove(k)
		codes.Remove(k)
	}
	var keys []uint64
	set := map[uint64]bool{}
	for k := uint64(1); k <= n+50; k += 1 + uint64(r.Intn(8)) { // some beyond n: not indexed
		keys = append(keys, k)
		set[k] = true
	}
	allow := func(k uint64) bool { return set[k] }
	for q := 0; q < 10; q++ {
		for i := range vec {
			vec[i] = float32(r.NormFloat64())
		}
		want := exact.Search(vec, 25, allow)
		got := fast.SearchKeys(vec, 25, keys)
		if byAllow := fast.SearchAllowed(vec, 25, allow); !slices.Equal(byAllow, got) {
			t.Fatalf("query %d: SearchAllowed %v, SearchKeys %v", q, byAllow, got)
		}
		if byAllow := exact.SearchAllowed(vec, 25, allow); !slices.Equal(byAllow, exact.SearchKeys(vec, 25, keys)) {
			t.Fatalf("query %d: float32 SearchAllowed and SearchKeys disagree", q)
		}
		if scan := fast.Search(vec, 25, allow); len(scan) != len(got) || scan[0] != got[0] || scan[len(scan)-1] != got[len(got)-1] {
			t.Fatalf("query %d: SearchKeys and the filtered scan disagree", q)
		}
		if fl := exact.SearchKeys(vec, 25, keys); len(fl) != len(want) || fl[0] != want[0] || fl[len(fl)-1] != want[len(want)-1] {
			t.Fatalf("query %d: float32 SearchKeys and the filtered float32 scan disagree", q)
		}
		if len(got) != len(want) {
			t.Fatalf("query %d: %d results, want %d", q, len(got), len(want))
		}
		for i := range want {
			if got[i].Key != want[i].Key || math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
				t.Fatalf("query %d result %d: %+v, want %+v", q, i, got[i], want[i])
			}
		}
		// Int8 only: approximate scores, but only allowed, indexed keys.
		for _, res := range codes.SearchKeys(vec, 25, keys) {
			if !set[res.Key] || res.Key%13 == 7 || res.Key > n {
				t.Fatalf("int8 SearchKeys returned key %d", res.Key)
			}
		}
	}
	if fast.SearchKeys(vec, 5, nil) != nil || fast.SearchKeys(vec, 0, keys) != nil {
		t.Fatal("empty key list or k=0 must return nothing")
	}
}
