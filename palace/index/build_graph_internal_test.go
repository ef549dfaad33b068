package index

import (
	"context"
	"errors"
	"maps"
	"math/rand"
	"path/filepath"
	"runtime"
	"testing"
)

// BuildGraph links an index's own rows while adds, removals and searches
// go on. No row moves and none is reused: a row free before the build or
// removed during it is a waypoint of the graph. The rows added meanwhile
// are linked too, the graph is held off until calibrated, and once on it
// finds every live row by its own vector and no removed one. So for an
// index in memory and for one whose rows are a mapped snapshot's.
func TestBuildGraphInPlace(t *testing.T) {
	t.Parallel()
	for _, mapped := range []bool{false, true} {
		t.Run(map[bool]string{false: "in memory", true: "mapped"}[mapped], func(t *testing.T) {
			t.Parallel()
			buildGraphInPlace(t, mapped)
		})
	}
}

func buildGraphInPlace(t *testing.T, mapped bool) {
	const d, n0 = 32, 6000
	r := rand.New(rand.NewSource(7))
	vec := func() []float32 {
		v := make([]float32, d)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		unit(v)
		return v
	}
	cfg := FlatConfig{Int8: true, Graph: GraphConfig{Min: 1000, M: 12, EfConstruction: 64, EfSearch: 64}, DeferGraph: true}
	f := NewFlat(cfg)
	live := map[uint64][]float32{}
	removed := map[uint64]bool{}
	add := func(k uint64) {
		v := vec()
		live[k] = v
		f.Add(k, v)
	}
	remove := func(k uint64) {
		f.Remove(k)
		delete(live, k)
		removed[k] = true
	}
	for k := range uint64(n0) {
		add(k)
	}
	if mapped {
		path := filepath.Join(t.TempDir(), "v.idx")
		if err := SaveFlatFile(path, f, SnapshotMeta{Model: "m"}); err != nil {
			t.Fatal(err)
		}
		var err error
		if f, _, err = LoadFlatFile(path, cfg); err != nil {
			t.Fatal(err)
		}
		if f.mapped == nil && runtime.GOOS == "linux" {
			t.Fatal("the snapshot was not mapped")
		}
	}
	for k := uint64(0); k < n0; k += 10 {
		remove(k) // free rows, before the build
	}
	if f.HasGraph() || !f.GraphWanted() {
		t.Fatalf("before the build: graph %v, wanted %v", f.HasGraph(), f.GraphWanted())
	}
	f.mu.RLock()
	before := maps.Clone(f.rowOf)
	f.mu.RUnlock()

	done := make(chan error, 1)
	go func() { done <- f.BuildGraph(context.Background()) }()
	for started := false; !started; {
		f.mu.RLock()
		started = f.building || f.g != nil
		f.mu.RUnlock()
	}
	next, during := uint64(n0), 0
	for building := true; building; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			building = false
			continue
		default:
		}
		if during == 2000 { // writes faster than any palace takes them: enough
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			break
		}
		add(next)
		if next%3 == 0 {
			remove(next - 1)
		}
		if next%7 == 0 {
			remove(next/7*5 + 1) // a row linked before the build, or by it
		}
		f.Search(vec(), 5, nil)
		next++
		during++
	}
	if during == 0 {
		t.Fatal("nothing was added while the graph was built")
	}
	if !f.HasGraph() || !f.Stats().GraphOff {
		t.Fatalf("after the build: graph %v, held off until calibrated %v", f.HasGraph(), f.Stats().GraphOff)
	}
	f.mu.Lock()
	for k, row := range f.rowOf {
		if was, ok := before[k]; ok && was != row {
			t.Errorf("key %d moved from row %d to %d", k, was, row)
		}
		if _, ok := before[k]; !ok && row < n0 {
			t.Errorf("key %d, added during the build, reused row %d", k, row)
		}
	}
	dead := 0
	for _, x := range f.dead {
		if x {
			dead++
		}
	}
	if f.tomb != dead || len(f.free) != 0 {
		t.Errorf("%d waypoints counted of %d removed rows, %d rows free", f.tomb, dead, len(f.free))
	}
	f.g.off = false // as a calibration that keeps it would
	f.mu.Unlock()
	if st := f.Stats(); st.Graph != st.Rows || st.Live != len(live) {
		t.Fatalf("graph of %d rows over %d, %d live keys of %d", st.Graph, st.Rows, st.Live, len(live))
	}
	searches := f.Stats().Searches
	found := 0
	for k, v := range live {
		for _, res := range f.Search(v, 3, nil) {
			if removed[res.Key] {
				t.Fatalf("removed key %d found", res.Key)
			}
			if res.Key == k {
				found++
			}
		}
	}
	if f.Stats().Searches == searches {
		t.Fatal("the searches scanned: the graph does not answer")
	}
	if share := float64(found) / float64(len(live)); share < 0.98 {
		t.Fatalf("the graph finds %.3f of the live rows by their own vectors", share)
	}
	t.Logf("%d rows added during the build; %.4f of %d live rows found", during, float64(found)/float64(len(live)), len(live))
}

// A cancelled BuildGraph leaves the index without a graph, and the rows
// removed before or during it free for reuse again.
func TestBuildGraphCancelled(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(8))
	f := NewFlat(FlatConfig{Int8: true, Graph: GraphConfig{Min: 1000, M: 12, EfConstruction: 64}, DeferGraph: true})
	for k := range uint64(2000) {
		v := make([]float32, 16)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		f.Add(k, v)
	}
	f.Remove(5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.BuildGraph(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("BuildGraph with a cancelled context: %v", err)
	}
	if f.HasGraph() {
		t.Fatal("a cancelled build left a graph")
	}
	f.Add(9999, make([]float32, 16))
	f.mu.RLock()
	row := f.rowOf[9999]
	f.mu.RUnlock()
	if row != 5 {
		t.Fatalf("the new key took row %d, not the free row 5", row)
	}
}

// The rows added after BuildGraph's last pass are linked under the lock,
// where the graph is attached: the graph holds every row.
func TestBuildGraphLinksTheLastRowsUnderTheLock(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	vec := func() []float32 {
		v := make([]float32, 16)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	f := NewFlat(FlatConfig{Int8: true, Graph: GraphConfig{Min: 1000, M: 12, EfConstruction: 64}, DeferGraph: true})
	for k := range uint64(1500) {
		f.Add(k, vec())
	}
	late := uint64(5000)
	defer func() { buildPassHook = nil }()
	buildPassHook = func() {
		if late == 5000 {
			for range graphAttachRows {
				f.Add(late, vec())
				late++
			}
		}
	}
	if err := f.BuildGraph(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := f.Stats(); st.Graph != st.Rows || st.Rows != 1500+graphAttachRows {
		t.Fatalf("the graph holds %d rows of %d", st.Graph, st.Rows)
	}
}

// An index that defers its graph does not rebuild it under its lock when
// the removed rows outnumber the living: it drops the graph and compacts
// its rows, searches scan and find the living, and BuildGraph builds it
// again over them.
func TestDeferredGraphPastHalfDeadIsLeftToBuildGraph(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(10))
	f := NewFlat(FlatConfig{Int8: true, Graph: GraphConfig{Min: 1000, M: 12, EfConstruction: 64}, DeferGraph: true})
	vecs := make([][]float32, 5000)
	for k := range vecs {
		vecs[k] = make([]float32, 16)
		for i := range vecs[k] {
			vecs[k][i] = float32(r.NormFloat64())
		}
		unit(vecs[k])
		f.Add(uint64(k), vecs[k])
	}
	if err := f.BuildGraph(context.Background()); err != nil || !f.HasGraph() {
		t.Fatalf("no graph built: %v", err)
	}
	for k := range 3000 {
		f.Remove(uint64(k))
	}
	st := f.Stats()
	// Compacted when the 2,501st row died; the 499 removed after are free.
	if f.HasGraph() || !f.GraphWanted() || st.Rows != 2499 || st.Live != 2000 {
		t.Fatalf("past half dead: graph %v, wanted %v, %d rows of %d live", f.HasGraph(), f.GraphWanted(), st.Rows, st.Live)
	}
	for k := 3000; k < 5000; k += 97 {
		if res := f.Search(vecs[k], 1, nil); len(res) != 1 || res[0].Key != uint64(k) {
			t.Fatalf("key %d not found by its vector: %v", k, res)
		}
	}
	if err := f.BuildGraph(context.Background()); err != nil || !f.HasGraph() || f.Stats().Graph != 2499 {
		t.Fatalf("the graph was not built again over the living: %v, %+v", err, f.Stats())
	}
}
