package palace

import (
	"context"
	"time"

	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/store"
)

// A graph built aside. An index builds its graph when its rows reach the
// threshold (palace/index/README.md, "When": 100k vectors of the default
// encoder, some 40k drawers), under its write lock, linking every row:
// tens of seconds on two cores, during which every search of the palace
// waited, once in the palace's life. The index the palace searches leaves
// that build to it (index.Flat.DeferGraph) once the palace has caught up
// with the store at least once. When it reaches the threshold, a goroutine
// builds an index with the graph from the store's vectors, while searches
// go on scanning the one they have, and replaces it (setIndex). The
// replacement is marked as of the last change it was built from, so the
// next catch-up applies what came after; and keys of no drawer in recall
// now (forgotten or purged meanwhile) are erased from it first, so no
// erased vector outlives the swap. No snapshot is written of an index
// waiting for its graph unless an erasure needs one: the next process
// would have the graph to build again. One that loads such a snapshot
// builds it aside as well (index.FlatConfig.DeferGraph), not as it loads.

// asideGraphWork is the rows × dimensions of a graph's threshold from
// which it is built aside: linking a row of 996 dimensions costs about
// 0.2 ms on two cores, so this is about a second of building, longer than
// a search should wait. A smaller graph (a test's, or one configured
// small) is built by the catch-up that reaches it. A variable for tests.
var asideGraphWork = 5_000_000

// graphAside reports whether the palace's graph takes long enough to build
// to be built aside (asideGraphWork).
func (v *vectorState) graphAside() bool {
	dim := v.p.emb.Dim()
	m := v.p.reg.cfg.Graph.MinRows(dim)
	return m > 0 && m*dim >= asideGraphWork
}

// graphBuildHook, when set (by tests), runs in the goroutine after the
// index aside is built, before it replaces the palace's.
var graphBuildHook func()

// graphDue starts the build aside when the index has reached its graph's
// threshold without one, unless a build runs, the palace is closing or
// the maps of keys to drawers are not loaded (the swap needs them). Caller
// holds mu.
func (v *vectorState) graphDue() {
	if v.buildingGraph || v.closed || v.ridOf == nil || !v.idx.GraphWanted() {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	v.buildingGraph, v.stopBuild = true, cancel
	base := v.idx
	v.links.Add(1)
	go func() {
		defer v.links.Done()
		defer cancel()
		v.buildAside(ctx, base)
	}()
}

// buildAside builds an index with its graph from the store and, unless
// base stopped being the palace's index meanwhile (a rebuild) or the
// palace is closing, makes it the palace's.
func (v *vectorState) buildAside(ctx context.Context, base *index.Flat) {
	start := time.Now()
	idx, mark, err := v.indexFromStore(ctx)
	if err == nil && graphBuildHook != nil {
		graphBuildHook()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.buildingGraph, v.stopBuild = false, nil
	if err != nil {
		if ctx.Err() == nil {
			v.p.log.Warn().Err(err).Msg("vector index graph built aside; searches go on scanning")
		}
		return
	}
	if v.closed || v.idx != base {
		return
	}
	v.setIndex(idx, false)
	v.hw = mark
	v.mustSave()
	n := v.eraseOrphans()
	v.p.log.Info().Dur("took", time.Since(start)).Int("vectors", idx.Len()).Int("erased", n).Int64("seq", mark).
		Msg("vector index graph built aside")
}

// indexFromStore builds an index from the vectors of the drawers in recall
// and returns it with the last change it holds.
func (v *vectorState) indexFromStore(ctx context.Context) (*index.Flat, int64, error) {
	mark, err := v.p.st.Drawers().MaxSeq(ctx)
	if err != nil {
		return nil, 0, err
	}
	idx := v.newIndex()
	var keys []uint64
	var vecs [][]float32
	add := func(key uint64, blob []byte) {
		keys = append(keys, key)
		vecs = append(vecs, decodeVectorInto(nil, blob))
		if len(keys) >= catchUpBatchSize {
			idx.AddBatch(keys, vecs)
			keys, vecs = nil, nil
		}
	}
	err = v.p.st.Drawers().Changes(ctx, 0, store.ChangeFields{Vector: true}, func(c store.Change) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if v.inRecall(c) {
			eachVector(c, add)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if len(keys) > 0 {
		idx.AddBatch(keys, vecs)
	}
	idx.Relink()
	idx.HoldGraph() // until calibrated, as any graph
	return idx, mark, nil
}
