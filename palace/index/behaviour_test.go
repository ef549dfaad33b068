package index_test

import (
	"sync"
	"testing"

	"github.com/loci-mem/loci/palace/index"
)

func TestAddRemoveSemantics(t *testing.T) {
	vecs := unitVecs(10, 200, 8)
	for name, mk := range indexes() {
		t.Run(name, func(t *testing.T) {
			idx := mk()
			if got := idx.Dim(); got != 0 {
				t.Errorf("empty Dim = %d", got)
			}
			if res := idx.Search(vecs[0], 3, nil); len(res) != 0 {
				t.Errorf("empty Search = %v", res)
			}
			for i, v := range vecs {
				if !idx.Add(uint64(i), v) {
					t.Fatalf("Add(%d) = false", i)
				}
			}
			if idx.Add(7, vecs[8]) {
				t.Error("Add of an existing key = true")
			}
			if idx.Add(1000, vecs[0][:4]) {
				t.Error("Add of a wrong-dimension vector = true")
			}
			if got, want := idx.Len(), len(vecs); got != want {
				t.Errorf("Len = %d, want %d", got, want)
			}
			if got := idx.Dim(); got != 8 {
				t.Errorf("Dim = %d", got)
			}
			if res := idx.Search(vecs[7], 1, nil); len(res) != 1 || res[0].Key != 7 {
				t.Fatalf("Search(vec 7) = %v", res)
			}
			idx.Remove(7)
			idx.Remove(7)    // twice is harmless
			idx.Remove(9999) // unknown is harmless
			if got, want := idx.Len(), len(vecs)-1; got != want {
				t.Errorf("Len after Remove = %d, want %d", got, want)
			}
			for _, r := range idx.Search(vecs[7], 50, nil) {
				if r.Key == 7 {
					t.Fatal("removed key returned")
				}
			}
			// A removed key can be added again, with a new vector.
			if !idx.Add(7, vecs[8]) {
				t.Fatal("re-Add of a removed key = false")
			}
			if res := idx.Search(vecs[8], 2, nil); len(res) != 2 || (res[0].Key != 7 && res[1].Key != 7) {
				t.Fatalf("Search after re-Add = %v", res)
			}
			if got, want := idx.Len(), len(vecs); got != want {
				t.Errorf("Len after re-Add = %d, want %d", got, want)
			}
		})
	}
}

func TestTombstonesNeverReturned(t *testing.T) {
	vecs := unitVecs(11, 600, 16)
	for name, mk := range indexes() {
		t.Run(name, func(t *testing.T) {
			idx := mk()
			for i, v := range vecs {
				idx.Add(uint64(i), v)
			}
			for i := 0; i < len(vecs); i += 2 { // remove half: forces fallbacks too
				idx.Remove(uint64(i))
			}
			for _, q := range unitVecs(12, 30, 16) {
				res := idx.Search(q, 20, nil)
				if len(res) != 20 {
					t.Fatalf("got %d results, want 20", len(res))
				}
				for _, r := range res {
					if r.Key%2 == 0 {
						t.Fatalf("tombstoned key %d returned", r.Key)
					}
				}
				// A filter that leaves few keys still fills k exactly.
				res = idx.Search(q, 5, func(k uint64) bool { return k%50 == 1 })
				if len(res) != 5 {
					t.Fatalf("filtered search: %d results, want 5", len(res))
				}
				for _, r := range res {
					if r.Key%50 != 1 {
						t.Fatalf("disallowed key %d returned", r.Key)
					}
				}
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	vecs := unitVecs(17, 1000, 16)
	for name, mk := range indexes() {
		t.Run(name, func(t *testing.T) {
			idx := mk()
			for i, v := range vecs[:600] { // 400 more arrive concurrently
				idx.Add(uint64(i), v)
			}
			var wg sync.WaitGroup
			wg.Add(4)
			go func() { // writer
				defer wg.Done()
				for i := 600; i < len(vecs); i++ {
					idx.Add(uint64(i), vecs[i])
				}
			}()
			go func() { // remover
				defer wg.Done()
				for i := 0; i < 600; i += 3 {
					idx.Remove(uint64(i))
				}
			}()
			go func() { // a second reader, with a filter
				defer wg.Done()
				for i := range 300 {
					for _, r := range idx.Search(vecs[(i*7)%len(vecs)], 5, func(k uint64) bool { return k%2 == 1 }) {
						if r.Key%2 == 0 {
							t.Errorf("filtered-out key %d", r.Key)
						}
					}
				}
			}()
			go func() { // reader
				defer wg.Done()
				for i := range 300 {
					for _, r := range idx.Search(vecs[i%len(vecs)], 5, nil) {
						if r.Key >= uint64(len(vecs)) {
							t.Errorf("unknown key %d", r.Key)
						}
					}
					idx.Len()
				}
			}()
			wg.Wait()
			if got, want := idx.Len(), len(vecs)-200; got != want { // 200 = |{0,3,...,597}|
				t.Errorf("Len = %d, want %d", got, want)
			}
			for _, r := range idx.Search(vecs[3], 50, nil) {
				if r.Key < 600 && r.Key%3 == 0 {
					t.Fatalf("removed key %d returned", r.Key)
				}
			}
		})
	}
}

func TestKernelsPureGoPath(t *testing.T) {
	old := index.SetAVX2(false)
	defer index.SetAVX2(old)
	vecs := unitVecs(19, 100, 33)
	ref := map[uint64][]float32{}
	f := index.NewFlat(index.FlatConfig{})
	for i, v := range vecs {
		f.Add(uint64(i), v)
		ref[uint64(i)] = v
	}
	sameTop(t, f.Search(vecs[0], 10, nil), bruteForce(ref, vecs[0], 10, index.Cosine, nil))
}
