package palace

import (
	"errors"
	"fmt"

	"github.com/loci-mem/loci/palace/index"
)

// The palace's vector index is index.Auto: an exact int8-scan re-ranked in
// float32 (recall 1.0, ~3 ms p99 at 100k × 384; palace/index/README.md).
// coder/hnsw never reached recall 0.95 in measurement, so Auto's threshold
// stays at "never switch". The snapshot is a flat file of every live
// vector, loaded with one sequential read (see index.SaveFlatFile).

func newIndex(dim int) index.Index { return index.NewAuto(index.AutoConfig{}) }

// searchExact scores every vector exactly (seed 003's L3).
func searchExact(idx index.Index, q []float32, k int, allow func(uint64) bool) []index.Result {
	if x, ok := idx.(interface {
		SearchExact([]float32, int, func(uint64) bool) []index.Result
	}); ok {
		return x.SearchExact(q, k, allow)
	}
	return idx.Search(q, k, allow)
}

// searchKeys scores the vectors of keys exactly (keys absent from the
// index are skipped). Indexes without a way to do that scan with allow.
func searchKeys(idx index.Index, q []float32, k int, keys []uint64, allow func(uint64) bool) []index.Result {
	if x, ok := idx.(interface {
		SearchKeys([]float32, int, []uint64) []index.Result
	}); ok {
		return x.SearchKeys(q, k, keys)
	}
	return searchExact(idx, q, k, allow)
}

func indexKind(idx index.Index) string {
	if a, ok := idx.(*index.Auto); ok {
		return a.Mode().String()
	}
	return fmt.Sprintf("%T", idx)
}

// loadSnapshot loads the snapshot at path if it was written for this model
// and dimension; any other outcome is an error and the caller rebuilds.
func loadSnapshot(path, model string, dim int) (index.Index, int64, error) {
	a, meta, err := index.LoadFlatFile(path, index.AutoConfig{})
	if err != nil {
		return nil, 0, err
	}
	if meta.Model != model || (a.Len() > 0 && a.Dim() != dim) {
		return nil, 0, fmt.Errorf("snapshot is for model %q, want %q", meta.Model, model)
	}
	return a, int64(meta.Seq), nil
}

func saveSnapshot(path string, idx index.Index, model string, hw int64) error {
	err := index.SaveFlatFile(path, idx, index.SnapshotMeta{Model: model, Seq: uint64(hw)})
	if errors.Is(err, index.ErrExact) {
		return nil
	}
	return err
}
