package index

import (
	"context"
	"fmt"
	"math/rand"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/hnsw"
)

// Defaults for HNSWConfig, chosen by the measurements in README.md.
const (
	DefaultM        = 32
	DefaultMl       = 0.25
	DefaultEfSearch = 256
)

// Names under which the wrapper's distance functions are registered with
// coder/hnsw, which records the name in exported graphs.
const (
	distCosine = "loci-cosine"
	distL2     = "loci-l2"
)

func init() {
	hnsw.RegisterDistanceFunc(distCosine, Cosine.distance)
	hnsw.RegisterDistanceFunc(distL2, L2.distance)
}

// HNSWConfig configures an HNSW index. Zero fields take the defaults.
type HNSWConfig struct {
	// M is coder/hnsw's maximum neighbour count per node and layer.
	M int
	// Ml is the level generation factor (each layer ~Ml times the one below).
	Ml float64
	// EfSearch is how many candidates a search asks the graph for before
	// exact re-ranking (at least k). coder/hnsw sizes its result set by
	// that count, which is what widens its search; its own EfSearch field
	// only caps the candidate queue and is set to the same value.
	EfSearch int
	// Metric compares vectors; default Cosine.
	Metric Metric
	// Seed seeds level generation; 0 uses the clock.
	Seed int64
	// MaxTombstoneRatio is the fraction of tombstoned rows above which
	// searches skip the graph and scan exactly (default 0.5).
	MaxTombstoneRatio float64
	// OnPanic, when set, is told about a panic recovered from coder/hnsw.
	// The index keeps answering exactly until Rebuild.
	OnPanic func(op string, err error)
}

func (c HNSWConfig) withDefaults() HNSWConfig {
	if c.M <= 0 {
		c.M = DefaultM
	}
	if c.Ml <= 0 || c.Ml >= 1 {
		c.Ml = DefaultMl
	}
	if c.EfSearch <= 0 {
		c.EfSearch = DefaultEfSearch
	}
	if !c.Metric.valid() {
		c.Metric = Cosine
	}
	if c.MaxTombstoneRatio <= 0 || c.MaxTombstoneRatio > 1 {
		c.MaxTombstoneRatio = 0.5
	}
	return c
}

// PanicError is a panic recovered from coder/hnsw.
type PanicError struct {
	Op    string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("hnsw %s: panic: %v", e.Op, e.Value) }

// HNSW is an approximate index over a coder/hnsw graph.
//
// Graph nodes are keyed by an internal row number, never by the caller's
// key, so the graph never sees a duplicate Add: re-adding a removed key
// makes a new row. Remove only tombstones a row; coder/hnsw's Delete is
// never called. Search asks the graph for EfSearch candidates, drops
// tombstones and disallowed keys, re-ranks by the exact metric and falls
// back to an exact scan when too few survive. Rebuild drops tombstones by
// building a fresh graph off-lock and swapping it in.
type HNSW struct {
	cfg HNSWConfig

	rebuildMu sync.Mutex // one Rebuild at a time

	mu       sync.RWMutex
	dim      int
	g        *hnsw.Graph[uint32] // nil until the first Add
	broken   bool                // a coder/hnsw call panicked; search exactly
	lastErr  error               // the panic that set broken
	arena    arena
	keys     []uint64    // row -> key
	vecs     [][]float32 // row -> vector (shared with the graph node)
	dead     []bool      // row -> tombstoned
	ndead    int
	rowOf    map[uint64]uint32 // live key -> row
	fallback atomic.Uint64
	panics   atomic.Uint64
}

var _ Index = (*HNSW)(nil)

// NewHNSW returns an empty HNSW index.
func NewHNSW(cfg HNSWConfig) *HNSW {
	return &HNSW{cfg: cfg.withDefaults(), rowOf: make(map[uint64]uint32)}
}

// Config returns the effective configuration.
func (h *HNSW) Config() HNSWConfig {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.cfg
}

func (h *HNSW) newGraph() *hnsw.Graph[uint32] {
	g := hnsw.NewGraph[uint32]()
	g.M, g.Ml, g.EfSearch = h.cfg.M, h.cfg.Ml, h.cfg.EfSearch
	g.Distance = Cosine.distance
	if h.cfg.Metric == L2 {
		g.Distance = L2.distance
	}
	seed := h.cfg.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	g.Rng = rand.New(rand.NewSource(seed))
	return g
}

// guard runs fn, turning a panic into a *PanicError reported to OnPanic.
func (h *HNSW) guard(op string, fn func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			h.panics.Add(1)
			err = &PanicError{Op: op, Value: v, Stack: debug.Stack()}
			if h.cfg.OnPanic != nil {
				h.cfg.OnPanic(op, err)
			}
		}
	}()
	if testHook != nil {
		testHook(op)
	}
	fn()
	return nil
}

// testHook, when set by a test, runs inside every guarded coder/hnsw call.
var testHook func(op string)

// Dim implements Index.
func (h *HNSW) Dim() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.dim
}

// Len implements Index.
func (h *HNSW) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.rowOf)
}

// Add implements Index. It returns false when key is live or vec is empty
// or of the wrong dimension. A panic inside coder/hnsw is recovered: the
// vector is kept, the index answers exactly and NeedsRebuild reports true.
func (h *HNSW) Add(key uint64, vec []float32) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(vec) == 0 || (h.dim != 0 && len(vec) != h.dim) {
		return false
	}
	if _, ok := h.rowOf[key]; ok {
		return false
	}
	if h.dim == 0 {
		h.dim = len(vec)
		h.arena.dim = len(vec)
	}
	if h.g == nil {
		h.g = h.newGraph()
	}
	h.addRow(h.g, key, h.arena.add(vec))
	return true
}

// addRow appends a row and inserts it into g. Caller holds mu.
func (h *HNSW) addRow(g *hnsw.Graph[uint32], key uint64, v []float32) {
	row := uint32(len(h.keys))
	h.keys = append(h.keys, key)
	h.vecs = append(h.vecs, v)
	h.dead = append(h.dead, false)
	h.rowOf[key] = row
	if h.broken {
		return
	}
	if err := h.guard("add", func() { g.Add(hnsw.MakeNode(row, v)) }); err != nil {
		h.broken, h.lastErr = true, err
	}
}

// Remove implements Index: the row is tombstoned, the graph untouched.
func (h *HNSW) Remove(key uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	row, ok := h.rowOf[key]
	if !ok {
		return
	}
	delete(h.rowOf, key)
	h.dead[row] = true
	h.ndead++
}

// HNSWStats describes an HNSW index's state.
type HNSWStats struct {
	Live, Tombstones int
	// Degraded is true after a recovered coder/hnsw panic: searches are
	// exact until Rebuild.
	Degraded bool
	// ExactFallbacks counts searches answered by the exact scan.
	ExactFallbacks uint64
	// Panics counts recovered coder/hnsw panics.
	Panics uint64
}

// Stats returns counters for monitoring and for deciding to Rebuild.
func (h *HNSW) Stats() HNSWStats {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return HNSWStats{
		Live: len(h.rowOf), Tombstones: h.ndead, Degraded: h.broken,
		ExactFallbacks: h.fallback.Load(), Panics: h.panics.Load(),
	}
}

// NeedsRebuild reports whether the graph is degraded or a fifth of its
// rows are tombstones.
func (h *HNSW) NeedsRebuild() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.broken || (h.ndead > 0 && 5*h.ndead >= len(h.keys))
}

// Search implements Index. See the type's doc for the strategy.
func (h *HNSW) Search(q []float32, k int, allow func(key uint64) bool) []Result {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if k <= 0 || h.dim == 0 || len(q) != h.dim || len(h.rowOf) == 0 {
		return nil
	}
	k = min(k, len(h.rowOf))
	if h.broken || h.g == nil || float64(h.ndead) > h.cfg.MaxTombstoneRatio*float64(len(h.keys)) {
		return h.exact(q, k, allow)
	}
	// Ask for more when tombstones will be dropped.
	want := max(h.cfg.EfSearch, k)
	want = min(len(h.keys), want*len(h.keys)/len(h.rowOf))
	var nodes []hnsw.Node[uint32]
	if err := h.guard("search", func() { nodes = h.g.Search(q, want) }); err != nil {
		return h.exact(q, k, allow)
	}
	top := newTopK(k)
	for _, n := range nodes {
		row := n.Key
		if int(row) >= len(h.keys) || h.dead[row] {
			continue
		}
		key := h.keys[row]
		if allow != nil && !allow(key) {
			continue
		}
		top.push(key, h.cfg.Metric.rank(q, h.vecs[row]))
	}
	if !top.full() && len(nodes) < len(h.keys) {
		// The filters ate the candidates; the graph cannot say where the
		// remaining allowed keys are.
		return h.exact(q, k, allow)
	}
	return h.finish(&top)
}

func (h *HNSW) finish(top *topK) []Result {
	out := top.sorted()
	for i := range out {
		out[i].Score = h.cfg.Metric.finalScore(out[i].Score)
	}
	return out
}

// exact scans every live row. Caller holds mu (read).
func (h *HNSW) exact(q []float32, k int, allow func(uint64) bool) []Result {
	h.fallback.Add(1)
	top := newTopK(k)
	for row, v := range h.vecs {
		if h.dead[row] {
			continue
		}
		key := h.keys[row]
		if allow != nil && !allow(key) {
			continue
		}
		s := h.cfg.Metric.rank(q, v)
		if !top.full() || s >= top.min() {
			top.push(key, s)
		}
	}
	return h.finish(&top)
}

// SearchExact answers by an exact scan whatever the graph's state: seed
// 003's L3 layer.
func (h *HNSW) SearchExact(q []float32, k int, allow func(key uint64) bool) []Result {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if k <= 0 || h.dim == 0 || len(q) != h.dim || len(h.rowOf) == 0 {
		return nil
	}
	return h.exact(q, min(k, len(h.rowOf)), allow)
}

// Rebuild builds a fresh graph of the live rows without holding the lock,
// then swaps it in, adding rows that arrived meanwhile and honouring
// removals made meanwhile. Tombstones and the degraded state are cleared.
// It returns ctx.Err() if cancelled (the old graph stays) and a
// *PanicError if coder/hnsw panicked.
func (h *HNSW) Rebuild(ctx context.Context) error {
	h.rebuildMu.Lock()
	defer h.rebuildMu.Unlock()

	h.mu.RLock()
	n0 := len(h.keys)
	rows := make([]uint32, 0, len(h.rowOf))
	for row := range n0 {
		if !h.dead[row] {
			rows = append(rows, uint32(row))
		}
	}
	vecs := h.vecs[:n0:n0] // rows below n0 are immutable
	keys := h.keys[:n0:n0]
	dim := h.dim
	h.mu.RUnlock()
	if dim == 0 {
		return nil
	}

	fresh := &HNSW{cfg: h.cfg, dim: dim, rowOf: make(map[uint64]uint32, len(rows))}
	fresh.arena.dim = dim
	fresh.g = h.newGraph()
	for i, row := range rows {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		fresh.addRow(fresh.g, keys[row], fresh.arena.add(vecs[row]))
		if fresh.broken {
			return fmt.Errorf("rebuild: %w", fresh.lastErr)
		}
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	for i, row := range rows { // removed during the build
		if h.dead[row] {
			fresh.dead[i] = true
			fresh.ndead++
			delete(fresh.rowOf, keys[row])
		}
	}
	for row := n0; row < len(h.keys); row++ { // added during the build
		if !h.dead[row] {
			fresh.addRow(fresh.g, h.keys[row], fresh.arena.add(h.vecs[row]))
		}
	}
	if fresh.broken {
		return fmt.Errorf("rebuild: %w", fresh.lastErr)
	}
	h.g, h.broken, h.lastErr, h.arena = fresh.g, false, nil, fresh.arena
	h.keys, h.vecs, h.dead, h.ndead, h.rowOf = fresh.keys, fresh.vecs, fresh.dead, fresh.ndead, fresh.rowOf
	return nil
}

// SetEfSearch changes EfSearch for later searches.
func (h *HNSW) SetEfSearch(ef int) {
	if ef <= 0 {
		ef = DefaultEfSearch
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cfg.EfSearch = ef
	if h.g != nil {
		h.g.EfSearch = ef
	}
}
