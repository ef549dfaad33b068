package palace

import (
	"context"
	"time"

	"github.com/loci-mem/loci/palace/index"
)

// A graph built aside. An index builds its graph when its rows reach the
// threshold (palace/index/README.md, "When": 100k vectors of the default
// encoder, some 40k drawers), under its write lock, linking every row:
// tens of seconds on two cores, during which every search of the palace
// waited, once in the palace's life, and again whenever the removed rows
// came to outnumber the living. The index the palace searches leaves that
// build to it (index.Flat.DeferGraph). When it reaches the threshold, or
// drops its graph to compact its rows (index.Flat.Compact), a goroutine
// builds the graph over the index's own rows without its lock
// (index.Flat.BuildGraph), while searches go on scanning and catch-ups go
// on adding and removing rows: the index keeps its rows where they are
// meanwhile, and links the last few under its lock, where the graph starts
// to answer. The first build aside (stop 90) built a second index from the
// store's vectors and swapped it in, which held a second copy of every
// code for as long as it took: 261 MB at the 100k palace for a minute,
// 949 MB at the 1M one of `loci bench scale` for some twenty. A snapshot
// written while the graph is being built holds none, and the process that
// loads it builds the graph aside in turn (index.FlatConfig.DeferGraph),
// not as it loads. Stop 90 wrote no snapshot of an index waiting for its
// graph, since its loader built the graph inline: a palace used only by
// short-lived processes (hooks), each cancelling its build on the way
// out, then kept its last snapshot from before the threshold, and every
// process replayed all that came after it.

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

// graphBuildHook, when set (by tests), runs in the goroutine before the
// graph is built.
var graphBuildHook func()

// graphDue starts the build aside when the index has reached its graph's
// threshold without one, unless a build runs or the palace is closing.
// Caller holds mu.
func (v *vectorState) graphDue() {
	if v.stopBuild != nil || v.closed || !v.idx.GraphWanted() {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	v.stopBuild = cancel
	idx := v.idx
	v.links.Add(1)
	go func() {
		defer v.links.Done()
		defer cancel()
		v.buildAside(ctx, idx)
	}()
}

// buildAside builds idx's graph (index.Flat.BuildGraph) and has the next
// SaveIndex write the snapshot with it, unless idx stopped being the
// palace's index meanwhile (a rebuild).
func (v *vectorState) buildAside(ctx context.Context, idx *index.Flat) {
	start := time.Now()
	if graphBuildHook != nil {
		graphBuildHook()
	}
	err := idx.BuildGraph(ctx)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.stopBuild = nil
	if err != nil || !idx.HasGraph() || v.idx != idx {
		return // cancelled: the palace is closing
	}
	v.mustSave()
	v.p.log.Info().Dur("took", time.Since(start)).Int("vectors", idx.Len()).Msg("vector index graph built aside")
}
