package index_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/index"
)

func projFlat(dims int) *index.Flat {
	return index.NewFlat(index.FlatConfig{Int8: true, Project: dims,
		Graph: index.GraphConfig{Min: 1000, M: 12, EfConstruction: 64, EfSearch: 48}})
}

// projReloaded saves f (a projFlat(32)'s) to a snapshot and loads it
// again, and returns the snapshot's path and the loaded index.
func projReloaded(t *testing.T, f *index.Flat) (string, *index.Flat) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, f, index.SnapshotMeta{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	b, _, err := index.LoadFlatFile(path, index.FlatConfig{Int8: true, Project: 32, Graph: index.GraphConfig{Min: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// projFilled is a projFlat(32) holding vecs under keys 0, 1, ….
func projFilled(vecs [][]float32) *index.Flat {
	f := projFlat(32)
	keys := make([]uint64, len(vecs))
	for i := range keys {
		keys[i] = uint64(i)
	}
	f.AddBatch(keys, vecs)
	return f
}

// The projected first stage: Calibrate builds it beside the graph and
// measures it; with every row as a candidate it answers exactly as the
// scan does, and with the calibrated count it reaches the target; rows
// added later are projected too, removed rows and filters are honoured,
// and a snapshot keeps it (mapped or read) with the same answers.
//
// Not parallel, nor is any test that turns snapshot mapping off
// (SetMapSnapshots): the switch is the package's, and a parallel test
// loading a snapshot meanwhile (TestAddsLeaveColdCodesOut) found it off.
func TestProjection(t *testing.T) {
	const n, d = 12000, 256
	vecs := topicVecs(31, n+300, d, 60, 0.8)
	qs, more := vecs[n:n+100], vecs[n+100:]
	f := projFilled(vecs[:n])
	if st := f.Stats(); st.ProjectDims != 0 || !f.NeedsCalibration() {
		t.Fatalf("before calibration: %+v, needs calibration %v", st, f.NeedsCalibration())
	}
	c := f.Calibrate(qs, 10, index.CalibrationTarget)
	t.Logf("%+v", c)
	st := f.Stats()
	if st.ProjectDims != 32 || st.ProjectBytes != n*64 || st.ProjectCand == 0 || f.NeedsCalibration() {
		t.Fatalf("after calibration: %+v", st)
	}
	// Calibration's choice depends on timing (a busy machine can leave
	// either off); it must be what the index now does.
	switch c.Use {
	case "graph":
		if st.GraphOff || !st.ProjectOff {
			t.Fatalf("calibration chose the graph: %+v", st)
		}
	case "projection":
		if !st.GraphOff || st.ProjectOff {
			t.Fatalf("calibration chose the projection: %+v", st)
		}
	case "scan":
		if !st.GraphOff || !st.ProjectOff {
			t.Fatalf("calibration chose the scan: %+v", st)
		}
	default:
		t.Fatalf("calibration chose %q", c.Use)
	}
	for _, q := range qs[:20] {
		if got, want := f.SearchCand(q, 10, n, nil), f.SearchExact(q, 10, nil); !slices.Equal(got, want) {
			t.Fatalf("every row a candidate: %v, want the scan's %v", got, want)
		}
	}
	recallAtCand := func(cand int) float64 {
		hit, total := 0, 0
		for _, q := range qs {
			want := map[uint64]bool{}
			for _, r := range f.SearchExact(q, 10, nil) {
				want[r.Key] = true
			}
			for _, r := range f.SearchCand(q, 10, cand, nil) {
				if want[r.Key] {
					hit++
				}
			}
			total += len(want)
		}
		return float64(hit) / float64(total)
	}
	// The leading 32 of 256 directions hold the topics: 400 candidates of
	// 12,000 (a thirtieth) reach the target. And what calibration
	// measured at its candidate count is what a search gets there.
	if r := recallAtCand(400); r < index.CalibrationTarget {
		t.Fatalf("recall %.3f at 400 candidates", r)
	}
	if r := recallAtCand(st.ProjectCand); r != c.ProjRecall {
		t.Fatalf("recall %.3f at the calibrated %d candidates, calibration measured %.3f", r, st.ProjectCand, c.ProjRecall)
	}

	// Search answers through the projection once it is chosen.
	if !index.UseProjection(f, 200) {
		t.Fatal("no projection to use")
	}
	for _, q := range qs[:20] {
		if got, want := f.Search(q, 10, nil), f.SearchCand(q, 10, 200, nil); !slices.Equal(got, want) {
			t.Fatalf("Search %v, want the projection's %v", got, want)
		}
	}
	// Rows added later are projected on Add.
	for i, v := range more {
		f.Add(uint64(n+i), v)
	}
	for i, v := range more[:20] {
		if got := f.Search(v, 1, nil); len(got) != 1 || got[0].Key != uint64(n+i) {
			t.Fatalf("row %d added after the projection is not found by its own vector: %v", n+i, got)
		}
	}
	// Removed rows are never returned; a filter admitting fewer than k
	// rows falls back to the scan.
	for _, r := range f.Search(qs[0], 30, nil) {
		f.Remove(r.Key)
	}
	removedOK := func(rs []index.Result) bool {
		for _, r := range rs {
			if _, ok := f.Vector(r.Key); !ok {
				return false
			}
		}
		return true
	}
	if got := f.Search(qs[0], 30, nil); len(got) != 30 || !removedOK(got) {
		t.Fatalf("after removing the first 30: %v", got)
	}
	few := func(k uint64) bool { return k%1000 == 7 }
	admitted := 0
	for k := range uint64(n + len(more)) {
		if _, live := f.Vector(k); live && few(k) {
			admitted++
		}
	}
	if got := f.Search(qs[1], 20, few); len(got) != admitted || admitted >= 20 {
		t.Fatalf("a filter admitting %d rows: %d results", admitted, len(got))
	}

	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("snapshot mapped=%v", mapped), func(t *testing.T) {
			defer index.SetMapSnapshots(index.SetMapSnapshots(mapped))
			path, b := projReloaded(t, f)
			if got, want := b.Stats(), f.Stats(); got.ProjectDims != want.ProjectDims || got.ProjectCand != 200 || got.ProjectOff || !got.GraphOff || b.NeedsCalibration() {
				t.Fatalf("loaded stats %+v, saved %+v", got, want)
			}
			// Mapped, the codes are cold: candidates are read from the
			// file, and stay so after an exact scan has read them all.
			if index.ColdCodes(b) != mapped {
				t.Fatalf("mapped %v, codes read from the file: %v", mapped, index.ColdCodes(b))
			}
			for _, q := range append(qs[:20], more[:5]...) {
				if got, want := b.Search(q, 10, nil), f.Search(q, 10, nil); !slices.Equal(got, want) {
					t.Fatalf("loaded index answers %v, saved %v", got, want)
				}
				if got, want := b.SearchExact(q, 10, nil), f.SearchExact(q, 10, nil); !slices.Equal(got, want) {
					t.Fatalf("loaded index scans to %v, saved %v", got, want)
				}
			}
			// Scoring given keys reads cold rows from the file (a few)
			// or through the mapping (many), with the same answers.
			for _, nk := range []int{100, 5000} {
				var ks []uint64
				for k := uint64(100); len(ks) < nk; k++ {
					if _, ok := f.Vector(k); ok {
						ks = append(ks, k)
					}
				}
				if got, want := b.SearchKeys(qs[2], 10, ks), f.SearchKeys(qs[2], 10, ks); !slices.Equal(got, want) {
					t.Fatalf("%d keys: loaded index scores %v, saved %v", nk, got, want)
				}
			}
			// Rows added after loading live on the heap, and are found.
			extra := topicVecs(31, n+320, d, 60, 0.8)[n+300:]
			for i, v := range extra {
				b.Add(uint64(50000+i), v)
			}
			for i, v := range extra {
				if got := b.Search(v, 1, nil); len(got) != 1 || got[0].Key != uint64(50000+i) {
					t.Fatalf("row added after loading not found by its vector: %v", got)
				}
			}
			// Calibrated off again (a target nothing reaches), the
			// projection stops answering and the codes are read through
			// the mapping once more.
			if c := b.Calibrate(qs, 10, 1.01); c.Use != "scan" || index.ColdCodes(b) || !b.Stats().ProjectOff {
				t.Fatalf("calibrated to an unreachable target: %+v, cold %v", c, index.ColdCodes(b))
			}
			for _, q := range qs[:5] {
				if got, want := b.Search(q, 10, nil), b.SearchExact(q, 10, nil); !slices.Equal(got, want) {
					t.Fatalf("scanning after the projection was switched off: %v, want %v", got, want)
				}
			}
			// A configuration without a projection loads the rows and
			// the graph and leaves the projection out.
			c, _, err := index.LoadFlatFile(path, index.FlatConfig{Int8: true, Graph: index.GraphConfig{Min: 1000}})
			if err != nil {
				t.Fatal(err)
			}
			if st := c.Stats(); st.ProjectDims != 0 || st.Graph == 0 || c.Len() != f.Len() {
				t.Fatalf("loaded without a projection: %+v", st)
			}
		})
	}
}

// A projection kept off on its cost alone is timed again like a graph
// (Retime), and switched on when it then costs under half the scan. Here
// the graph's searches wait in every timing and the projection's only in
// the calibration's (a load that passed), the scans slowed as in the
// graph's calibration tests; the snapshot keeps the projection's mark.
// (Not parallel: the hooks are the package's.)
func TestRetimeAProjection(t *testing.T) {
	const n, d = 12000, 256
	vecs := topicVecs(31, n+100, d, 60, 0.8)
	qs := vecs[n:]
	f := projFilled(vecs[:n])
	_, unslow := slowScans(0)
	defer unslow()
	projLoaded := true
	restore := index.StallPairedSearch(func(m, i int) {
		if m == 1 || (m == 2 && projLoaded) {
			time.Sleep(5 * time.Millisecond) // five slowed scans
		}
	})
	defer restore()
	c := f.Calibrate(qs, 10, index.CalibrationTarget)
	t.Logf("calibrated: %+v", c)
	if c.Use != "scan" || c.ProjRecallLow < index.CalibrationTarget || !f.RetimeDue() {
		t.Fatalf("%+v, retime due %v; want the projection reaching the target, kept off on its cost", c, f.RetimeDue())
	}
	_, b := projReloaded(t, f)
	projLoaded = false
	r, ok := b.Retime(qs, 10)
	t.Logf("timed again: %+v", r)
	if !ok || r.Use != "projection" || r.Cand == 0 || r.Retimed != 1 {
		t.Fatalf("loaded and timed again without the projection's load: %+v, %v; want the projection", r, ok)
	}
	if st := b.Stats(); st.ProjectOff || !st.GraphOff || st.ProjectCand == 0 || b.RetimeDue() {
		t.Fatalf("after the projection was switched on: %+v, retime due %v", st, b.RetimeDue())
	}
}

// The basis follows the data: once the index has doubled since the
// projection was calibrated, the next calibration computes it again from
// the rows then present, so rows on topics the first basis never saw are
// found through the projection.
func TestProjectionFollowsNewTopics(t *testing.T) {
	t.Parallel()
	const n, d = 6000, 256
	first := topicVecs(41, n, d, 40, 0.8)
	later := topicVecs(43, n+100, d, 40, 0.8) // other centres
	f := projFlat(32)
	for i, v := range first {
		f.Add(uint64(i), v)
	}
	f.Calibrate(first[:100], 10, index.CalibrationTarget)
	for i, v := range later[:n] {
		f.Add(uint64(n+i), v)
	}
	found := func() int {
		hit := 0
		for i, v := range later[:50] {
			if got := f.SearchCand(v, 1, 30, nil); len(got) == 1 && got[0].Key == uint64(n+i) {
				hit++
			}
		}
		return hit
	}
	before := found()
	if !f.NeedsCalibration() {
		t.Fatal("an index that doubled does not ask for calibration")
	}
	c := f.Calibrate(later[n:], 10, index.CalibrationTarget)
	after := found()
	t.Logf("new-topic rows found first by their own vector: %d/50 before, %d/50 after; %+v", before, after, c)
	if after < 48 || after < before+5 {
		t.Fatalf("new-topic rows found first: %d/50 before the new basis, %d/50 after", before, after)
	}
}

// A snapshot whose projection was written before its codes were 4-bit
// still loads, mapped or read: its rows and graph are kept, its
// projection is passed over (searches scan or walk the graph meanwhile)
// and the next calibration builds a new one.
//
// Not parallel: it turns snapshot mapping off (see TestProjection).
func TestAnOlderProjectionIsBuiltAgain(t *testing.T) {
	const n, d = 4000, 256
	vecs := topicVecs(51, n+50, d, 30, 0.8)
	qs := vecs[n:]
	f := projFilled(vecs[:n])
	f.Calibrate(qs, 10, index.CalibrationTarget)
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			defer index.SetMapSnapshots(index.SetMapSnapshots(mapped))
			path := filepath.Join(t.TempDir(), "v.idx")
			if err := index.SaveFlatFile(path, f, index.SnapshotMeta{Model: "m"}); err != nil {
				t.Fatal(err)
			}
			if err := index.DowngradeProjection(path, f); err != nil {
				t.Fatal(err)
			}
			b, _, err := index.LoadFlatFile(path, index.FlatConfig{Int8: true, Project: 32, Graph: index.GraphConfig{Min: 1000}})
			if err != nil {
				t.Fatal(err)
			}
			if st := b.Stats(); st.ProjectDims != 0 || st.Graph != n || b.Len() != n || !b.NeedsCalibration() || index.Mapped(b) != mapped {
				t.Fatalf("loaded: %+v, needs calibration %v, mapped %v", st, b.NeedsCalibration(), index.Mapped(b))
			}
			for _, q := range qs[:10] {
				if got, want := b.SearchExact(q, 10, nil), f.SearchExact(q, 10, nil); !slices.Equal(got, want) {
					t.Fatalf("loaded index scans to %v, saved %v", got, want)
				}
			}
			b.Calibrate(qs, 10, index.CalibrationTarget)
			if st := b.Stats(); st.ProjectDims != 32 || st.ProjectCand == 0 {
				t.Fatalf("calibrated again: %+v", st)
			}
			for _, q := range qs[:10] {
				if got, want := b.SearchCand(q, 10, n, nil), b.SearchExact(q, 10, nil); !slices.Equal(got, want) {
					t.Fatalf("the new projection with every row a candidate: %v, want %v", got, want)
				}
			}
		})
	}
}
