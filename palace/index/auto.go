package index

import (
	"context"
	"errors"
	"sync"
)

// DefaultAutoThreshold is the live count at which Auto builds a graph,
// chosen by the measurements in README.md. Negative means never.
const DefaultAutoThreshold = -1

// ErrExact is returned by Auto.SaveFile while Auto is still exact: there
// is no graph worth saving, and the flat index rebuilds from SQLite in
// about the time a snapshot would take to load.
var ErrExact = errors.New("index is exact: nothing to snapshot")

// AutoConfig configures an Auto index.
type AutoConfig struct {
	// Threshold is the live count at which the HNSW graph is built in the
	// background. 0 takes DefaultAutoThreshold; negative never switches.
	Threshold int
	// HNSW configures the graph; its Metric is also the flat index's.
	HNSW HNSWConfig
	// Flat configures the exact index; nil takes DefaultAutoFlat. Its
	// Metric is replaced by HNSW.Metric. With Int8 and no Rerank the graph
	// would be built from decoded int8 approximations.
	Flat *FlatConfig
}

// DefaultAutoFlat is the exact index Auto uses unless told otherwise: an
// int8 scan re-ranked from float32 rows, exact in every measurement and
// ~3.6x faster than the float32 scan at 100k × 384 (README.md), for 25%
// more memory.
var DefaultAutoFlat = FlatConfig{Int8: true, Rerank: true}

// Mode is which index answers an Auto's searches.
type Mode int

const (
	ModeExact    Mode = iota // the flat index
	ModeBuilding             // the flat index, while a graph is built
	ModeHNSW                 // the graph
)

func (m Mode) String() string {
	return [...]string{"exact", "building", "hnsw"}[m]
}

// Auto is exact below a size threshold and HNSW above it. Crossing the
// threshold starts a background build from a snapshot of the flat index;
// the flat index keeps answering and records changes made meanwhile, which
// are replayed into the graph before it takes over. Once switched, Auto
// stays on the graph.
type Auto struct {
	cfg    AutoConfig
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.RWMutex
	flat  *Flat // nil once switched
	graph *HNSW // nil until switched
	// While building: changes applied to flat since the snapshot.
	building bool
	pending  []change
	done     chan struct{} // closed when the current build ends
}

type change struct {
	key    uint64
	vec    []float32 // nil for a removal
	remove bool
}

var _ Index = (*Auto)(nil)

// NewAuto returns an empty Auto index. Close stops a background build.
func NewAuto(cfg AutoConfig) *Auto {
	cfg.HNSW = cfg.HNSW.withDefaults()
	if cfg.Threshold == 0 {
		cfg.Threshold = DefaultAutoThreshold
	}
	fc := DefaultAutoFlat
	if cfg.Flat != nil {
		fc = *cfg.Flat
	}
	fc.Metric = cfg.HNSW.Metric
	ctx, cancel := context.WithCancel(context.Background())
	return &Auto{cfg: cfg, ctx: ctx, cancel: cancel, flat: NewFlat(fc)}
}

// LoadAutoFile loads an HNSW snapshot (see LoadHNSWFile) into an Auto
// already switched to the graph.
func LoadAutoFile(path string, cfg AutoConfig) (*Auto, SnapshotMeta, error) {
	h, meta, err := LoadHNSWFile(path, cfg.HNSW)
	if err != nil {
		return nil, meta, err
	}
	a := NewAuto(cfg)
	a.flat, a.graph = nil, h
	return a, meta, nil
}

// Close cancels a background build and waits for it. The index stays
// usable (exact if the build was cancelled).
func (a *Auto) Close() error {
	a.cancel()
	a.wg.Wait()
	return nil
}

// Mode reports which index answers searches.
func (a *Auto) Mode() Mode {
	a.mu.RLock()
	defer a.mu.RUnlock()
	switch {
	case a.graph != nil:
		return ModeHNSW
	case a.building:
		return ModeBuilding
	}
	return ModeExact
}

// WaitBuild blocks until no background build is running.
func (a *Auto) WaitBuild(ctx context.Context) error {
	a.mu.RLock()
	done := a.done
	a.mu.RUnlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Add implements Index.
func (a *Auto) Add(key uint64, vec []float32) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.graph != nil {
		return a.graph.Add(key, vec)
	}
	if !a.flat.Add(key, vec) {
		return false
	}
	if a.building {
		a.pending = append(a.pending, change{key: key, vec: append([]float32(nil), vec...)})
	} else if a.cfg.Threshold >= 0 && a.flat.Len() >= a.cfg.Threshold && a.ctx.Err() == nil {
		a.startBuild()
	}
	return true
}

// Reserve makes room for n more vectors of dim floats (see Flat.Reserve);
// it does nothing once the index is a graph.
func (a *Auto) Reserve(n, dim int) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.flat != nil {
		a.flat.Reserve(n, dim)
	}
}

// Remove implements Index.
func (a *Auto) Remove(key uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.graph != nil {
		a.graph.Remove(key)
		return
	}
	a.flat.Remove(key)
	if a.building {
		a.pending = append(a.pending, change{key: key, remove: true})
	}
}

// startBuild snapshots the flat index and builds the graph in the
// background. Caller holds mu.
func (a *Auto) startBuild() {
	type item struct {
		key uint64
		vec []float32
	}
	snap := make([]item, 0, len(a.flat.rowOf))
	a.flat.Each(func(k uint64, v []float32) bool {
		snap = append(snap, item{k, v})
		return true
	})
	a.building, a.pending, a.done = true, nil, make(chan struct{})
	done := a.done
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(done)
		h := NewHNSW(a.cfg.HNSW)
		for i, it := range snap {
			if i&255 == 0 && a.ctx.Err() != nil {
				break
			}
			h.Add(it.key, it.vec)
			snap[i].vec = nil
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		a.building = false
		if a.ctx.Err() != nil {
			a.pending = nil
			return
		}
		for _, c := range a.pending {
			if c.remove {
				h.Remove(c.key)
			} else {
				h.Add(c.key, c.vec)
			}
		}
		a.graph, a.flat, a.pending = h, nil, nil
	}()
}

// Search implements Index.
func (a *Auto) Search(q []float32, k int, allow func(key uint64) bool) []Result {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.graph != nil {
		return a.graph.Search(q, k, allow)
	}
	return a.flat.Search(q, k, allow)
}

// SearchExact answers by an exact scan in every mode.
func (a *Auto) SearchExact(q []float32, k int, allow func(key uint64) bool) []Result {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.graph != nil {
		return a.graph.SearchExact(q, k, allow)
	}
	return a.flat.SearchExact(q, k, allow)
}

// SearchKeys scores just the vectors of keys exactly (see
// Flat.SearchKeys); on a graph it scans with a filter.
func (a *Auto) SearchKeys(q []float32, k int, keys []uint64) []Result {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.graph != nil {
		set := make(map[uint64]struct{}, len(keys))
		for _, key := range keys {
			set[key] = struct{}{}
		}
		return a.graph.SearchExact(q, k, func(key uint64) bool { _, ok := set[key]; return ok })
	}
	return a.flat.SearchKeys(q, k, keys)
}

// Len implements Index.
func (a *Auto) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.graph != nil {
		return a.graph.Len()
	}
	return a.flat.Len()
}

// Dim implements Index.
func (a *Auto) Dim() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.graph != nil {
		return a.graph.Dim()
	}
	return a.flat.Dim()
}

// NeedsRebuild reports whether Rebuild would drop tombstones or repair a
// degraded graph. Always false while exact.
func (a *Auto) NeedsRebuild() bool {
	a.mu.RLock()
	g := a.graph
	a.mu.RUnlock()
	return g != nil && g.NeedsRebuild()
}

// Rebuild rebuilds the graph (see HNSW.Rebuild); a no-op while exact.
func (a *Auto) Rebuild(ctx context.Context) error {
	a.mu.RLock()
	g := a.graph
	a.mu.RUnlock()
	if g == nil {
		return nil
	}
	return g.Rebuild(ctx)
}

// SaveFile snapshots the graph (see HNSW.SaveFile). It returns ErrExact
// while Auto is not on the graph.
func (a *Auto) SaveFile(path string, meta SnapshotMeta) error {
	a.mu.RLock()
	g := a.graph
	a.mu.RUnlock()
	if g == nil {
		return ErrExact
	}
	return g.SaveFile(path, meta)
}

// Stats reports the graph's counters once switched; while exact, Live is
// the flat index's size and the rest is zero.
func (a *Auto) Stats() HNSWStats {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.graph != nil {
		return a.graph.Stats()
	}
	return HNSWStats{Live: a.flat.Len()}
}

// FlatStats reports the exact index's storage and graph (zero once Auto
// has switched to the coder/hnsw graph).
func (a *Auto) FlatStats() FlatStats {
	a.mu.RLock()
	f := a.flat
	a.mu.RUnlock()
	if f == nil {
		return FlatStats{}
	}
	return f.Stats()
}
