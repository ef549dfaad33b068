package index

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// A navigable small-world graph (HNSW, Malkov and Yashunin 2016) over a
// Flat index's int8 rows. It is written here rather than taken from
// github.com/coder/hnsw, whose search and pruning cannot reach high recall
// (README.md). What makes this one correct where that one is not:
//
//   - the layer search is a beam: it stops when the closest unexpanded
//     candidate is farther than the worst of ef results, and keeps ef
//     results, not k;
//   - a node's neighbours are chosen by the diversity heuristic (a
//     candidate is kept only if it is closer to the node than to every
//     neighbour already kept), so long edges between clusters survive;
//   - layer 0 holds 2M neighbours, the upper layers M.
//
// The graph stores no vectors: it scores through the Flat's int8 codes
// (one byte a dimension, which is all the memory a row costs besides its
// links), and its nodes are the Flat's rows. While a graph exists the
// Flat never reuses or moves a row; a removed row stays in the graph as a
// waypoint and is never returned.

// GraphConfig configures the graph a Flat builds over its rows.
type GraphConfig struct {
	// Min is the number of live rows at which the graph is built; below
	// it the exact scan is fast enough and the graph would only cost
	// memory. 0 takes DefaultGraphMin; negative never builds one.
	Min int
	// M is the number of neighbours per node on the upper layers (2M on
	// layer 0). 0 takes DefaultGraphM.
	M int
	// EfConstruction is the beam width when inserting. 0 takes
	// DefaultGraphEfConstruction.
	EfConstruction int
	// EfSearch is the beam width when searching; a search for k results
	// uses max(EfSearch, k). 0 takes DefaultGraphEfSearch.
	EfSearch int
}

// Defaults, chosen by the measurements in README.md ("Graph").
const (
	// DefaultGraphMin: below ~100M int8 multiply-adds (100k rows of 996
	// dimensions, 260k of 384) the parallel exact scan answers in a few
	// milliseconds; the graph is built only for rows × dim above that.
	// The threshold counts rows, so it is derived from the dimension at
	// build time (graphMinRows).
	DefaultGraphMin = 0
	// DefaultGraphWork is the rows × dim at which DefaultGraphMin builds.
	DefaultGraphWork           = 100_000_000
	DefaultGraphM              = 16
	DefaultGraphEfConstruction = 100
	DefaultGraphEfSearch       = 96
	graphMaxLevel              = 16
	graphMinRowsFloor          = 10_000
	graphNeighbourCapLayer     = 2 // layer 0 holds graphNeighbourCapLayer × M
)

func (c GraphConfig) withDefaults() GraphConfig {
	if c.M <= 0 {
		c.M = DefaultGraphM
	}
	if c.M > 255 {
		c.M = 255
	}
	if c.EfConstruction <= 0 {
		c.EfConstruction = DefaultGraphEfConstruction
	}
	if c.EfSearch <= 0 {
		c.EfSearch = DefaultGraphEfSearch
	}
	return c
}

// MinRows is the live row count at which a graph is built for vectors of
// dim dimensions (negative: never).
func (c GraphConfig) MinRows(dim int) int { return c.minRows(dim) }

func (c GraphConfig) minRows(dim int) int {
	switch {
	case c.Min < 0:
		return -1
	case c.Min > 0:
		return c.Min
	case dim <= 0:
		return -1
	}
	return max(graphMinRowsFloor, DefaultGraphWork/dim)
}

// graph is the HNSW structure. Its fields are guarded by the owning
// Flat's mutex: inserts hold it for writing, searches for reading.
type graph struct {
	cfg GraphConfig
	m0  int     // neighbours on layer 0
	ml  float64 // level multiplier, 1/ln(M)

	// links0 holds m0+1 words per row: the neighbour count, then the
	// neighbours. upper holds, for each row above layer 0, its layers
	// 1..level one after another, m+1 words each.
	links0 []uint32
	upper  map[uint32][]uint32
	levels []uint8
	entry  uint32
	top    int // level of entry; -1 while empty
	rng    uint64

	visits sync.Pool // *visited

	// Calibration (Calibrate): off means the exact scan answers Search
	// because the graph could not reach the recall target faster than
	// it; calRows is the live count it was measured at (0: never).
	off     bool
	calRows int
	// costOnly: the graph reached the target and was kept off by its cost
	// alone; retimed counts the times Retime has timed it again since.
	costOnly bool
	retimed  int

	// unwalked is the rows parallel builds linked since the last walk of
	// layer 0 (relinkUnreachable).
	unwalked int

	// During a parallel build (build), lk guards neighbour lists (row i
	// by lk[i%len(lk)]) and epMu the entry point; both are nil otherwise,
	// when the owning Flat's mutex serialises inserts.
	lk   []sync.Mutex
	epMu *sync.RWMutex
}

// lockStripes is the number of neighbour-list locks of a parallel build.
const lockStripes = 1 << 12

// neighbours returns row's neighbours on level l: a view of the list, or
// during a parallel build a copy into buf taken under the row's lock.
func (g *graph) neighbours(row uint32, l int, buf []uint32) []uint32 {
	nb := g.links(row, l)
	if g.lk == nil {
		return nb[1 : 1+nb[0]]
	}
	mu := &g.lk[row%lockStripes]
	mu.Lock()
	buf = append(buf[:0], nb[1:1+nb[0]]...)
	mu.Unlock()
	return buf
}

func (g *graph) lockRow(row uint32) func() {
	if g.lk == nil {
		return func() {}
	}
	mu := &g.lk[row%lockStripes]
	mu.Lock()
	return mu.Unlock
}

func (g *graph) entryPoint() (uint32, int) {
	if g.epMu != nil {
		g.epMu.RLock()
		defer g.epMu.RUnlock()
	}
	return g.entry, g.top
}

func newGraph(cfg GraphConfig) *graph {
	cfg = cfg.withDefaults()
	return &graph{
		cfg:   cfg,
		m0:    graphNeighbourCapLayer * cfg.M,
		ml:    1 / math.Log(float64(cfg.M)),
		upper: map[uint32][]uint32{},
		top:   -1,
		rng:   0x9E3779B97F4A7C15,
	}
}

// links returns row's neighbour list on level l: word 0 is the count.
func (g *graph) links(row uint32, l int) []uint32 {
	if l == 0 {
		o := int(row) * (g.m0 + 1)
		return g.links0[o : o+g.m0+1 : o+g.m0+1]
	}
	u := g.upper[row]
	o := (l - 1) * (g.cfg.M + 1)
	return u[o : o+g.cfg.M+1 : o+g.cfg.M+1]
}

func (g *graph) randomLevel() int {
	// xorshift64*: the graph's shape need not be reproducible across
	// processes, only well spread.
	g.rng ^= g.rng >> 12
	g.rng ^= g.rng << 25
	g.rng ^= g.rng >> 27
	r := g.rng * 2685821657736338717
	u := (float64(r>>11) + 0.5) / (1 << 53)
	return min(int(-math.Log(u)*g.ml), graphMaxLevel)
}

// grow makes room for rows up to n.
func (g *graph) grow(n int) {
	for len(g.levels) < n {
		g.levels = append(g.levels, 0)
		g.links0 = append(g.links0, make([]uint32, g.m0+1)...)
	}
}

// cand is a row and its similarity to the query (higher is closer).
type cand struct {
	row uint32
	s   float32
}

// visited marks rows seen by one search: a row is seen when its stamp
// equals the current generation, so clearing is one increment.
type visited struct {
	stamp []uint32
	gen   uint32
}

func (g *graph) getVisited(n int) *visited {
	v, _ := g.visits.Get().(*visited)
	if v == nil {
		v = &visited{}
	}
	if len(v.stamp) < n {
		v.stamp = make([]uint32, n+n/4)
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 { // wrapped: old stamps could collide
		clear(v.stamp)
		v.gen = 1
	}
	return v
}

// seen marks row and reports whether it was marked already.
func (v *visited) seen(row uint32) bool {
	if v.stamp[row] == v.gen {
		return true
	}
	v.stamp[row] = v.gen
	return false
}

// scorer scores rows against one query, by the Flat's int8 codes.
type scorer struct {
	f      *Flat
	qc     []int8
	qs, qn float32
	l2     bool
	n      int64 // rows scored
}

func (f *Flat) queryScorer(q []float32) scorer {
	qc := make([]int8, f.dim)
	qs := quantize(qc, q)
	return scorer{f: f, qc: qc, qs: qs, qn: dot(q, q), l2: f.cfg.Metric == L2}
}

// rowScorer scores rows against row r (for inserting r).
func (f *Flat) rowScorer(r int) scorer {
	return scorer{f: f, qc: f.codes.row(r), qs: f.scales[r], qn: f.norms[r], l2: f.cfg.Metric == L2}
}

func (s *scorer) score(row uint32) float32 { return s.scoreCodes(row, s.f.codes.row(int(row))) }

// scoreCodes scores row, whose codes are given.
func (s *scorer) scoreCodes(row uint32, codes []int8) float32 {
	f := s.f
	s.n++
	v := s.qs * f.scales[row] * float32(dotInt8(s.qc, codes))
	if s.l2 {
		v = min(0, 2*v-s.qn-f.norms[row])
	}
	return v
}

// pairScore is the similarity between two stored rows.
func (f *Flat) pairScore(a, b uint32) float32 {
	v := f.scales[a] * f.scales[b] * float32(dotInt8(f.codes.row(int(a)), f.codes.row(int(b))))
	if f.cfg.Metric == L2 {
		v = min(0, 2*v-f.norms[a]-f.norms[b])
	}
	return v
}

// candHeap is a binary heap over cand: with near set it pops the most
// similar first (the candidates to expand), otherwise the least similar
// (the results, whose worst is evicted).
type candHeap struct {
	a    []cand
	near bool
}

func (h *candHeap) before(i, j int) bool {
	if h.near {
		return h.a[i].s > h.a[j].s
	}
	return h.a[i].s < h.a[j].s
}

func (h *candHeap) push(c cand) {
	h.a = append(h.a, c)
	for i := len(h.a) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.before(i, p) {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}

func (h *candHeap) pop() cand {
	top := h.a[0]
	n := len(h.a) - 1
	h.a[0] = h.a[n]
	h.a = h.a[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.before(l, m) {
			m = l
		}
		if r < n && h.before(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h.a[i], h.a[m] = h.a[m], h.a[i]
		i = m
	}
	return top
}

// greedy walks level l from ep to the closest row it can reach (the
// descent through the upper layers, ef = 1).
func (g *graph) greedy(sc *scorer, ep cand, l int) cand {
	var buf []uint32
	for changed := true; changed; {
		changed = false
		buf = g.neighbours(ep.row, l, buf)
		for _, r := range buf {
			if s := sc.score(r); s > ep.s {
				ep, changed = cand{r, s}, true
			}
		}
	}
	return ep
}

// searchLayer is the beam search of level l from the entry points eps,
// keeping the ef best rows seen. It returns them in heap order.
func (g *graph) searchLayer(sc *scorer, eps []cand, ef, l int, vis *visited) []cand {
	cands := candHeap{a: make([]cand, 0, 2*ef), near: true}
	res := candHeap{a: make([]cand, 0, ef+1)} // res.a[0] is the worst kept
	for _, e := range eps {
		vis.seen(e.row)
		cands.push(e)
		res.push(e)
		if len(res.a) > ef {
			res.pop()
		}
	}
	var buf []uint32
	for len(cands.a) > 0 {
		c := cands.pop()
		if len(res.a) >= ef && c.s < res.a[0].s {
			break // the closest unexpanded candidate is worse than every result
		}
		buf = g.neighbours(c.row, l, buf)
		for _, r := range buf {
			if vis.seen(r) {
				continue
			}
			s := sc.score(r)
			if len(res.a) < ef || s > res.a[0].s {
				cands.push(cand{r, s})
				res.push(cand{r, s})
				if len(res.a) > ef {
					res.pop()
				}
			}
		}
	}
	return res.a
}

// selectNeighbours picks up to m of cands (any order) by the diversity
// heuristic: in order of similarity to the base, a candidate is kept
// unless it is more similar to a kept neighbour than to the base.
func (g *graph) selectNeighbours(f *Flat, cands []cand, m int) []cand {
	sortDesc(cands)
	out := make([]cand, 0, m)
	for _, c := range cands {
		if len(out) == m {
			break
		}
		keep := true
		for _, o := range out {
			if f.pairScore(c.row, o.row) > c.s {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}

// sortDesc sorts by descending similarity (insertion sort: lists are
// short, a few hundred at most).
func sortDesc(a []cand) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].s > a[j-1].s; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// insert adds row (already stored in f) to the graph. Caller holds f.mu
// for writing.
func (g *graph) insert(f *Flat, row int) {
	g.grow(row + 1)
	g.setLevel(uint32(row), g.randomLevel())
	g.connect(f, uint32(row))
}

// setLevel gives row its level and room for its upper-layer lists.
func (g *graph) setLevel(r uint32, level int) {
	g.levels[r] = uint8(level)
	if level > 0 {
		g.upper[r] = make([]uint32, level*(g.cfg.M+1))
	}
}

// connect links row (whose level is set) into the graph: the descent to
// its level, then on each of its layers a beam search for neighbours,
// chosen by the heuristic, with back edges.
func (g *graph) connect(f *Flat, r uint32) {
	level := int(g.levels[r])
	entry, top := g.entryPoint()
	if top < 0 { // the first row (a parallel build seeds serially)
		g.entry, g.top = r, level
		return
	}
	sc := f.rowScorer(int(r))
	ep := cand{entry, sc.score(entry)}
	for l := top; l > level; l-- {
		ep = g.greedy(&sc, ep, l)
	}
	vis := g.getVisited(len(g.levels))
	defer g.visits.Put(vis)
	eps := []cand{ep}
	for l := min(level, top); l >= 0; l-- {
		vis.gen++
		if vis.gen == 0 {
			clear(vis.stamp)
			vis.gen = 1
		}
		found := g.searchLayer(&sc, eps, g.cfg.EfConstruction, l, vis)
		eps = append(eps[:0], found...)
		m := g.cfg.M
		if l == 0 {
			m = g.m0
		}
		// A row another worker linked to already is found by its own
		// search; it is no neighbour of itself.
		others := make([]cand, 0, len(found))
		for _, c := range found {
			if c.row != r {
				others = append(others, c)
			}
		}
		chosen := g.selectNeighbours(f, others, m)
		unlock := g.lockRow(r)
		own := g.links(r, l)
		own[0] = uint32(len(chosen))
		for i, c := range chosen {
			own[1+i] = c.row
		}
		unlock()
		for _, c := range chosen {
			g.link(f, c.row, r, c.s, l, m)
		}
	}
	if level > top {
		if g.epMu != nil {
			g.epMu.Lock()
			defer g.epMu.Unlock()
		}
		if level > g.top {
			g.entry, g.top = r, level
		}
	}
}

// build inserts rows [lo, hi) of f, which hold their vectors already, on
// workers goroutines. Levels are drawn first, in row order, so the shape
// does not depend on scheduling; only who links first does. Caller holds
// f.mu for writing (searches wait; the rows do not change).
func (g *graph) build(f *Flat, lo, hi, workers int) {
	g.grow(hi)
	for r := lo; r < hi; r++ {
		g.setLevel(uint32(r), g.randomLevel())
	}
	// A graph of fewer than a thousand rows is grown in order first, so
	// that the workers start from a connected core rather than racing to
	// be the entry point.
	for ; lo < hi && (lo < 1000 || workers <= 1 || hi-lo < parallelBuildMin); lo++ {
		g.connect(f, uint32(lo))
	}
	if lo == hi {
		return
	}
	g.lk, g.epMu = make([]sync.Mutex, lockStripes), &sync.RWMutex{}
	var next atomic.Int64
	next.Store(int64(lo))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r := next.Add(1) - 1
				if r >= int64(hi) {
					return
				}
				g.connect(f, uint32(r))
			}
		}()
	}
	wg.Wait()
	g.lk, g.epMu = nil, nil
	g.unwalked += hi - lo
	if g.unwalked*walkGrowth >= len(g.levels) {
		g.relinkUnreachable(f)
	}
}

// walkGrowth bounds how often a build walks layer 0: a walk visits every
// row (a quarter of a second at 1M rows), so a build walks only once the
// rows linked in parallel since the last walk reach 1/walkGrowth of the
// graph, and the end of a batched load walks once more (Flat.Relink). A
// catch-up of a thousand batches then walks a few dozen times instead of
// once a batch.
const walkGrowth = 16

// relinkUnreachable links again, one at a time, the rows a search of
// layer 0 from the entry point can no longer reach. A parallel build
// leaves a few: two close rows linked at once do not see each other, so
// when a neighbour's list is full the heuristic drops one of them as
// covered by the other, which holds no edge to it. Serial inserts see
// every earlier row and do not leave such rows in practice.
//
// Linking again is not enough on its own: in a dense region (near-copies
// keep one or two neighbours) every neighbour whose list is full drops
// the row again by the same heuristic. At 1M rows of the default encoder
// 340 rows stayed unreachable through three rounds of it, and every later
// batch linked them again in vain. So a row still lost after that is
// pinned: a reachable neighbour keeps an edge to it whatever the
// heuristic says, in place of a neighbour that keeps another in-edge
// where it can (pin). The walk costs one pass over the links (a quarter
// of a second at 1M rows).
func (g *graph) relinkUnreachable(f *Flat) {
	g.unwalked = 0
	var pinned map[uint32]bool
	for round := range relinkRounds {
		seen, lost := g.reach()
		if len(lost) == 0 {
			return
		}
		if round == 0 {
			for _, r := range lost {
				g.connect(f, r)
			}
			if seen, lost = g.reach(); len(lost) == 0 {
				return
			}
			pinned = map[uint32]bool{}
		}
		indeg := g.inDegrees(seen)
		for _, r := range lost {
			g.pin(f, r, seen, indeg, pinned)
		}
	}
}

// relinkRounds bounds the walks of relinkUnreachable: the first links the
// lost rows again, the rest pin what is still lost (a pin can displace
// an edge another row needed; that row is pinned in the next round).
const relinkRounds = 8

// pin gives row r an in-edge on layer 0 from the most similar row seen
// reaches (of a search as wide as an insert's) that can take it: one
// whose list has room, or else one with a neighbour that has another
// in-edge from a reachable row (indeg counts them) and was not pinned
// itself, which r replaces (the least similar such). Where no row can,
// the most similar displaces its least similar neighbour that was not
// pinned itself. So two lost rows never take the same slot from each
// other in turn: a pinned row's other in-edge may come from a row reached
// only through it, and displacing it then lost it again, round after
// round (TestRelinkPinsNearCopies failed about once in 40 runs under
// load, 0 in 400 since).
func (g *graph) pin(f *Flat, r uint32, seen []bool, indeg []int32, pinned map[uint32]bool) {
	sc := f.rowScorer(int(r))
	ys := g.search(f, &sc, g.cfg.EfConstruction, func(row int) bool { return !seen[row] || row == int(r) })
	put := func(nb []uint32, i int) {
		if i == int(nb[0]) {
			nb[0]++
		} else {
			indeg[nb[1+i]]--
		}
		nb[1+i] = r
		indeg[r]++
		pinned[r] = true
	}
	// victim is the slot of y's least similar neighbour that ok allows;
	// the end of the list when it has room; -1 when none.
	victim := func(y uint32, nb []uint32, ok func(x uint32) bool) int {
		n := int(nb[0])
		if n < g.m0 {
			return n
		}
		worst, ws := -1, float32(0)
		for i, x := range nb[1 : 1+n] {
			if s := f.pairScore(y, x); ok(x) && (worst < 0 || s < ws) {
				worst, ws = i, s
			}
		}
		return worst
	}
	for _, y := range ys {
		nb := g.links(y.row, 0)
		if slices.Contains(nb[1:1+nb[0]], r) {
			return
		}
		if i := victim(y.row, nb, func(x uint32) bool { return indeg[x] > 1 && !pinned[x] }); i >= 0 {
			put(nb, i)
			return
		}
	}
	for _, y := range ys {
		nb := g.links(y.row, 0)
		if i := victim(y.row, nb, func(x uint32) bool { return !pinned[x] }); i >= 0 {
			put(nb, i)
			return
		}
	}
}

// inDegrees counts each row's in-edges on layer 0 from the rows seen
// marks (an edge from a row no walk reaches leads nowhere).
func (g *graph) inDegrees(seen []bool) []int32 {
	indeg := make([]int32, len(g.levels))
	for r, ok := range seen {
		if ok {
			for _, x := range g.neighbours(uint32(r), 0, nil) {
				indeg[x]++
			}
		}
	}
	return indeg
}

// unreachable lists the rows that layer 0's edges do not lead to from
// the entry point.
func (g *graph) unreachable() []uint32 {
	_, lost := g.reach()
	return lost
}

// reach walks layer 0 from the entry point: seen marks the rows its
// edges lead to, lost lists the others.
func (g *graph) reach() (seen []bool, lost []uint32) {
	if g.top < 0 {
		return nil, nil
	}
	seen = make([]bool, len(g.levels))
	seen[g.entry] = true
	stack := []uint32{g.entry}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, x := range g.neighbours(r, 0, nil) {
			if !seen[x] {
				seen[x] = true
				stack = append(stack, x)
			}
		}
	}
	for r, ok := range seen {
		if !ok {
			lost = append(lost, uint32(r))
		}
	}
	return seen, lost
}

// parallelBuildMin is the number of rows below which a build runs on one
// goroutine: the locks would cost more than the second core gives.
const parallelBuildMin = 256

// link adds the edge from → to on level l (s is their similarity), pruning
// from's list by the heuristic when it is full.
func (g *graph) link(f *Flat, from, to uint32, s float32, l, m int) {
	defer g.lockRow(from)()
	nb := g.links(from, l)
	n := int(nb[0])
	if slices.Contains(nb[1:1+n], to) { // a row linked again keeps its old in-edges
		return
	}
	if n < m {
		nb[1+n] = to
		nb[0]++
		return
	}
	cands := make([]cand, 0, n+1)
	for _, x := range nb[1 : 1+n] {
		cands = append(cands, cand{x, f.pairScore(from, x)})
	}
	cands = append(cands, cand{to, s})
	kept := g.selectNeighbours(f, cands, m)
	nb[0] = uint32(len(kept))
	for i, c := range kept {
		nb[1+i] = c.row
	}
}

// search returns up to ef rows closest to the query by the graph, best
// first, skipping rows for which skip is true (they still route).
func (g *graph) search(f *Flat, sc *scorer, ef int, skip func(row int) bool) []cand {
	if g.top < 0 {
		return nil
	}
	ep := cand{g.entry, sc.score(g.entry)}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(sc, ep, l)
	}
	vis := g.getVisited(len(g.levels))
	found := g.searchLayer(sc, []cand{ep}, ef, 0, vis)
	g.visits.Put(vis)
	out := make([]cand, 0, len(found))
	for _, c := range found {
		if !skip(int(c.row)) {
			out = append(out, c)
		}
	}
	sortDesc(out)
	return out
}

// bytes is the graph's memory: links, levels and upper layers.
func (g *graph) bytes() int64 {
	b := int64(4*len(g.links0) + len(g.levels))
	for _, u := range g.upper {
		b += int64(4*len(u)) + 48 // the map entry and slice header
	}
	return b
}

// FlatStats describes a Flat index's storage and graph.
type FlatStats struct {
	Rows int `json:"rows"` // stored rows, removed ones included
	Live int `json:"live"` // live keys
	// Erased counts the removed rows kept as waypoints whose vectors a
	// snapshot writes a neighbour's in place of (Erase, EraseRemoved).
	Erased     int   `json:"erased,omitempty"`
	Graph      int   `json:"graph_nodes"` // rows in the graph (0: no graph)
	GraphBytes int64 `json:"graph_bytes"`
	CodeBytes  int64 `json:"code_bytes"`          // int8 codes, scales and norms
	FloatBytes int64 `json:"float_bytes"`         // float32 rows kept
	GraphOff   bool  `json:"graph_off,omitempty"` // calibrated off: Search scans
	EfSearch   int   `json:"ef_search,omitempty"`
	Searches   int64 `json:"graph_searches"`
	// Scored is how many rows graph searches scored, in all (Scored /
	// Searches is the cost of one search).
	Scored int64 `json:"graph_scored"`
	// ProjectDims is the projection's width (0: none), ProjectBytes its
	// codes (4-bit, in chunks of 128 directions), ProjectCand the candidates a search re-scores
	// (0: not calibrated) and ProjectOff whether calibration left it off.
	ProjectDims  int   `json:"project_dims,omitempty"`
	ProjectBytes int64 `json:"project_bytes,omitempty"`
	ProjectCand  int   `json:"project_cand,omitempty"`
	ProjectOff   bool  `json:"project_off,omitempty"`
}

// Stats reports f's storage and graph counters.
// HasGraph reports whether f has built a graph over its rows (whether or
// not it answers Search), without the work Stats does.
func (f *Flat) HasGraph() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.g != nil
}

func (f *Flat) Stats() FlatStats {
	f.mu.RLock()
	defer f.mu.RUnlock()
	st := FlatStats{Rows: len(f.keys), Live: len(f.rowOf), Searches: f.searches.Load(), Scored: f.scored.Load()}
	if f.g != nil {
		st.Erased = len(f.erased)
	}
	if f.cfg.Int8 {
		st.CodeBytes = int64(len(f.keys)) * int64(f.dim+8)
	}
	if f.floats() {
		st.FloatBytes = int64(len(f.keys)) * int64(4*f.dim)
	}
	if f.g != nil {
		st.Graph, st.GraphBytes = len(f.g.levels), f.g.bytes()
		st.GraphOff, st.EfSearch = f.g.off, f.g.cfg.EfSearch
	}
	if p := f.pj; p != nil {
		st.ProjectDims, st.ProjectBytes = p.dims, int64(p.codes.len())*int64(p.codes.dim)
		st.ProjectCand, st.ProjectOff = p.cand, p.off
	}
	return st
}

// SearchEf is Search with beam width ef instead of the configured one
// (benchmarks sweep it).
func (f *Flat) SearchEf(q []float32, k, ef int, allow func(key uint64) bool) []Result {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if k = f.wanted(q, k); k == 0 {
		return nil
	}
	if f.g != nil {
		if out, ok := f.searchGraphEf(q, k, ef, allow); ok {
			return out
		}
	}
	return f.searchExact(q, k, allow)
}
