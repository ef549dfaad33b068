package index_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"github.com/loci-mem/loci/palace/index"
)

// An erased row that a graph keeps as a waypoint leaves the snapshot: the
// file holds neither its codes nor its projection's, but a live
// neighbour's in their place, and the index loaded from it answers as
// before. A row removed without erasing keeps its vectors, as a waypoint
// always did.
func TestErasedRowsLeaveTheSnapshot(t *testing.T) {
	const n, d = 3000, 64
	vecs := topicVecs(7, n+200, d, 30, 0.8)
	f := projFlat(16)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i + 1)
	}
	f.AddBatch(keys, vecs[:n])
	f.Calibrate(vecs[n:n+100], 10, index.CalibrationTarget)
	if !index.UseProjection(f, 300) {
		t.Fatal("no projection beside the graph")
	}
	const erased, removed = 1234, 2345
	codes, proj, ok := index.StoredRow(f, erased)
	if !ok || proj == nil {
		t.Fatalf("row %d: stored %v, projection %v", erased, ok, proj != nil)
	}
	kept, keptProj, _ := index.StoredRow(f, removed)
	f.Erase(erased)
	f.Remove(removed)
	f.Erase(99999) // no such key: nothing happens
	if st := f.Stats(); st.Erased != 1 || st.Live != n-2 {
		t.Fatalf("stats after one erase and one removal: %+v", st)
	}

	path, raw := saved(t, f)
	if bytes.Contains(raw, int8s(codes)) {
		t.Error("the snapshot holds the erased row's codes")
	}
	if bytes.Contains(raw, int8s(proj)) {
		t.Error("the snapshot holds the erased row's projected codes")
	}
	if !bytes.Contains(raw, int8s(kept)) || !bytes.Contains(raw, int8s(keptProj)) {
		t.Error("a row removed without erasing lost its vectors: the graph's waypoints keep theirs")
	}

	b, _, err := index.LoadFlatFile(path, index.FlatConfig{Int8: true, Project: 16,
		Graph: index.GraphConfig{Min: 1000, M: 12, EfConstruction: 64, EfSearch: 48}})
	if err != nil {
		t.Fatal(err)
	}
	stand, standProj, ok := index.StoredRow(b, erased)
	if !ok {
		t.Fatal("the erased row is no longer a waypoint")
	}
	twin := false
	for _, k := range keys {
		if k == erased || k == removed {
			continue
		}
		c, p, _ := index.StoredRow(b, k)
		if slices.Equal(c, stand) && slices.Equal(p, standProj) {
			twin = true
			break
		}
	}
	if !twin {
		t.Error("the erased row's place holds vectors of no live row")
	}
	for i := 0; i < n; i += 97 {
		if i+1 == erased || i+1 == removed {
			continue
		}
		if got := b.Search(vecs[i], 1, nil); len(got) != 1 || got[0].Key != uint64(i+1) {
			t.Fatalf("row %d not found by its own vector after the reload: %v", i+1, got)
		}
	}
	for _, got := range b.Search(vecs[erased-1], 10, nil) {
		if got.Key == erased || got.Key == removed {
			t.Fatalf("a removed row was returned: %v", got)
		}
	}
}

// saved writes f's snapshot to a file of its own and returns the path and
// the bytes written.
func saved(t *testing.T, f *index.Flat) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, f, index.SnapshotMeta{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, raw
}

func int8s(v []int8) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

// After an erasure, EraseRemoved keeps the rows removed before it out of
// later snapshots too (a memory forgotten, then purged): their codes are
// in no snapshot written afterwards.
func TestEraseRemovedKeepsEarlierRowsOut(t *testing.T) {
	const n, d = 2000, 64
	vecs := topicVecs(9, n, d, 20, 0.8)
	f := projFlat(16)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i + 1)
	}
	f.AddBatch(keys, vecs)
	var gone [][]int8
	for _, k := range []uint64{10, 500, 1500} {
		c, _, _ := index.StoredRow(f, k)
		gone = append(gone, c)
		f.Remove(k)
	}
	if st := f.Stats(); st.Erased != 0 || st.Graph == 0 {
		t.Fatalf("before EraseRemoved: %+v", st)
	}
	f.EraseRemoved()
	if st := f.Stats(); st.Erased != 3 {
		t.Fatalf("EraseRemoved marked %d rows, want the 3 removed", st.Erased)
	}
	_, raw := saved(t, f)
	for i, c := range gone {
		if bytes.Contains(raw, int8s(c)) {
			t.Errorf("removed row %d: its codes are in the snapshot", i)
		}
	}
}
