package palace

import (
	"cmp"
	"slices"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
)

// Held changes. Catching up applies the store's changes to the vector
// index under the state's mu, and an index change waits for the index's
// write lock. Two waits were long enough to stall every search behind
// them:
//   - A snapshot write holds the index's read lock for as long as it
//     takes, a second at 100k drawers: a search with a write to catch up
//     took up to 0.94 s during a save, against 14 ms p50.
//   - Linking vectors into a graph costs 0.15-0.25 ms each on two cores:
//     the first search after another process wrote 2,000 drawers took
//     0.37-0.55 s.
// So a catch-up holds its changes, in order, when the index is being
// written or a graph has more than linkBatch changes to link, and whenever
// changes are held already, up to maxHeldVectors. The maps from
// keys to drawers change at once; a search scores the held vectors itself
// (heldVectors), so it still finds every drawer written before it began
// and none forgotten. A goroutine applies the held changes linkBatch
// vectors at a time, never while the index is being written; a snapshot
// is marked as of the last change the index holds (heldMark), and one
// that follows an erasure applies every held change first, so that no
// erased vector is written (as does SaveIndexNow, whose purpose is to
// leave the next process less to catch up).
//
// At the 100k palace (BenchmarkSearchDuringSave and
// BenchmarkSearchAfterABulkWrite, palace/save_figures_test.go): the
// slowest search during a save with writes going on 21-59 ms; the first
// search after 2,000 drawers written elsewhere 53-62 ms, and those while
// they are linked (about 0.35 s) 33-37 ms p50, 58-71 ms at most.

// linkBatch is how many vectors a search may find waiting to be linked
// before it: about 13 ms of linking into a 100k graph, the time a search
// takes. A catch-up of at most this many changes links at once, and the
// goroutine applies held changes this many vectors at a time.
const linkBatch = 64

// maxHeldVectors bounds the changes held, and the vectors among them:
// every search scores the held vectors itself (8,192 at 996 dimensions,
// 32 MB, a few milliseconds). A catch-up larger than that (a cold start, a
// rebuild) links at once; so does one that would hold more during a
// snapshot write (a bulk import, while a 1M palace's snapshot takes some
// ten seconds to write), which then waits for the write to end, as every
// catch-up did before changes were held. A variable for tests.
var maxHeldVectors = 8192

// heldOp is a change caught up and not yet applied to the index: vectors
// added (keys, vecs) or another change (op).
type heldOp struct {
	seq    int64 // the change it comes from, or an earlier one
	keys   []uint64
	vecs   [][]float32
	op     func(*index.Flat)
	erases bool // op erases vectors, which no snapshot may be written with
}

// heldChanges are the changes held, in the order they were caught up. The
// state's mu guards them.
type heldChanges struct {
	ops     []heldOp
	vectors int // the vectors added among them
	erases  int // the ops that erase
}

// holding reports whether a change caught up now is held. Caller holds mu.
func (v *vectorState) holding() bool {
	return v.writing() || v.deferring || len(v.held.ops) > 0
}

// writing reports whether the index is being written to its snapshot.
// Caller holds mu.
func (v *vectorState) writing() bool { return v.saving != nil && v.saving == v.idx }

// change applies op to the index now, or holds it. Caller holds mu.
func (v *vectorState) change(op func(*index.Flat), erases bool) {
	if !v.hold(0) {
		op(v.idx)
		return
	}
	v.held.ops = append(v.held.ops, heldOp{seq: v.hw + 1, op: op, erases: erases})
	if erases {
		v.held.erases++
	}
}

// addBatch adds vectors to the index (index.Flat.AddBatch), or holds them;
// seq is the first change they come from. Caller holds mu.
func (v *vectorState) addBatch(seq int64, keys []uint64, vecs [][]float32) {
	if !v.hold(len(keys)) {
		v.idx.AddBatch(keys, vecs)
		return
	}
	v.held.ops = append(v.held.ops, heldOp{seq: seq, keys: keys, vecs: vecs})
	v.held.vectors += len(keys)
}

// hold reports whether a change adding n vectors is held. One that would
// take the held changes past maxHeldVectors is not, and everything held
// is applied before it, in order; during a snapshot write that waits for
// the write to end. Caller holds mu.
func (v *vectorState) hold(n int) bool {
	if !v.holding() {
		return false
	}
	if len(v.held.ops) < maxHeldVectors && v.held.vectors+n <= maxHeldVectors {
		return true
	}
	v.applyHeld(0)
	return false
}

func (v *vectorState) remove(key uint64) {
	v.change(func(idx *index.Flat) { idx.Remove(key) }, false)
}

func (v *vectorState) eraseKey(key uint64) {
	v.change(func(idx *index.Flat) { idx.Erase(key) }, true)
}

// setIndex makes idx the palace's index; changes held for the one it
// replaces are dropped with it. With aside and a graph that takes long to
// build (graphAside), idx leaves its graph to be built aside
// (vecgraph.go); otherwise it builds the graph itself, at once when it is
// due. Caller holds mu.
func (v *vectorState) setIndex(idx *index.Flat, aside bool) {
	v.idx, v.held = idx, heldChanges{}
	idx.DeferGraph(aside && v.graphAside())
}

// heldMark is the last change the index itself holds: the one before the
// first held, or every change caught up. A snapshot is marked with it, so
// that the next load catches the held ones up again. Caller holds mu.
func (v *vectorState) heldMark() int64 {
	if len(v.held.ops) > 0 {
		return v.held.ops[0].seq - 1
	}
	return v.hw
}

// applyHeld applies held changes in order, the vectors of at most limit
// of them (0: all), and once none is left links what the adds left
// unreachable and holds off a graph never calibrated (see sync). Caller
// holds mu; while the index is being written, this waits for the write.
func (v *vectorState) applyHeld(limit int) {
	h := &v.held
	budget := limit
	for len(h.ops) > 0 {
		o := &h.ops[0]
		if o.keys == nil {
			o.op(v.idx)
			if o.erases {
				h.erases--
			}
			h.ops = h.ops[1:]
			continue
		}
		if limit > 0 && budget == 0 {
			break
		}
		n := len(o.keys)
		if limit > 0 {
			n = min(n, budget)
			budget -= n
		}
		v.idx.AddBatch(o.keys[:n], o.vecs[:n])
		h.vectors -= n
		if n == len(o.keys) {
			h.ops = h.ops[1:]
		} else {
			h.ops[0] = heldOp{seq: o.seq, keys: o.keys[n:], vecs: o.vecs[n:]}
		}
	}
	if len(h.ops) == 0 {
		*h = heldChanges{}
		v.idx.Relink()
		v.idx.HoldGraph()
	}
}

// settle, once changes were caught up or a snapshot written, applies what
// is held at once when that is little (linkBatch vectors at most, or none:
// then only the relink and hold of applyHeld), and otherwise has the
// goroutine link it; then it starts a graph built aside when one is due
// (vecgraph.go). Nothing is applied while the index is being written: its
// save settles when done. Caller holds mu.
func (v *vectorState) settle() {
	if !v.writing() {
		if v.held.vectors <= linkBatch {
			v.applyHeld(0)
		} else {
			v.startLinking()
		}
	}
	v.graphDue()
}

// startLinking starts the goroutine that applies held changes, unless one
// runs, none is held, the index is being written (its save starts it when
// done) or the palace is closing. Caller holds mu.
func (v *vectorState) startLinking() {
	if v.linking || v.closed || len(v.held.ops) == 0 || v.writing() {
		return
	}
	v.linking = true
	v.links.Add(1)
	go v.link()
}

// link applies held changes linkBatch vectors at a time, taking mu for
// each batch, so that a search waits for one batch at most.
func (v *vectorState) link() {
	defer v.links.Done()
	for {
		v.mu.Lock()
		if v.closed || len(v.held.ops) == 0 || v.writing() {
			v.linking = false
			v.mu.Unlock()
			return
		}
		v.applyHeld(linkBatch)
		v.mu.Unlock()
	}
}

// stopBackground stops the goroutine that links held changes, waiting for
// the batch it is applying, and cancels a graph built aside (vecgraph.go).
// What it leaves held is in the store, after the snapshot's mark.
func (v *vectorState) stopBackground() {
	v.mu.Lock()
	v.closed = true
	if v.stopBuild != nil {
		v.stopBuild()
	}
	v.mu.Unlock()
	v.links.Wait()
}

// heldVectors scores the held vectors, which the index does not hold yet,
// against q: the best k that allow admits (nil: all), best first.
func (v *vectorState) heldVectors(q []float32, k int, allow func(key uint64) bool) []index.Result {
	v.mu.Lock()
	var ops []heldOp
	if v.held.vectors > 0 {
		ops = slices.Clone(v.held.ops) // applyHeld trims the first in place
	}
	v.mu.Unlock()
	var out []index.Result
	for _, o := range ops {
		for i, key := range o.keys {
			if allow == nil || allow(key) {
				out = append(out, index.Result{Key: key, Score: embed.Dot(q, o.vecs[i])})
			}
		}
	}
	slices.SortFunc(out, func(a, b index.Result) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(k, len(out))]
}
