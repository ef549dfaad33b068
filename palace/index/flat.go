package index

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// FlatConfig configures a Flat index. The zero value is a float32 cosine
// index.
type FlatConfig struct {
	// Metric compares vectors; default Cosine.
	Metric Metric
	// Int8 stores each vector as int8 codes with one float32 scale instead
	// of float32 values: a quarter of the memory and a faster scan, at the
	// price of approximate scores (see README.md for measured recall).
	// Vector returns the decoded approximation.
	Int8 bool
	// Rerank, with Int8, keeps the float32 vectors as well and re-scores
	// the best 4k int8 candidates exactly: the scan runs at int8 speed and
	// the answer is (nearly always) exact, for 5 bytes per dimension.
	Rerank bool
	// Graph, with Int8, builds a navigable graph over the rows once the
	// index is large enough (GraphConfig.Min) and answers Search from it;
	// SearchExact still scans. Ignored without Int8.
	Graph GraphConfig
	// Project, with a graph, is the width of the projected first stage
	// (project.go) that Calibrate builds and may choose over the graph;
	// 0: none. The palace uses DefaultProjectDims.
	Project int
	// DeferGraph starts the index with its graph left to the caller (see
	// Flat.DeferGraph): a snapshot loaded without the graph it should
	// have is not given one at load either.
	DeferGraph bool
}

// rerankFactor is how many int8 candidates per wanted result Rerank
// re-scores.
const rerankFactor = 4

// Flat is an exact index: one contiguous row-major slice scanned in full
// by every search. Removed rows go on a free list and are reused by later
// Adds; when more than half of the rows are free the storage is compacted.
type Flat struct {
	mu  sync.RWMutex
	cfg FlatConfig
	dim int

	data   rowStore[float32] // float32 rows (float32 or Rerank mode)
	codes  rowStore[int8]    // int8 code rows (Int8 mode)
	scales []float32         // per row (Int8 mode)
	norms  []float32         // per row squared norm of the original (Int8 and L2)

	keys  []uint64 // row -> key
	dead  []bool   // row -> free
	rowOf map[uint64]int
	free  []int

	mapped *mapping // the snapshot data and codes point into, if any

	// g is the graph over the rows once built (Int8 only). While it
	// exists rows are never reused or moved: a removed row stays as a
	// waypoint until the next rebuild.
	g    *graph
	tomb int // rows removed since the graph was built
	// asideGraph is that the graph is not built here when the rows reach
	// the threshold (DeferGraph): the caller builds it (BuildGraph).
	// building is that BuildGraph is linking the rows without the lock:
	// meanwhile, as with a graph, rows are never reused or moved.
	asideGraph bool
	building   bool

	// pj is the projected first stage once built (only beside a graph,
	// and dropped when the graph is rebuilt).
	pj *projection

	// erased are removed rows whose vectors must not be written again
	// (Erase): while a graph exists removed rows stay stored, and a
	// snapshot writes a live neighbour's vectors in their place.
	erased map[int]bool

	// graph searches, the rows they scored and the rows their beams held
	searches, scored, beamRows atomic.Int64
}

var _ Index = (*Flat)(nil)

// NewFlat returns an empty exact index.
func NewFlat(cfg FlatConfig) *Flat {
	if !cfg.Metric.valid() {
		cfg.Metric = Cosine
	}
	if !cfg.Int8 {
		cfg.Rerank = false
		cfg.Graph.Min = -1
	}
	if cfg.Graph.Min < 0 || cfg.Project < 0 {
		cfg.Project = 0
	}
	return &Flat{cfg: cfg, rowOf: make(map[uint64]int), asideGraph: cfg.DeferGraph}
}

// Dim implements Index.
func (f *Flat) Dim() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.dim
}

// Len implements Index.
func (f *Flat) Len() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.rowOf)
}

// Add implements Index. It returns false when key is present or vec is
// empty or of the wrong dimension.
func (f *Flat) Add(key uint64, vec []float32) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	row, ok := f.put(key, vec)
	if !ok {
		return false
	}
	switch {
	case f.g != nil:
		f.g.insert(f, row)
		f.recool() // linking it read its neighbours' codes through the mapping
		f.releaseMovedGraph()
	case f.graphDue():
		f.buildGraph()
	}
	return true
}

// graphDue reports whether f has no graph and should build one now.
// Caller holds mu.
func (f *Flat) graphDue() bool { return !f.asideGraph && !f.building && f.graphWanted() }

// graphWanted reports whether f has no graph and has reached the rows at
// which it should have one. Caller holds mu.
func (f *Flat) graphWanted() bool {
	m := f.cfg.Graph.minRows(f.dim)
	return f.g == nil && m >= 0 && len(f.rowOf) >= m
}

// DeferGraph (aside) has f not build its graph when its rows reach the
// threshold: the build takes the write lock for as long as it links every
// row (tens of seconds at 100k rows of 996 dimensions), and every search
// would wait for it. The caller has it built by BuildGraph instead, when
// GraphWanted says so. DeferGraph (!aside) has f build its graph itself
// again, at once when it is due.
func (f *Flat) DeferGraph(aside bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asideGraph = aside
	if f.graphDue() {
		f.buildGraph()
	}
}

// GraphWanted reports whether f has no graph and has reached the rows at
// which it would build one (see DeferGraph).
func (f *Flat) GraphWanted() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.graphWanted()
}

// graphAttachRows is how many rows BuildGraph leaves to link under the
// write lock, once the rest are linked: about 13 ms of linking at 996
// dimensions on two cores, the time a search takes.
const graphAttachRows = 64

// graphChunk is how many rows BuildGraph links between looks at its
// context: 0.3-0.5 s at 996 dimensions on two cores (0.15-0.25 ms a row),
// the longest a palace that closes (a hook's process, on its way out)
// waits for the build it cancels.
const graphChunk = 2048

// graphPasses bounds BuildGraph's passes over the rows added while it
// linked the ones before: each is far shorter than the one before it
// unless rows come faster than they are linked (some 5,000 a second at 996
// dimensions on two cores), and then the last pass is linked under the
// lock.
const graphPasses = 8

// BuildGraph builds the graph of an index that defers it (DeferGraph),
// over the index's own rows and without holding its lock while it links:
// searches, adds and removals go on meanwhile (searches scan). The rows
// stay where they are: none is reused or moved while it builds, so a row
// removed meanwhile, or left free before, becomes a waypoint of the graph
// as any row removed from a graph does. It links the rows f holds when it
// begins, then in further passes those added meanwhile, and once at most
// graphAttachRows remain links them under the write lock, where the graph
// starts to answer searches, held off until calibrated (HoldGraph) as any
// new graph. It needs the graph's memory only: building an index with the
// graph from the vectors would hold a second copy of every code.
//
// It returns ctx's error when cancelled, leaving f as it was, and does
// nothing when f has a graph, is building one or holds no int8 codes.
func (f *Flat) BuildGraph(ctx context.Context) error {
	f.mu.Lock()
	if f.g != nil || f.building || !f.cfg.Int8 {
		f.mu.Unlock()
		return nil
	}
	f.building = true
	f.mu.Unlock()
	g := newGraph(f.cfg.Graph)
	done := 0
	for range graphPasses {
		f.mu.RLock()
		n, view := len(f.keys), f.frozen()
		f.mu.RUnlock()
		if n-done <= graphAttachRows {
			break
		}
		for lo := done; lo < n; lo += graphChunk {
			if err := ctx.Err(); err != nil {
				f.stopBuilding()
				return err
			}
			g.build(view, lo, min(lo+graphChunk, n), runtime.GOMAXPROCS(0))
		}
		done = n
		if buildPassHook != nil {
			buildPassHook()
		}
	}
	if g.unwalked > 0 {
		// The walk that finds the rows a parallel build left unreachable
		// visits every row (Relink): here, not under the lock. The last
		// rows are linked one at a time, which leaves none.
		f.mu.RLock()
		view := f.frozen()
		f.mu.RUnlock()
		g.relinkUnreachable(view)
	}
	if err := ctx.Err(); err != nil {
		f.stopBuilding()
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	g.build(f, done, len(f.keys), 1)
	f.g, f.building, f.tomb, f.free = g, false, 0, nil
	for _, d := range f.dead {
		if d {
			f.tomb++
		}
	}
	if g.calRows == 0 {
		g.off = true // until calibrated (HoldGraph)
	}
	f.recool() // the build read every code, through the mapping too
	return nil
}

// buildPassHook, when set (by tests), runs after each of BuildGraph's
// passes, without f's lock.
var buildPassHook func()

// frozen is a view of f's rows for BuildGraph to link without f's lock:
// it shares their codes, scales and norms, which no change reaches while
// f is building (rows are appended past them, into storage of f's own
// once it grows), and keeps the mapping they may point into alive.
// Caller holds mu.
func (f *Flat) frozen() *Flat {
	v := &Flat{cfg: f.cfg, dim: f.dim, codes: f.codes, scales: f.scales, norms: f.norms, mapped: f.mapped}
	v.codes.blocks = slices.Clone(f.codes.blocks) // f's own list of blocks changes as it grows
	return v
}

// stopBuilding ends a cancelled BuildGraph: the rows removed meanwhile
// are free again.
func (f *Flat) stopBuilding() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.building = false
	f.freeDead()
}

// freeDead puts every removed row on the free list. Caller holds mu.
func (f *Flat) freeDead() {
	f.free = f.free[:0]
	for row, d := range f.dead {
		if d {
			f.free = append(f.free, row)
		}
	}
}

// put stores vec under key in a row (a free one when there is no graph)
// and reports the row; false when key is present or vec is empty or of
// the wrong dimension. It leaves the graph alone. Caller holds mu.
func (f *Flat) put(key uint64, vec []float32) (int, bool) {
	if len(vec) == 0 || (f.dim != 0 && len(vec) != f.dim) {
		return 0, false
	}
	if _, ok := f.rowOf[key]; ok {
		return 0, false
	}
	if f.dim == 0 {
		f.setDim(len(vec))
	}
	row := -1
	if n := len(f.free); n > 0 && f.g == nil && !f.building {
		row, f.free = f.free[n-1], f.free[:n-1]
		f.keys[row], f.dead[row] = key, false
		delete(f.erased, row)
	} else {
		row = len(f.keys)
		f.keys = append(f.keys, key)
		f.dead = append(f.dead, false)
		if f.cfg.Int8 {
			f.codes.push(nil)
			f.scales = append(f.scales, 0)
			f.norms = append(f.norms, 0)
		}
		if f.floats() {
			f.data.push(nil)
		}
	}
	f.store(row, vec)
	if f.pj != nil { // rows are appended while there is a graph
		f.pj.grow(row + 1)
		f.pj.encode(row, vec, make([]float32, f.pj.dims))
	}
	f.rowOf[key] = row
	return row, true
}

// AddBatch adds many vectors at once: as Add for each, but a graph links
// the new rows on every core. It returns how many keys were new.
func (f *Flat) AddBatch(keys []uint64, vecs [][]float32) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	lo, added := len(f.keys), 0
	for i, k := range keys {
		if _, ok := f.put(k, vecs[i]); ok {
			added++
		}
	}
	switch {
	case f.g != nil:
		f.g.build(f, lo, len(f.keys), runtime.GOMAXPROCS(0))
		f.recool() // linking them read their neighbours' codes through the mapping
		f.releaseMovedGraph()
	case f.graphDue():
		f.buildGraph()
	}
	return added
}

// Relink links again the rows that parallel builds since the last walk
// of the graph left unreachable (a build walks only once a sixteenth of
// the graph is new; see walkGrowth). A caller adding many batches calls
// it when it is done; without a graph, or with nothing new, it does
// nothing.
func (f *Flat) Relink() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.g != nil && f.g.unwalked > 0 {
		f.g.relinkUnreachable(f)
	}
}

// buildGraph compacts the rows and builds the graph over all of them.
// Caller holds mu for writing.
func (f *Flat) buildGraph() {
	if len(f.free) > 0 {
		f.compact()
	}
	g := newGraph(f.cfg.Graph)
	g.build(f, 0, len(f.keys), runtime.GOMAXPROCS(0))
	f.g = g
}

// Reserve makes room for n more rows of dim floats, so that loading many
// vectors does not grow the arrays step by step.
func (f *Flat) Reserve(n, dim int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dim != 0 && f.dim != dim || n <= 0 || dim <= 0 {
		return
	}
	if f.dim == 0 {
		f.setDim(dim)
	}
	f.keys = slices.Grow(f.keys, n)
	f.dead = slices.Grow(f.dead, n)
	if len(f.rowOf) == 0 {
		f.rowOf = make(map[uint64]int, len(f.keys)+n)
	}
	if f.cfg.Int8 {
		f.codes.reserve(n)
		f.scales = slices.Grow(f.scales, n)
		f.norms = slices.Grow(f.norms, n)
	}
	if f.floats() {
		f.data.reserve(n)
	}
}

// setDim fixes the dimension, on the first vector. Caller holds mu.
func (f *Flat) setDim(dim int) {
	f.dim = dim
	f.data, f.codes = newRowStore[float32](dim), newRowStore[int8](dim)
}

// floats reports whether float32 rows are kept.
func (f *Flat) floats() bool { return !f.cfg.Int8 || f.cfg.Rerank }

func (f *Flat) store(row int, vec []float32) {
	if f.floats() {
		copy(f.data.row(row), vec)
	}
	if f.cfg.Int8 {
		f.scales[row] = quantize(f.codes.row(row), vec)
		f.norms[row] = dot(vec, vec)
	}
}

// Remove implements Index.
func (f *Flat) Remove(key uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	row, ok := f.rowOf[key]
	if !ok {
		return
	}
	delete(f.rowOf, key)
	f.dead[row] = true
	if f.g != nil {
		// The row stays in the graph as a waypoint. When the dead
		// outnumber the living the graph is rebuilt over the living; an
		// index that defers its graph drops it and compacts its rows, and
		// the caller builds it again (BuildGraph): rebuilt here, it held
		// the write lock for as long as the first build would.
		f.tomb++
		if f.tomb >= 1024 && 2*f.tomb > len(f.keys) {
			f.compactRows()
		}
		return
	}
	if f.building {
		return // the row stays where it is, a waypoint of the graph being built
	}
	f.free = append(f.free, row)
	if len(f.free) >= 1024 && 2*len(f.free) > len(f.keys) {
		f.compact()
	}
}

// Compact drops the removed rows f keeps (a graph's waypoints, free rows)
// and moves the living together. A graph goes with them (its links name
// rows by number): f builds it again at once over the living or, when it
// defers its graph (DeferGraph), leaves that to BuildGraph. It does
// nothing while BuildGraph runs.
func (f *Flat) Compact() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.building {
		f.compactRows()
	}
}

// compactRows is Compact. Caller holds mu.
func (f *Flat) compactRows() {
	f.g, f.pj, f.tomb = nil, nil, 0 // rows move: the projection is built again
	f.freeDead()
	if len(f.free) > 0 {
		f.compact()
	}
	if f.graphDue() {
		f.buildGraph()
	}
}

// Erase removes key as Remove does, and makes sure no snapshot written
// from now on holds its vector: a row that stays stored as a graph's
// waypoint is written with a live neighbour's vectors instead (the
// waypoint stays near where it was; the vector of an erased text leaves
// the disk with the next snapshot). The vectors in memory are left as
// they are: a mapped snapshot's pages are never written.
func (f *Flat) Erase(key uint64) {
	f.mu.RLock()
	row, ok := f.rowOf[key]
	f.mu.RUnlock()
	if !ok {
		return
	}
	f.Remove(key)
	f.mu.Lock()
	defer f.mu.Unlock()
	if row < len(f.keys) && f.dead[row] && f.keys[row] == key {
		if f.erased == nil {
			f.erased = map[int]bool{}
		}
		f.erased[row] = true
	}
}

// EraseRemoved marks every removed row that a graph keeps as a waypoint
// as erased (see Erase): after a text was erased, the rows removed before
// (a memory forgotten, then purged) must not be written again either.
func (f *Flat) EraseRemoved() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for row, d := range f.dead {
		if d {
			if f.erased == nil {
				f.erased = map[int]bool{}
			}
			f.erased[row] = true
		}
	}
}

// Keys calls fn with the key of every live row, in no particular order.
func (f *Flat) Keys(fn func(key uint64)) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for row, k := range f.keys {
		if !f.dead[row] {
			fn(k)
		}
	}
}

// stand is the row whose vectors a snapshot writes for row: row itself,
// or for an erased row a live neighbour in the graph (any live row when
// it has none), -1 when no row is live. Caller holds mu.
func (f *Flat) stand(row int) int {
	if !f.erased[row] {
		return row
	}
	if f.g != nil && (row+1)*(f.g.m0+1) <= len(f.g.links0) {
		nb := f.g.links(uint32(row), 0)
		for _, r := range nb[1 : 1+nb[0]] {
			if !f.dead[r] {
				return int(r)
			}
		}
	}
	for r, d := range f.dead {
		if !d {
			return r
		}
	}
	return -1
}

// compact drops free rows and shrinks the storage. Caller holds mu.
func (f *Flat) compact() {
	n := len(f.rowOf)
	keys := make([]uint64, 0, n)
	dead := make([]bool, n)
	data, codes := newRowStore[float32](f.dim), newRowStore[int8](f.dim)
	var scales, norms []float32
	if f.cfg.Int8 {
		codes.reserve(n)
		scales = make([]float32, 0, n)
		norms = make([]float32, 0, n)
	}
	if f.floats() {
		data.reserve(n)
	}
	for row, k := range f.keys {
		if f.dead[row] {
			continue
		}
		f.rowOf[k] = len(keys)
		keys = append(keys, k)
		if f.cfg.Int8 {
			codes.push(f.codes.row(row))
			scales = append(scales, f.scales[row])
			norms = append(norms, f.norms[row])
		}
		if f.floats() {
			data.push(f.data.row(row))
		}
	}
	f.keys, f.dead, f.free, f.erased = keys, dead, nil, nil
	f.data, f.codes, f.scales, f.norms = data, codes, scales, norms
	f.pj = nil     // its codes are by row; Calibrate builds it again
	f.mapped = nil // nothing points into a mapped snapshot any more
}

// layout is the snapshot layout of f's configuration.
func (f *Flat) layout() uint32 {
	var l uint32
	if f.cfg.Int8 {
		l |= layoutCodes
	}
	if f.floats() {
		l |= layoutFloats
	}
	return l
}

// Vector returns a copy of the stored vector for key (decoded from its
// int8 codes in Int8 mode).
func (f *Flat) Vector(key uint64) ([]float32, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	row, ok := f.rowOf[key]
	if !ok {
		return nil, false
	}
	return f.vector(row), true
}

func (f *Flat) vector(row int) []float32 {
	out := make([]float32, f.dim)
	f.vectorInto(out, row)
	return out
}

// vectorInto decodes row into v (dim floats).
func (f *Flat) vectorInto(v []float32, row int) {
	if f.floats() {
		copy(v, f.data.row(row))
		return
	}
	s := f.scales[row]
	for i, c := range f.codes.row(row) {
		v[i] = s * float32(c)
	}
}

// Each calls fn for every live key and a copy of its vector, in storage
// order, under the read lock (fn must not call back into f). It stops when
// fn returns false.
func (f *Flat) Each(fn func(key uint64, vec []float32) bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for row, k := range f.keys {
		if f.dead[row] {
			continue
		}
		if !fn(k, f.vector(row)) {
			return
		}
	}
}

// Search implements Index: from the graph or the projection, whichever
// calibration switched on, otherwise (and whenever they find fewer than k
// allowed rows) by an exact scan. allow is consulted before a row is
// scored.
func (f *Flat) Search(q []float32, k int, allow func(key uint64) bool) []Result {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if k = f.wanted(q, k); k == 0 {
		return nil
	}
	return f.searchLocked(q, k, allow)
}

// searchLocked is Search for k in [1, Len]. Caller holds mu.
func (f *Flat) searchLocked(q []float32, k int, allow func(key uint64) bool) []Result {
	if f.g != nil && !f.g.off {
		if out, ok := f.searchGraph(q, k, allow); ok {
			return out
		}
	}
	if f.pj.usable() {
		if out, ok := f.searchProj(q, k, f.pj.candidates(k), allow); ok {
			return out
		}
	}
	return f.searchExact(q, k, allow)
}

// wanted is how many results a search for k returns: k, at most the live
// rows, and 0 for k ≤ 0, an empty index or a query of another dimension.
// Caller holds mu.
func (f *Flat) wanted(q []float32, k int) int {
	if k <= 0 || f.dim == 0 || len(q) != f.dim {
		return 0
	}
	return min(k, len(f.rowOf))
}

// SearchExact answers by an exact scan even when there is a graph.
func (f *Flat) SearchExact(q []float32, k int, allow func(key uint64) bool) []Result {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if k = f.wanted(q, k); k == 0 {
		return nil
	}
	return f.searchExact(q, k, allow)
}

// searchGraph answers from the graph; ok is false when it found fewer
// than k rows that allow admits (a selective filter), and the caller
// scans instead. Caller holds mu.
func (f *Flat) searchGraph(q []float32, k int, allow func(key uint64) bool) ([]Result, bool) {
	return f.searchGraphEf(q, k, f.g.cfg.EfSearch, allow)
}

func (f *Flat) searchGraphEf(q []float32, k, ef int, allow func(key uint64) bool) ([]Result, bool) {
	sc := f.queryScorer(q)
	ef = max(ef, k)
	if f.cfg.Rerank {
		ef = max(ef, rerankFactor*k)
	}
	// Removed rows still fill the beam; widen it so that it holds as many
	// live rows as it would without them (at most 2×: past half dead the
	// graph is rebuilt).
	ef = ef * len(f.keys) / len(f.rowOf)
	found := f.g.search(f, &sc, ef, func(row int) bool {
		return f.dead[row] || (allow != nil && !allow(f.keys[row]))
	})
	f.searches.Add(1)
	f.scored.Add(sc.n)
	f.beamRows.Add(int64(ef))
	if len(found) < k {
		return nil, false
	}
	top := newTopK(k)
	for _, c := range found {
		s := c.s
		if f.cfg.Rerank {
			s = f.cfg.Metric.rank(q, f.data.row(int(c.row)))
		}
		top.push(f.keys[c.row], s)
	}
	out := top.sorted()
	for i := range out {
		out[i].Score = f.cfg.Metric.finalScore(out[i].Score)
	}
	return out, true
}

// searchExact scans every row. Caller holds mu; k is in [1, Len].
func (f *Flat) searchExact(q []float32, k int, allow func(key uint64) bool) []Result {
	var top topK
	switch {
	case f.cfg.Rerank:
		cand := newTopK(min(rerankFactor*k, len(f.rowOf)))
		f.scanInt8(q, &cand, allow)
		top = newTopK(k)
		for _, c := range cand.h {
			row := f.rowOf[c.Key]
			top.push(c.Key, f.cfg.Metric.rank(q, f.data.row(row)))
		}
	case f.cfg.Int8:
		top = newTopK(k)
		f.scanInt8(q, &top, allow)
	default:
		top = newTopK(k)
		f.scan(q, &top, allow)
	}
	f.recool()
	out := top.sorted()
	for i := range out {
		out[i].Score = f.cfg.Metric.finalScore(out[i].Score)
	}
	return out
}

func (f *Flat) scan(q []float32, top *topK, allow func(uint64) bool) {
	l2 := f.cfg.Metric == L2
	for row, key := range f.keys {
		if f.dead[row] || (allow != nil && !allow(key)) {
			continue
		}
		v := f.data.row(row)
		var s float32
		if l2 {
			s = -l2sq(q, v)
		} else {
			s = dot(q, v)
		}
		if !top.full() || s >= top.min() {
			top.push(key, s)
		}
	}
}

// maxPreadRows is the most rows a search reads from a cold snapshot file
// one by one (at ~3 µs a row); more are read through the mapping.
const maxPreadRows = 4096

// parallelScanWork is the number of int8 multiply-adds (rows × dim) above
// which a scan is split across cores: below it, starting goroutines costs
// more than it saves. At 100k × 384 a scan is memory-bound at ~2.5 ms on
// one core.
const parallelScanWork = 1 << 22

func (f *Flat) scanInt8(q []float32, top *topK, allow func(uint64) bool) {
	qc := make([]int8, f.dim)
	qs := quantize(qc, q)
	qn := dot(q, q)
	pq := prepare(qc)
	f.scanSplit(top, len(f.keys)*f.dim, func(lo, hi int, t *topK) {
		f.scanInt8Rows(pq, qs, qn, lo, hi, t, allow)
	})
}

// scanSplit runs scan over every row, split into ranges on up to
// scanParts(work) goroutines each keeping its own top list, and merges the
// lists into top. work is the scan's multiply-adds. Caller holds mu.
func (f *Flat) scanSplit(top *topK, work int, scan func(lo, hi int, top *topK)) {
	rows := len(f.keys)
	inParts(top, scanParts(work), func(i, parts int, t *topK) {
		scan(rows*i/parts, rows*(i+1)/parts, t)
	})
}

// inParts runs part i of parts for each i, on a goroutine of its own but
// the first, each keeping its own top list, and merges the lists into top:
// the same set one run over every part keeps, since worse() orders every
// pair of results, ties included.
func inParts(top *topK, parts int, part func(i, parts int, top *topK)) {
	if parts <= 1 {
		part(0, 1, top)
		return
	}
	tops := make([]topK, parts)
	var wg sync.WaitGroup
	for i := range tops {
		tops[i] = newTopK(top.k)
		if i == 0 {
			continue // the calling goroutine runs the first part
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			part(i, parts, &tops[i])
		}()
	}
	part(0, parts, &tops[0])
	wg.Wait()
	for _, t := range tops {
		for _, r := range t.h {
			top.push(r.Key, r.Score)
		}
	}
}

// scanParts is how many goroutines a scan of work multiply-adds is split
// across.
func scanParts(work int) int {
	return min(runtime.GOMAXPROCS(0), 8, work/parallelScanWork+1)
}

// scanChunk is how many rows' products the scan computes in one kernel
// call (they are contiguous within a block of the row store).
const scanChunk = 256

// scanInt8Rows scores rows [lo, hi) against the quantized query q.
func (f *Flat) scanInt8Rows(q *scanQuery, qs, qn float32, lo, hi int, top *topK, allow func(uint64) bool) {
	l2 := f.cfg.Metric == L2
	var prods [scanChunk]int32
	for r := lo; r < hi; {
		end := min(hi, r+scanChunk, (r>>rowBlockShift+1)<<rowBlockShift)
		out := prods[:end-r]
		dots(q, f.codes.rows(r, end), out)
		for i, d := range out {
			row := r + i
			key := f.keys[row]
			if f.dead[row] || (allow != nil && !allow(key)) {
				continue
			}
			s := qs * f.scales[row] * float32(d)
			if l2 {
				s = min(0, 2*s-qn-f.norms[row])
			}
			if !top.full() || s >= top.min() {
				top.push(key, s)
			}
		}
		r = end
	}
}
