package palace

// TEMPORARY glue until palace/index lands its implementations.

import (
	"errors"
	"sort"
	"sync"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
)

type tmpFlat struct {
	mu   sync.RWMutex
	vecs map[uint64][]float32
	dim  int
}

func newIndex(dim int) index.Index { return &tmpFlat{vecs: map[uint64][]float32{}, dim: dim} }

func (f *tmpFlat) Add(k uint64, v []float32) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.vecs[k]; ok {
		return false
	}
	f.vecs[k] = v
	return true
}
func (f *tmpFlat) Remove(k uint64) { f.mu.Lock(); delete(f.vecs, k); f.mu.Unlock() }
func (f *tmpFlat) Len() int        { f.mu.RLock(); defer f.mu.RUnlock(); return len(f.vecs) }
func (f *tmpFlat) Dim() int        { return f.dim }
func (f *tmpFlat) Search(q []float32, k int, allow func(uint64) bool) []index.Result {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var out []index.Result
	for key, v := range f.vecs {
		if allow != nil && !allow(key) {
			continue
		}
		out = append(out, index.Result{Key: key, Score: embed.Dot(q, v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

func searchExact(idx index.Index, q []float32, k int, allow func(uint64) bool) []index.Result {
	return idx.Search(q, k, allow)
}

func indexKind(idx index.Index) string { return "flat" }

func loadSnapshot(path, model string, dim int) (index.Index, int64, error) {
	return nil, 0, errors.New("no snapshot support yet")
}

func saveSnapshot(path string, idx index.Index, model string, hw int64) error { return nil }
