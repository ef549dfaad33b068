package index_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/index"
)

// topicVecs returns n unit vectors around c random centres, each centre
// plus Gaussian noise of norm ~spread: nearest neighbours share a topic
// and differ in detail, as sentence embeddings do.
func topicVecs(seed int64, n, d, c int, spread float64) [][]float32 {
	r := rand.New(rand.NewSource(seed))
	centres := unitVecs(seed+1, c, d)
	out := make([][]float32, n)
	sd := spread / math.Sqrt(float64(d))
	for i := range out {
		ce := centres[r.Intn(c)]
		v := make([]float32, d)
		var s float64
		for j := range v {
			v[j] = ce[j] + float32(sd*r.NormFloat64())
			s += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(s))
		}
		out[i] = v
	}
	return out
}

// recallAt is the share of the true top k (by brute force) that got holds.
func recallAt(got, want []index.Result) float64 {
	in := map[uint64]bool{}
	for _, r := range got {
		in[r.Key] = true
	}
	n := 0
	for _, r := range want {
		if in[r.Key] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func graphFlat(m index.Metric, min int) *index.Flat {
	return index.NewFlat(index.FlatConfig{Metric: m, Int8: true, Rerank: true,
		Graph: index.GraphConfig{Min: min, M: 12, EfConstruction: 64, EfSearch: 48}})
}

// The graph's answers match brute force on nearly every query, on data
// with structure (topics) and without (random directions), for both
// metrics; a search through the graph must not cost an exact scan.
func TestGraphRecall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		vecs [][]float32
		m    index.Metric
		min  int // rows at which the graph is built
		want float64
	}{
		{"topics-cosine", topicVecs(1, 6000, 48, 60, 0.8), index.Cosine, 1000, 0.95},
		{"topics-l2", topicVecs(2, 6000, 48, 60, 0.8), index.L2, 1000, 0.95},
		{"random-cosine", unitVecs(3, 6000, 24), index.Cosine, 1000, 0.95},
		// Built at once over 9000 rows: the parallel build.
		{"topics-parallel-build", topicVecs(8, 10000, 16, 100, 0.8), index.Cosine, 9000, 0.95},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			nb := len(tc.vecs) - 1000
			queries := tc.vecs[nb:]
			base := tc.vecs[:nb]
			f := graphFlat(tc.m, tc.min)
			ref := map[uint64][]float32{}
			for i, v := range base {
				f.Add(uint64(i+1), v)
				ref[uint64(i+1)] = v
			}
			if f.Stats().Graph == 0 {
				t.Fatal("no graph was built past Min")
			}
			var sum float64
			for _, q := range queries {
				sum += recallAt(f.Search(q, 10, nil), bruteForce(ref, q, 10, tc.m, nil))
			}
			if r := sum / float64(len(queries)); r < tc.want {
				t.Fatalf("recall@10 %.3f, want ≥ %.2f", r, tc.want)
			}
			st := f.Stats()
			if st.Scored == 0 || st.Scored/st.Searches > int64(len(base))/3 {
				t.Fatalf("a graph search scored %d of %d rows on average", st.Scored/max(1, st.Searches), len(base))
			}
		})
	}
}

// Removed keys are never returned, filters are honoured (falling back to
// the scan when the graph finds too few), a key can come back, and when
// the dead outnumber the living the graph is rebuilt without them.
func TestGraphRemoveFilterReAdd(t *testing.T) {
	t.Parallel()
	vecs := topicVecs(4, 4000, 32, 40, 0.8)
	f := graphFlat(index.Cosine, 500)
	ref := map[uint64][]float32{}
	for i, v := range vecs {
		f.Add(uint64(i), v)
		ref[uint64(i)] = v
	}
	for k := uint64(0); k < 4000; k += 2 {
		f.Remove(k)
		delete(ref, k)
	}
	if f.Len() != 2000 {
		t.Fatalf("Len %d, want 2000", f.Len())
	}
	queries := topicVecs(5, 50, 32, 40, 0.8)
	var sum float64
	for _, q := range queries {
		got := f.Search(q, 10, nil)
		for _, r := range got {
			if r.Key%2 == 0 {
				t.Fatalf("removed key %d returned", r.Key)
			}
		}
		sum += recallAt(got, bruteForce(ref, q, 10, index.Cosine, nil))
		// A filter that admits 1 row in 50: the graph finds too few,
		// the scan answers exactly.
		allow := func(k uint64) bool { return k%100 == 1 }
		sameTop(t, f.Search(q, 5, allow), bruteForce(ref, q, 5, index.Cosine, allow))
	}
	if r := sum / float64(len(queries)); r < 0.95 {
		t.Fatalf("recall@10 after removing half: %.3f", r)
	}
	// Removing past half rebuilds over the living.
	for k := uint64(1); k < 2400; k += 2 {
		f.Remove(k)
		delete(ref, k)
	}
	if st := f.Stats(); st.Rows >= 4000 || st.Graph != st.Rows {
		t.Fatalf("after removing most rows: %+v (live %d), want a rebuilt graph over the living", st, f.Len())
	}
	if !f.Add(10, vecs[10]) {
		t.Fatal("a removed key could not be added again")
	}
	ref[10] = vecs[10]
	if got := f.Search(vecs[10], 1, nil); len(got) != 1 || got[0].Key != 10 {
		t.Fatalf("re-added key not found first: %v", got)
	}
}

// SearchFiltered searches the graph, its beam widened, for a filter that
// admits most rows and scores the admitted rows for one that admits few,
// or when asked for the exact answer: the graph's answers keep their
// recall and hold admitted rows only, and the others are exact without a
// graph search.
func TestSearchFiltered(t *testing.T) {
	t.Parallel()
	// Rows enough that the graph costs less than the scan (by
	// SearchFiltered's reckoning), as in a palace past the graph's
	// threshold.
	const n = 30000
	vecs := topicVecs(6, n+100, 16, 100, 0.8)
	f := graphFlat(index.Cosine, n)
	ref := map[uint64][]float32{}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i + 1)
		ref[keys[i]] = vecs[i]
	}
	f.AddBatch(keys, vecs[:n])
	if f.Stats().Graph == 0 {
		t.Fatal("no graph was built past Min")
	}
	admitting := func(allow func(uint64) bool) int {
		n := 0
		for k := range ref {
			if allow(k) {
				n++
			}
		}
		return n
	}
	broad := func(k uint64) bool { return k%4 != 0 }   // three rows in four
	narrow := func(k uint64) bool { return k%25 == 1 } // one in 25
	middle := func(k uint64) bool { return k%5 < 2 }   // two in five
	nb, nn, nm := admitting(broad), admitting(narrow), admitting(middle)
	sum := map[string]float64{}
	queries := vecs[n:]
	for _, q := range queries {
		for name, c := range map[string]struct {
			allow    func(uint64) bool
			admitted int
		}{"broad": {broad, nb}, "middle": {middle, nm}} {
			before := f.Stats().Searches
			got := f.SearchFiltered(q, 10, c.allow, c.admitted, false)
			if name == "broad" && f.Stats().Searches != before+1 {
				t.Fatal("a filter admitting three rows in four was not searched through the graph")
			}
			for _, r := range got {
				if !c.allow(r.Key) {
					t.Fatalf("%s: key %d is not admitted", name, r.Key)
				}
			}
			sum[name] += recallAt(got, bruteForce(ref, q, 10, index.Cosine, c.allow))
		}
		before := f.Stats().Searches
		sameTop(t, f.SearchFiltered(q, 10, narrow, nn, false), bruteForce(ref, q, 10, index.Cosine, narrow))
		sameTop(t, f.SearchFiltered(q, 10, broad, nb, true), bruteForce(ref, q, 10, index.Cosine, broad))
		if f.Stats().Searches != before {
			t.Fatal("a filter admitting one row in 25, or an exact search, went through the graph")
		}
	}
	for name, r := range sum {
		if r /= float64(len(queries)); r < 0.95 {
			t.Fatalf("recall@10 within the %s filter %.3f, want ≥ 0.95", name, r)
		}
	}
	if f.SearchFiltered(queries[0], 10, narrow, 0, false) != nil {
		t.Fatal("a filter admitting nothing found something")
	}
}

// A snapshot keeps the graph: the loaded index answers as the saved one
// did, without rebuilding it, whether the file is mapped or read. (Not
// parallel: it switches mapping off for the package.)
func TestGraphSnapshotRoundTrip(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			defer index.SetMapSnapshots(index.SetMapSnapshots(mapped))
			graphRoundTrip(t)
		})
	}
}

func graphRoundTrip(t *testing.T) {
	vecs := topicVecs(6, 3000, 32, 30, 0.8)
	cfg := index.FlatConfig{Int8: true, Graph: index.GraphConfig{Min: 500, M: 12, EfConstruction: 64, EfSearch: 48}}
	a := index.NewFlat(cfg)
	for i, v := range vecs {
		a.Add(uint64(i), v)
	}
	for k := uint64(0); k < 300; k++ {
		a.Remove(k)
	}
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, a, index.SnapshotMeta{Model: "m", Seq: 7}); err != nil {
		t.Fatal(err)
	}
	b, meta, err := index.LoadFlatFile(path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A configuration without graphs does not take this file.
	noGraph := index.FlatConfig{Int8: true, Graph: index.GraphConfig{Min: -1}}
	if _, _, err := index.LoadFlatFile(path, noGraph); !errors.Is(err, index.ErrVersion) {
		t.Fatalf("loading a graph snapshot without graphs: %v, want ErrVersion", err)
	}
	if meta.Seq != 7 || b.Len() != a.Len() {
		t.Fatalf("loaded seq %d len %d, want 7 and %d", meta.Seq, b.Len(), a.Len())
	}
	if st := b.Stats(); st.Graph == 0 || st.Scored != 0 {
		t.Fatalf("loaded index has no graph or rebuilt it: %+v", st)
	}
	for _, q := range topicVecs(7, 30, 32, 30, 0.8) {
		got, want := b.Search(q, 10, nil), a.Search(q, 10, nil)
		if len(got) != len(want) {
			t.Fatalf("loaded index returned %d, saved %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("result %d: loaded %v, saved %v", i, got[i], want[i])
			}
		}
	}
	// The loaded graph goes on growing. A mapped graph's lists stay in
	// the file's pages until written: the first insert rewrites some
	// (copied on write) and moves them to the heap; the file itself never
	// changes.
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b.Add(99999, vecs[5])
	if got := b.Search(vecs[5], 2, nil); len(got) != 2 || (got[0].Key != 99999 && got[1].Key != 99999) {
		t.Fatalf("a key added after loading is not found: %v", got)
	}
	more := topicVecs(8, 200, 32, 30, 0.8)
	for i, v := range more {
		b.Add(uint64(100000+i), v)
	}
	for i, v := range more[:20] {
		if got := b.Search(v, 1, nil); len(got) != 1 || got[0].Key != uint64(100000+i) {
			t.Fatalf("added key %d not found first: %v", 100000+i, got)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("inserting into a loaded graph changed its snapshot file")
	}
	// What it grew into saves and loads like any graph.
	path2 := filepath.Join(t.TempDir(), "v2.idx")
	if err := index.SaveFlatFile(path2, b, index.SnapshotMeta{Model: "m", Seq: 8}); err != nil {
		t.Fatal(err)
	}
	c, _, err := index.LoadFlatFile(path2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(topicVecs(9, 20, 32, 30, 0.8), more[:20]...) {
		if got, want := c.Search(q, 10, nil), b.Search(q, 10, nil); !slices.Equal(got, want) {
			t.Fatalf("reloaded grown graph answers %v, want %v", got, want)
		}
	}
}

// slowScan is what the calibration tests add to every exact scan
// Calibrate times (index.LoadScan): far more than a beam's search here
// (tens of µs), so that the graph is worth switching on by the rule's own
// figures whatever the machine's load. Calibration times wall clock, and
// other work sharing the cores (the rest of the suite, in parallel)
// slows the single-threaded graph search far more than the scan: alone
// the graph took 33 µs a query against the scan's 90, and in one CI run's
// suite 61–84 µs against 88–116 three times in a row, on which figures
// the graph is rightly turned off. These tests check the beams found and
// how the costs are timed; what the graph saves on a machine is a
// benchmark's figure (BenchmarkEvalGraph).
const slowScan = time.Millisecond

// slowScans installs slowScan until the returned function is called, and
// returns with it the most Calibrate can charge one scan so slowed (its
// wall time times the cores it is split over) given scans, what 100 of
// them take here unslowed.
func slowScans(scans time.Duration) (charged time.Duration, restore func()) {
	charged = (scans/100 + 2*slowScan) * time.Duration(runtime.GOMAXPROCS(0))
	return charged, index.LoadScan(func() { time.Sleep(slowScan) })
}

// calibrateDisturbed calibrates a graph of 20,000 rows of 64 dimensions
// on 100 queries, its scans slowed (slowScans) and disturb's hook
// installed (disturb is given the most Calibrate charges one slowed scan,
// and returns the hook's restore).
func calibrateDisturbed(t *testing.T, disturb func(scan time.Duration) (restore func())) index.Calibration {
	t.Helper()
	_, _, c := calibratedDisturbed(t, disturb)
	return c
}

// calibratedDisturbed is calibrateDisturbed, returning the index and its
// queries too.
func calibratedDisturbed(t *testing.T, disturb func(scan time.Duration) (restore func())) (*index.Flat, [][]float32, index.Calibration) {
	t.Helper()
	const n = 20000
	topics := topicVecs(21, n+100, 64, 60, 0.8)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	f := graphFlat(index.Cosine, 1000)
	f.AddBatch(keys, topics[:n])
	start := time.Now()
	for _, q := range topics[n : n+100] {
		f.SearchExact(q, 10, nil)
	}
	scan, unslow := slowScans(time.Since(start))
	defer unslow()
	defer disturb(scan)()
	c := f.Calibrate(topics[n:n+100], 10, index.CalibrationTarget)
	t.Logf("%+v", c)
	return f, topics[n : n+100], c
}

// A load that comes and goes while calibration searches for the beam
// does not decide what answers: the costs that decide are timed again
// afterwards, the scan and the beam in turn query by query. Here each
// query of the width search waits inside its timing (a busy machine,
// simulated) for twice the most a scan is charged, which makes every beam
// cost more than the scan as the width search times it; calibrated on
// those figures, the scan would answer.
func TestCalibrationTimesItsChoiceSideBySide(t *testing.T) {
	var wait time.Duration
	waits := 0
	c := calibrateDisturbed(t, func(scan time.Duration) func() {
		wait = 2 * scan
		return index.LoadWidthSearch(func() {
			waits++
			time.Sleep(wait)
		})
	})
	if waits == 0 || c.Exact >= wait {
		t.Fatalf("%d waits of %v, the scan timed at %v: the width search was not the slower", waits, wait, c.Exact)
	}
	if c.Off || c.Use != "graph" || c.RecallLow < index.CalibrationTarget {
		t.Fatalf("%+v, want the graph on: its cost timed beside the scan's", c)
	}
}

// A stall that falls on one search (the process descheduled on a busy
// machine, a collection) does not decide what answers: the costs timed
// side by side are each one's median. Here the graph's first search in
// that timing waits for sixty times the most a scan is charged; its mean
// over the 30 searches would be twice the scan's, and the scan would
// answer.
func TestCalibrationPassesOverAStall(t *testing.T) {
	var stall time.Duration
	stalls := 0
	c := calibrateDisturbed(t, func(scan time.Duration) func() {
		stall = 60 * scan
		return index.StallPairedSearch(func(m, i int) {
			if m == 1 && i == 0 {
				stalls++
				time.Sleep(stall)
			}
		})
	})
	if stalls == 0 || stall/30 < c.Exact {
		t.Fatalf("%d stalls of %v, the scan timed at %v: the stall would not have moved a mean past it", stalls, stall, c.Exact)
	}
	if c.Off || c.Use != "graph" || c.Graph >= stall/30 {
		t.Fatalf("%+v, want the graph on, its cost the typical search's", c)
	}
}

// A load that lasts through the side-by-side timing keeps the scan,
// although a beam reached the target: the choice is then timed again
// (Retime), up to three times a process, the snapshot remembering that
// it may be, and the graph is switched on by the first timing that puts
// it under half the scan. Here every graph search of the first timings
// waits for twice the most a scan is charged (a busy machine, simulated).
func TestRetimeAfterALoadedTiming(t *testing.T) {
	var wait time.Duration
	loaded := true
	stall := func(m, i int) {
		if m == 1 && loaded {
			time.Sleep(wait)
		}
	}
	f, qs, c := calibratedDisturbed(t, func(scan time.Duration) func() {
		wait = 2 * scan
		return index.StallPairedSearch(stall)
	})
	if !c.Off || c.Use != "scan" || c.Reached == 0 || c.RecallLow < index.CalibrationTarget || c.Graph < c.Exact/2 {
		t.Fatalf("%+v, want a beam reaching the target and the scan kept on its cost", c)
	}
	if !f.RetimeDue() || f.NeedsCalibration() {
		t.Fatalf("kept off on its cost: retime due %v, calibration due %v; want a timing due, no calibration", f.RetimeDue(), f.NeedsCalibration())
	}
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, f, index.SnapshotMeta{Model: "m"}); err != nil {
		t.Fatal(err)
	}

	// Under the same load, each timing keeps the scan; after the third no
	// more are due.
	_, unslow := slowScans(0)
	defer unslow()
	restore := index.StallPairedSearch(stall)
	defer restore()
	for i := 1; i <= 3; i++ {
		r, ok := f.Retime(qs, 10)
		if !ok || r.Retimed != i || r.Use != "scan" || !r.Off || r.Ef != 0 || !f.Stats().GraphOff {
			t.Fatalf("timing %d under load: %+v, %v; want the scan kept", i, r, ok)
		}
	}
	if r, ok := f.Retime(qs, 10); ok || f.RetimeDue() {
		t.Fatalf("a fourth timing: %+v, %v; want none due", r, ok)
	}

	// The snapshot keeps the mark: a process that loads it times again,
	// and with the load gone the graph answers at the beam found.
	back, _, err := index.LoadFlatFile(path, index.FlatConfig{Metric: index.Cosine, Int8: true, Rerank: true,
		Graph: index.GraphConfig{Min: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if !back.RetimeDue() || back.NeedsCalibration() || !back.Stats().GraphOff {
		t.Fatalf("loaded: retime due %v, calibration due %v, stats %+v", back.RetimeDue(), back.NeedsCalibration(), back.Stats())
	}
	loaded = false
	r, ok := back.Retime(qs, 10)
	if !ok || r.Use != "graph" || r.Off || r.Ef != c.Reached || r.Retimed != 1 {
		t.Fatalf("timing without the load: %+v, %v; want the graph at beam %d", r, ok, c.Reached)
	}
	if st := back.Stats(); st.GraphOff || st.EfSearch != c.Reached || back.RetimeDue() {
		t.Fatalf("after the graph was switched on: stats %+v, retime due %v", st, back.RetimeDue())
	}
	before := back.Stats().Scored
	back.Search(qs[0], 10, nil)
	if back.Stats().Scored == before {
		t.Fatal("a search after the timing did not go through the graph")
	}
}

// Calibration keeps the narrowest beam that reaches the recall target on
// data a graph navigates well, and turns the graph off where no beam
// beats the scan (random directions, where every distance is alike); the
// choice survives a snapshot, and Search then answers exactly. The first
// two calibrations' scans are slowed (slowScans): they check the beam,
// not what this machine's load makes of the graph against the scan. (It
// does not run in parallel, for its hook's sake.)
func TestGraphCalibration(t *testing.T) {
	const n = 20000
	topics := topicVecs(21, n+100, 64, 60, 0.8)
	f := graphFlat(index.Cosine, 1000)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	f.AddBatch(keys, topics[:n])
	if !f.NeedsCalibration() {
		t.Fatal("a new graph does not ask for calibration")
	}
	_, unslow := slowScans(0)
	defer unslow() // on a failure before the random part
	c := f.Calibrate(topics[n:n+100], 10, index.CalibrationTarget)
	t.Logf("topics: %+v", c)
	if c.Off || c.Recall < index.CalibrationTarget || c.Ef == 0 || c.Ef > 256 {
		t.Fatalf("topics: %+v, want the graph on at a narrow beam", c)
	}
	if st := f.Stats(); st.EfSearch != c.Ef || st.GraphOff || f.NeedsCalibration() {
		t.Fatalf("topics: stats %+v after %+v", st, c)
	}

	// From a narrow beam the calibration doubles, then bisects the last
	// doubling: the beam found is within an eighth of the gap above one
	// that fell short, so seven eighths of it fall short too (searches are
	// deterministic; without the bisection the beam is up to twice the
	// narrowest, and seven eighths of it reach the target). Falling short
	// is judged as the calibration judges it: the recall's lower 95%
	// confidence bound over the queries.
	qs := topics[n : n+100]
	from2 := index.NewFlat(index.FlatConfig{Metric: index.Cosine, Int8: true, Rerank: true,
		Graph: index.GraphConfig{Min: 1000, M: 12, EfConstruction: 64, EfSearch: 2}})
	from2.AddBatch(keys, topics[:n])
	c2 := from2.Calibrate(qs, 10, 0.999)
	t.Logf("topics from a beam of 2: %+v", c2)
	unslow()
	if c2.Reached <= 10 {
		t.Fatalf("topics from a beam of 2: %+v, want a wider beam reaching 0.999", c2)
	}
	var each []float64
	for _, q := range qs {
		want := map[uint64]bool{}
		for _, r := range from2.SearchExact(q, 10, nil) {
			want[r.Key] = true
		}
		hit := 0
		for _, r := range from2.SearchEf(q, 10, c2.Reached*7/8, nil) {
			if want[r.Key] {
				hit++
			}
		}
		each = append(each, float64(hit)/float64(len(want)))
	}
	if r, low := index.LowerBound(each); low >= 0.999 {
		t.Fatalf("7/8 of the chosen beam (%d) reaches recall %.3f (bound %.4f): the beam was not narrowed (%+v)", c2.Reached*7/8, r, low, c2)
	}

	// 16 random dimensions at a beam of 2: the calibration must widen it.
	narrow := index.NewFlat(index.FlatConfig{Int8: true, Graph: index.GraphConfig{Min: 1000, M: 4, EfConstruction: 8, EfSearch: 2}})
	rnd := unitVecs(22, 4100, 16)
	for i, v := range rnd[:4000] {
		narrow.Add(uint64(i), v)
	}
	c = narrow.Calibrate(rnd[4000:], 10, index.CalibrationTarget)
	if !c.Off && (c.Recall < index.CalibrationTarget || c.Ef <= 10) {
		t.Fatalf("random: %+v, want a wider beam reaching the target, or the graph off", c)
	}
	// Forced off (a target no beam can reach): Search is the exact scan.
	c = narrow.Calibrate(rnd[4000:], 10, 1.01)
	if !c.Off || c.Ef != 0 || !narrow.Stats().GraphOff {
		t.Fatalf("unreachable target: %+v", c)
	}
	if r, ok := narrow.Retime(rnd[4000:], 10); ok || narrow.RetimeDue() {
		t.Fatalf("unreachable target: timed again (%+v); only a width that reached it is", r)
	}
	ref := map[uint64][]float32{}
	for i, v := range rnd[:4000] {
		ref[uint64(i)] = v
	}
	for _, q := range rnd[4000:4020] {
		got := narrow.Search(q, 10, nil)
		if r := recallAt(got, bruteForce(ref, q, 10, index.Cosine, nil)); r < 0.9 { // int8 codes, no re-rank
			t.Fatalf("graph off: recall %.2f", r)
		}
	}
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, narrow, index.SnapshotMeta{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	back, _, err := index.LoadFlatFile(path, index.FlatConfig{Int8: true, Graph: index.GraphConfig{Min: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if st := back.Stats(); !st.GraphOff || back.NeedsCalibration() {
		t.Fatalf("the calibration was not kept: %+v", st)
	}
}

// AddBatch adds as Add does (a key present or a vector of the wrong
// length is skipped and not counted), builds the graph when the batch
// crosses the threshold, and links later batches into it.
func TestAddBatch(t *testing.T) {
	t.Parallel()
	vecs := topicVecs(31, 3000, 24, 30, 0.8)
	f := graphFlat(index.Cosine, 1000)
	keys := make([]uint64, 0, 1500)
	for i := range 1500 {
		keys = append(keys, uint64(i))
	}
	if n := f.AddBatch(keys[:800], vecs[:800]); n != 800 || f.Stats().Graph != 0 {
		t.Fatalf("first batch: %d added, stats %+v", n, f.Stats())
	}
	batch := append([]uint64{5, 9999}, keys[800:1500]...)
	bv := append([][]float32{vecs[5], vecs[0][:3]}, vecs[800:1500]...)
	if n := f.AddBatch(batch, bv); n != 700 {
		t.Fatalf("second batch added %d, want 700 (a duplicate and a short vector skipped)", n)
	}
	if st := f.Stats(); st.Graph != 1500 || st.Live != 1500 {
		t.Fatalf("after crossing the threshold: %+v", st)
	}
	more := make([]uint64, 0, 1500)
	for i := 1500; i < 3000; i++ {
		more = append(more, uint64(i))
	}
	f.AddBatch(more, vecs[1500:])
	for i := 1500; i < 3000; i += 97 {
		if got := f.Search(vecs[i], 1, nil); len(got) != 1 || got[0].Key != uint64(i) {
			t.Fatalf("row %d linked by a batch is not its own nearest: %v", i, got)
		}
	}
}
