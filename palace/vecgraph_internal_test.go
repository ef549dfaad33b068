package palace

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
)

// An index that reaches its graph's threshold does not build the graph
// while searches wait: the catch-up leaves it to a goroutine, which links
// the graph over the index's rows without its lock (vecgraph.go; the
// index's own tests hold what goes on during the build). Until then
// searches scan and find what was written and not what was forgotten, and
// a snapshot saved is written without the graph (so that a process which
// ends before the graph is built, as a hook's does, leaves the next one
// little to replay); once built the index has its graph, every drawer
// written meanwhile, and neither the forgotten drawer nor the purged one's
// vector, and a snapshot with the graph is due.
func TestGraphIsBuiltAside(t *testing.T) {
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(2))
	p := createPalace(t, graphAsideConfig(t))
	write := func(n int, what string) []*Drawer {
		ds := make([]*Drawer, n)
		for i := range ds {
			ds[i] = &Drawer{Content: fmt.Sprintf("%s %d: %s", what, i, drawnWords(rnd, 12))}
		}
		noErr(t, p.AddMany(ctx, ds))
		return ds
	}
	found := func(d *Drawer) bool { return foundByVector(t, p, d) }
	first := write(300, "harbour log")
	if !found(first[0]) {
		t.Fatal("a drawer not found")
	}
	built, release := holdGraphBuild(t)

	second := write(snapshotMinEntries, "cormorant survey")
	if !found(second[500]) {
		t.Fatal("a drawer written past the threshold not found")
	}
	v := p.vec
	if v.idx.HasGraph() {
		t.Fatal("the search that reached the threshold built the graph")
	}
	waitBuilt(t, built)
	if !p.IndexInfo().GraphBuilding {
		t.Fatal("palace_info does not say the graph is being built")
	}
	// Written, forgotten and purged while the index with the graph waits.
	noErr(t, p.SaveIndex(ctx))
	snap, _, err := index.LoadFlatFile(v.snapshotPath(), index.FlatConfig{Int8: true, DeferGraph: true})
	if err != nil {
		t.Fatalf("no snapshot written while the graph waits: %v", err)
	}
	if snap.HasGraph() || snap.Len() != len(first)+len(second) {
		t.Fatalf("the snapshot written while the graph waits: graph %v, %d rows", snap.HasGraph(), snap.Len())
	}
	third := write(20, "lantern repair")
	_, _, err = p.Forget(ctx, first[3].ID)
	noErr(t, err)
	_, err = p.Purge(ctx, first[4].ID)
	noErr(t, err)
	if !found(third[7]) || found(first[3]) {
		t.Fatal("during the build: a written drawer not found, or a forgotten one found")
	}
	release()
	waitForGraph(t, v)
	if !found(third[11]) || found(first[3]) {
		t.Fatal("once built: a drawer written meanwhile not found, or a forgotten one found")
	}
	if p.IndexInfo().GraphBuilding {
		t.Fatal("palace_info says the graph is being built once it is in place")
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.savedHW != -1 {
		t.Fatal("no snapshot due once the graph is built")
	}
	for _, d := range append(append(first[5:], second...), third...) {
		if _, ok := v.idx.Vector(ikey(uint64(d.VecKey), 0)); !ok {
			t.Fatalf("%s not in the index once the graph is built", d.ID)
		}
	}
	for _, d := range first[3:5] {
		if _, ok := v.idx.Vector(ikey(uint64(d.VecKey), 0)); ok {
			t.Fatalf("%s, forgotten or purged during the build, is in the index", d.ID)
		}
	}
}

// A snapshot written without the graph its index should have (saved while
// the graph was built aside, here by a save an erasure forced, in a
// process that then exited) is not given the graph at load, where every
// search would wait for it: the graph is built aside again.
func TestASnapshotWithoutItsGraphIsGivenItAside(t *testing.T) {
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(3))
	cfg := graphAsideConfig(t)
	reg, err := OpenRegistry(cfg)
	noErr(t, err)
	p, err := reg.Create(ctx, "p", "")
	noErr(t, err)
	built, release := holdGraphBuild(t)
	ds := make([]*Drawer, snapshotMinEntries+300)
	for i := range ds {
		ds[i] = &Drawer{Content: fmt.Sprintf("harbour log %d: %s", i, drawnWords(rnd, 12))}
	}
	noErr(t, p.AddMany(ctx, ds))
	if !foundByVector(t, p, ds[10]) {
		t.Fatal("a drawer not found")
	}
	waitBuilt(t, built)
	_, err = p.Purge(ctx, ds[3].ID)
	noErr(t, err)
	noErr(t, p.SaveIndex(ctx)) // forced by the erasure, of the index without its graph
	v := p.vec
	v.mu.Lock()
	v.closed = true // the process ends before the graph is built
	v.stopBuild()
	v.mu.Unlock()
	release()
	noErr(t, reg.Close())
	snap, _, err := index.LoadFlatFile(v.snapshotPath(), index.FlatConfig{Int8: true, DeferGraph: true})
	noErr(t, err)
	if snap.HasGraph() || snap.Len() < 400 {
		t.Fatalf("the forced snapshot: graph %v, %d rows", snap.HasGraph(), snap.Len())
	}

	reg, err = OpenRegistry(cfg)
	noErr(t, err)
	t.Cleanup(func() { reg.Close() })
	p, err = reg.Open(ctx, "p")
	noErr(t, err)
	built, release = holdGraphBuild(t) // the index loads at the first search
	if !foundByVector(t, p, ds[20]) || foundByVector(t, p, ds[3]) {
		t.Fatal("loaded: a drawer not found, or the purged one found")
	}
	v = p.vec
	v.mu.Lock()
	graph := v.idx.HasGraph()
	v.mu.Unlock()
	if graph {
		t.Fatal("the graph was built as the snapshot loaded")
	}
	waitBuilt(t, built)
	release()
	waitForGraph(t, v)
}

// waitForGraph waits for the graph built aside to be in place.
func waitForGraph(t *testing.T, v *vectorState) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		v.mu.Lock()
		done := v.stopBuild == nil && v.idx.HasGraph()
		v.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the graph built aside is not in place after 20 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// When forgotten drawers outnumber the living ones, the graph is not
// rebuilt by the catch-up that removes them, while every search waits: the
// index drops it and compacts, searches scan, and the graph is built aside
// again over the living.
func TestGraphPastHalfDeadIsBuiltAsideAgain(t *testing.T) {
	ctx := context.Background()
	p, ds := palaceWithGraph(t, 4, 2400)
	v := p.vec

	built, release := holdGraphBuild(t)
	for _, d := range ds[:1300] {
		_, _, err := p.Forget(ctx, d.ID)
		noErr(t, err)
	}
	if !foundByVector(t, p, ds[2000]) || foundByVector(t, p, ds[100]) {
		t.Fatal("past half forgotten: a living drawer not found, or a forgotten one found")
	}
	v.mu.Lock()
	graph, rows := v.idx.HasGraph(), v.idx.Stats().Rows
	v.mu.Unlock()
	if graph || rows >= len(ds) {
		t.Fatalf("past half forgotten: graph %v over %d rows (the catch-up rebuilt it, or did not compact)", graph, rows)
	}
	waitBuilt(t, built)
	release()
	waitForGraph(t, v)
	if !foundByVector(t, p, ds[2100]) || foundByVector(t, p, ds[200]) {
		t.Fatal("built again: a living drawer not found, or a forgotten one found")
	}
}

// CompactIndex (the dreamer's index pass) drops the graph's waypoints
// without rebuilding the graph while searches wait: it compacts the rows
// and the graph is built aside again over the living.
func TestCompactIndexBuildsTheGraphAside(t *testing.T) {
	ctx := context.Background()
	p, ds := palaceWithGraph(t, 5, 1200)
	v := p.vec
	for _, d := range ds[:300] {
		_, _, err := p.Forget(ctx, d.ID)
		noErr(t, err)
	}
	built, release := holdGraphBuild(t)
	n, err := p.CompactIndex(ctx)
	noErr(t, err)
	v.mu.Lock()
	graph, rows := v.idx.HasGraph(), v.idx.Stats().Rows
	v.mu.Unlock()
	if n != 900 || graph || rows != 900 {
		t.Fatalf("compacted: %d vectors, graph %v over %d rows; want 900 rows and the graph left to be built aside", n, graph, rows)
	}
	if !foundByVector(t, p, ds[1000]) || foundByVector(t, p, ds[100]) {
		t.Fatal("compacted: a living drawer not found, or a forgotten one found")
	}
	waitBuilt(t, built)
	release()
	waitForGraph(t, v)
	if st := p.VectorIndexStats(); st.Graph != 900 {
		t.Fatalf("the graph built again holds %d rows, want the 900 living", st.Graph)
	}
}

// holdGraphBuild has the next graph built aside wait before it is built
// until released; built is closed once it waits. Registered after the
// registry's, its cleanup clears the hook and releases the build before
// the registry closes, which waits for the build.
func holdGraphBuild(t *testing.T) (built chan struct{}, release func()) {
	built, goOn := make(chan struct{}), make(chan struct{})
	graphBuildHook = func() {
		close(built)
		<-goOn
	}
	var once sync.Once
	release = func() { once.Do(func() { close(goOn) }) }
	t.Cleanup(func() {
		graphBuildHook = nil
		release()
	})
	return built, release
}

// waitBuilt waits for a graph build held by holdGraphBuild to start.
func waitBuilt(t *testing.T, built chan struct{}) {
	t.Helper()
	select {
	case <-built:
	case <-time.After(20 * time.Second):
		t.Fatal("no graph built aside")
	}
}

// palaceWithGraph is a palace whose graph (of a few hundred rows' threshold)
// is built aside, holding n drawers of random words drawn with seed, once
// its graph is in place.
func palaceWithGraph(t *testing.T, seed int64, n int) (*Palace, []*Drawer) {
	t.Helper()
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(seed))
	p := createPalace(t, graphAsideConfig(t))
	ds := make([]*Drawer, n)
	for i := range ds {
		ds[i] = &Drawer{Content: fmt.Sprintf("harbour log %d: %s", i, drawnWords(rnd, 12))}
	}
	noErr(t, p.AddMany(ctx, ds))
	if !foundByVector(t, p, ds[0]) {
		t.Fatal("a drawer not found")
	}
	waitForGraph(t, p.vec)
	return p, ds
}

// graphAsideConfig is a palace configuration whose graph (from 400 rows of
// the hash embedder's) is built aside however small it is, until t ends.
func graphAsideConfig(t *testing.T) Config {
	w := asideGraphWork
	t.Cleanup(func() { asideGraphWork = w })
	asideGraphWork = 0
	return Config{DataDir: t.TempDir(), Embedder: embed.NewHash(256), Graph: index.GraphConfig{Min: 400, M: 8, EfConstruction: 48, EfSearch: 48}}
}

// createPalace creates palace "p" in a registry on cfg, closed when t ends.
func createPalace(t *testing.T, cfg Config) *Palace {
	t.Helper()
	reg, err := OpenRegistry(cfg)
	noErr(t, err)
	t.Cleanup(func() { reg.Close() })
	p, err := reg.Create(context.Background(), "p", "")
	noErr(t, err)
	return p
}
