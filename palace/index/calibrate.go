package index

import (
	"math"
	"slices"
	"time"
)

// Calibration: an approximate search's recall depends on the data.
// Sentence embeddings (a few hundred dense dimensions with topical
// structure) are navigated at recall@10 above 0.99 with a narrow beam;
// bag-of-words vectors (the hash embedder) have no such structure and need
// a beam ten or forty times wider for the same recall, by which point the
// exact scan is as fast; the default encoder's vectors at 1M rows need a
// beam of ~1,700, and the projection a few hundred candidates. So widths
// are not constants but measured on the palace's own data: Calibrate
// searches sample queries each way and keeps the narrowest beam and
// candidate count that reach the target recall against the exact scan
// (with confidence: see calibrationZ),
// switches on the cheaper of the two, and neither (Search scans) when
// neither reaches it at less than half the scan's cost.

// CalibrationTarget is the recall@10 against the exact scan a calibrated
// graph or projection must reach (issue 15's goal).
const CalibrationTarget = 0.95

// calibrationZ sets how sure a calibration must be that a width reaches
// the target: a width counts when the lower one-sided 95% confidence
// bound of its mean recall over the sample queries (the mean less 1.645
// standard errors, the queries' recalls varying from one query to the
// next) reaches it, not the mean alone. The mean is a sample's estimate:
// a width chosen where it just reaches the target misses the target about
// half the time, and near the target the recall curve is flat, so the
// sample's error (a standard error of 0.006–0.01 with 100–200 queries)
// moves the width a long way: at 1M drawers 100 questions chose 1,440
// projected candidates where 200 others reach 0.95 at 500, and a choice
// made at a mean of 0.951 measured 0.931 on other questions afterwards.
const calibrationZ = 1.645

// calibrationVersion is recorded with a calibration in the snapshot: a
// snapshot calibrated by an older version asks to be measured again
// (NeedsCalibration). 1: the last doubling is bisected. 2: the palace
// measures on its own queries only (Palace.CalibrateIndex). 3: a width
// counts when its recall's lower confidence bound reaches the target.
const calibrationVersion = 3

// maxCalibratedEf is the widest beam tried.
const maxCalibratedEf = 4096

// Calibration is what Calibrate measured and chose.
type Calibration struct {
	Queries int     `json:"queries"`
	Ef      int     `json:"ef"`     // the beam chosen (0: graph off)
	Recall  float64 `json:"recall"` // at Ef, against the exact scan
	// RecallLow is the lower confidence bound on Recall (calibrationZ),
	// what has to reach the target.
	RecallLow float64 `json:"recall_low"`
	// Graph, Proj and Exact are the cost of one query in CPU time, the
	// median of those timed side by side (pairedCosts) when one of the
	// first two was in the running, else the mean of the width search:
	// the graph search runs on one core, the projected and the exact
	// scans are split across up to GOMAXPROCS cores (their wall time
	// times the parts they ran in).
	Graph time.Duration `json:"graph_ns"`
	Exact time.Duration `json:"exact_ns"`
	// Cand is the projection's candidate count (0: none, or not chosen),
	// ProjRecall its recall against the exact scan, ProjRecallLow that
	// recall's lower confidence bound.
	Cand          int           `json:"cand,omitempty"`
	ProjRecall    float64       `json:"proj_recall,omitempty"`
	ProjRecallLow float64       `json:"proj_recall_low,omitempty"`
	Proj          time.Duration `json:"proj_ns,omitempty"`
	// Use is what answers Search: "graph", "projection" or "scan".
	Use string `json:"use"`
	Off bool   `json:"off"` // Search scans (Use == "scan")
	// Reached is the narrowest beam found to reach the target (0: none
	// did), kept even when it cost too much to switch the graph on.
	Reached int `json:"reached_ef,omitempty"`
	// Retimed counts the times the choice was timed again (Retime) since
	// the widths were measured: 0 for the calibration itself.
	Retimed int `json:"retimed,omitempty"`
}

// HoldGraph switches off a graph that was never calibrated: Search scans
// until Calibrate has measured it. A calibrated graph keeps its choice.
// (A projection is never used before it is calibrated.)
func (f *Flat) HoldGraph() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.g != nil && f.g.calRows == 0 {
		f.g.off = true
	}
}

// NeedsCalibration reports whether f has a graph that was never
// calibrated or was calibrated at less than half its live size, or a
// projection that is due or not yet calibrated.
func (f *Flat) NeedsCalibration() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.needsCalibration()
}

// needsCalibration is NeedsCalibration; caller holds f.mu.
func (f *Flat) needsCalibration() bool {
	return f.g != nil && (f.g.calRows == 0 || 2*f.g.calRows <= len(f.rowOf) ||
		f.projectDue() || (f.pj != nil && f.pj.calRows == 0))
}

// Calibrate chooses how Search answers, on queries (see above). It builds
// the projection first when one is due. Then, for the graph's beam width
// and the projection's candidate count, each from its starting value
// upwards, doubling and then bisecting the last doubling, it measures the
// mean share of the exact scan's top k returned and that mean's lower
// confidence bound; for each the narrowest width whose bound reaches
// target counts if its cost is under half the scan's, both timed again
// side by side (pairedCosts, medians), and the cheaper of
// the two answers Search. When neither
// qualifies Search scans. It takes the read lock one search at a time,
// so searches and writes go on meanwhile. Without a graph it does
// nothing.
func (f *Flat) Calibrate(queries [][]float32, k int, target float64) Calibration {
	c := Calibration{Queries: len(queries), Use: "scan"}
	f.mu.RLock()
	g := f.g
	f.mu.RUnlock()
	if g == nil || len(queries) == 0 || k <= 0 {
		return c
	}
	f.buildProjection()
	f.mu.RLock()
	live, pj := len(f.rowOf), f.pj
	parts := scanParts(len(f.keys) * f.dim)
	ef := DefaultGraphEfSearch
	if g.cfg.EfSearch > 0 && g.calRows == 0 {
		ef = g.cfg.EfSearch
	}
	f.mu.RUnlock()
	exact := make([]map[uint64]bool, len(queries))
	start := time.Now()
	for i, q := range queries {
		exact[i] = map[uint64]bool{}
		for _, r := range f.timedScan(q, k) {
			exact[i][r.Key] = true
		}
	}
	c.Exact = time.Since(start) * time.Duration(parts) / time.Duration(len(queries))
	measure := func(search func(q []float32) []Result, cores int) (recall, low float64, cost time.Duration) {
		hit, total := 0, 0
		each := make([]float64, 0, len(queries))
		start := time.Now()
		for i, q := range queries {
			if widthLoad != nil {
				widthLoad()
			}
			h := 0
			for _, r := range search(q) {
				if exact[i][r.Key] {
					h++
				}
			}
			hit, total = hit+h, total+len(exact[i])
			if len(exact[i]) > 0 {
				each = append(each, float64(h)/float64(len(exact[i])))
			}
		}
		cost = time.Since(start) * time.Duration(cores) / time.Duration(len(queries))
		recall = float64(hit) / float64(max(total, 1))
		return recall, recall - calibrationZ*standardError(each), cost
	}

	// One untimed pass each, so that the first width is not charged for
	// bringing the graph's links or the projected codes into the cache.
	ef = max(ef, k)
	for _, q := range queries {
		f.SearchEf(q, k, ef, nil)
	}
	c.Ef, c.Recall, c.RecallLow, c.Graph = narrowest(ef, maxCalibratedEf, target, c.Exact, func(ef int) (float64, float64, time.Duration) {
		return measure(func(q []float32) []Result { return f.SearchEf(q, k, ef, nil) }, 1)
	})
	if c.RecallLow >= target {
		c.Reached = c.Ef
	}
	projReached, pparts := false, 0
	if pj != nil {
		f.mu.RLock()
		pparts = scanParts(len(f.keys) * pj.dims)
		f.mu.RUnlock()
		cand := rerankFactor * k
		for _, q := range queries {
			f.SearchCand(q, k, cand, nil)
		}
		c.Cand, c.ProjRecall, c.ProjRecallLow, c.Proj = narrowest(cand, maxProjectCand, target, c.Exact, func(cand int) (float64, float64, time.Duration) {
			return measure(func(q []float32) []Result { return f.SearchCand(q, k, cand, nil) }, pparts)
		})
		projReached = c.ProjRecallLow >= target
	}
	// What decides is timed again side by side (pairedCosts): a load that
	// came and went while the widths were searched for would otherwise
	// weigh on whichever of them it fell in.
	useEf, useCand := 0, 0 // the widths in the running
	if c.RecallLow >= target {
		useEf = c.Ef
	}
	if projReached {
		useCand = c.Cand
	}
	f.timeChoice(&c, queries, k, useEf, useCand, parts, pparts)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.g == g { // not rebuilt meanwhile
		g.off, g.calRows = c.Use != "graph", max(live, 1)
		g.costOnly, g.retimed = useEf > 0 && c.Use == "scan", 0
		if useEf > 0 {
			// Kept while the scan answers too, for Retime.
			g.cfg.EfSearch = c.Ef
		}
	}
	if pj != nil && f.pj == pj {
		pj.off, pj.calRows, pj.calK = c.Use != "projection", max(live, 1), k
		pj.cand = max(c.Cand, 1) // measured, even when not chosen
		pj.costOnly = useCand > 0 && c.Use == "scan"
		if pj.off {
			f.warmCodes()
		} else {
			f.coolCodes()
		}
	}
	c.keepChosen()
	return c
}

// keepChosen leaves in c the width of what answers Search only: Ef for
// the graph, Cand for the projection.
func (c *Calibration) keepChosen() {
	if c.Use != "graph" {
		c.Ef = 0
	}
	if c.Use != "projection" {
		c.Cand = 0
	}
}

// timeChoice times the graph at beam useEf and the projection with
// useCand candidates (0: not in the running, having missed the target)
// side by side with the exact scan (pairedCosts), records their costs in
// c and chooses what answers Search: the cheaper of those that cost under
// half the scan, else the scan. parts and pparts are the cores the exact
// and the projected scans are split across.
func (f *Flat) timeChoice(c *Calibration, queries [][]float32, k, useEf, useCand, parts, pparts int) {
	c.Use = "scan"
	if useEf > 0 || useCand > 0 {
		exact, graph, proj := f.pairedCosts(queries[:min(len(queries), pairedQueries)], k, useEf, useCand)
		c.Exact = exact * time.Duration(parts)
		if useEf > 0 {
			c.Graph = graph
		}
		if useCand > 0 {
			c.Proj = proj * time.Duration(pparts)
		}
	}
	graphOK := useEf > 0 && c.Graph < c.Exact/2
	projOK := useCand > 0 && c.Proj < c.Exact/2
	switch {
	case graphOK && (!projOK || c.Graph <= c.Proj):
		c.Use = "graph"
	case projOK:
		c.Use = "projection"
	}
	c.Off = c.Use == "scan"
}

// Timing again. A calibration that found a beam or a candidate count
// reaching the target, and kept the scan only because the timing said it
// cost too much, may have been timed under a passing load: on a shared
// machine a 40,000-row graph's 27 µs a query once timed at 113 µs against
// the scan's 135 µs, and the choice would then hold until the palace
// doubled. The recall was measured and is not in doubt; only the cost is,
// so Retime times the same widths against the scan again (30 queries
// each, milliseconds to a few seconds of CPU), up to maxRetimes times
// after each calibration, and switches the cheaper on once one timing
// puts it under half the scan. A load can make a search slower, never
// faster, so one quiet timing outweighs a busy one. The palace retimes
// from its maintenance, once a minute, and from its dreamer's index pass
// (Palace.CalibrateIndex), so the timings fall minutes apart.

// maxRetimes is how many times Retime may time a calibration's choice
// again: a handful of independent timings, enough that a load passing
// through one is unlikely to fall on all, and few enough that a scan
// that really is as fast is not timed without end. It counts per process
// (a restart may time again), and a new calibration starts it over.
const maxRetimes = 3

// flagCostOnly marks, in a graph's or a projection's snapshot flags, a
// width that reached the target and was kept off by its cost alone
// (Retime may time it again).
const flagCostOnly = 1 << 2

// RetimeDue reports whether Retime would time anything: f's calibration
// is current (NeedsCalibration is false), the scan answers Search,
// a width reached the target there and lost on its cost alone, and it has
// been timed again fewer than maxRetimes times in this process.
func (f *Flat) RetimeDue() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	ef, cand, _ := f.retimeWidths()
	return ef > 0 || cand > 0
}

// retimeWidths returns the widths Retime would time (0: none) and the
// result count the projection's was measured for. Caller holds f.mu.
func (f *Flat) retimeWidths() (ef, cand, k int) {
	g, pj := f.g, f.pj
	if g == nil || f.needsCalibration() || g.retimed >= maxRetimes || !g.off || pj.usable() {
		return 0, 0, 0
	}
	if g.costOnly {
		ef = g.cfg.EfSearch
	}
	if pj != nil && pj.costOnly && pj.cand > 0 && pj.calK > 0 {
		cand, k = pj.cand, pj.calK
	}
	return ef, cand, k
}

// Retime times the widths a calibration kept off on their cost alone
// against the exact scan again, on queries (see above), and switches on
// the one that now costs under half the scan (the cheaper, when both do).
// It reports false, and does nothing, when no timing is due (RetimeDue).
// The Calibration it returns holds the widths, the costs and the choice;
// its recall fields are zero, the recall not having been measured again.
func (f *Flat) Retime(queries [][]float32, k int) (Calibration, bool) {
	f.mu.RLock()
	g, pj := f.g, f.pj
	ef, cand, pk := f.retimeWidths()
	parts := scanParts(len(f.keys) * f.dim)
	pparts := 0
	if cand > 0 {
		pparts, k = scanParts(len(f.keys)*pj.dims), pk
	}
	f.mu.RUnlock()
	if (ef == 0 && cand == 0) || len(queries) == 0 || k <= 0 {
		return Calibration{}, false
	}
	c := Calibration{Queries: min(len(queries), pairedQueries), Ef: ef, Reached: ef, Cand: cand}
	f.timeChoice(&c, queries, k, ef, cand, parts, pparts)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.g != g || f.pj != pj { // rebuilt meanwhile: measured afresh
		return c, true
	}
	g.retimed++
	c.Retimed = g.retimed
	switch c.Use {
	case "graph":
		g.off, g.costOnly = false, false
		if pj != nil {
			pj.costOnly = false
		}
	case "projection":
		pj.off, pj.costOnly, g.costOnly = false, false, false
		f.coolCodes()
	}
	c.keepChosen()
	return c, true
}

// pairedQueries is how many queries pairedCosts times: enough that the
// means of three costs that differ by a factor of two or more are told
// apart (a search's cost varies from query to query by tens of percent,
// so the standard error of 30 is a few percent), few enough that timing
// the exact scan again adds little to a calibration (about 4 s of CPU at
// a million rows of 996 dimensions).
const pairedQueries = 30

// widthLoad, when set (by a test), runs inside the timing of each query
// of the width search: a load that pairedCosts does not see.
var widthLoad func()

// scanLoad, when set (by a test), runs inside the timing of every exact
// scan Calibrate times: the width search's limit and the costs timed side
// by side.
var scanLoad func()

// timedScan is the exact scan as Calibrate times it: SearchExact, then a
// test's scanLoad.
func (f *Flat) timedScan(q []float32, k int) []Result {
	rs := f.SearchExact(q, k, nil)
	if scanLoad != nil {
		scanLoad()
	}
	return rs
}

// pairedStall, when set (by a test), runs inside the timing of the i-th
// search of pairedCosts' method m (0 the scan, 1 the graph, 2 the
// projection).
var pairedStall func(m, i int)

// pairedCosts times the exact scan, the graph at beam ef and the
// projection with cand candidates (each when not 0) on every query in
// turn, in an order that rotates from query to query, and returns the
// median wall time of one search each. Timed this way, load from
// elsewhere that comes and goes weighs on the three alike; and a stall
// (the process descheduled, a collection) that falls on one search of
// one of them moves no median, where it moved the mean: at 40,000 rows a
// beam's 27 µs a query became a mean of 100 µs against the scan's 120 µs
// on a loaded machine, which switched the graph off.
func (f *Flat) pairedCosts(queries [][]float32, k, ef, cand int) (exact, graph, proj time.Duration) {
	if len(queries) == 0 {
		return 0, 0, 0
	}
	var times [3][]time.Duration
	timed := func(m int, search func()) {
		start := time.Now()
		search()
		if pairedStall != nil {
			pairedStall(m, len(times[m]))
		}
		times[m] = append(times[m], time.Since(start))
	}
	for i, q := range queries {
		for j := range 3 {
			switch m := (i + j) % 3; m {
			case 0:
				timed(m, func() { f.timedScan(q, k) })
			case 1:
				if ef > 0 {
					timed(m, func() { f.SearchEf(q, k, ef, nil) })
				}
			case 2:
				if cand > 0 {
					timed(m, func() { f.SearchCand(q, k, cand, nil) })
				}
			}
		}
	}
	return median(times[0]), median(times[1]), median(times[2])
}

// median returns the median of ds (0 for none); it sorts ds.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	if n := len(ds); n%2 == 0 {
		return (ds[n/2-1] + ds[n/2]) / 2
	}
	return ds[len(ds)/2]
}

// narrowest finds the narrowest width (a beam, a candidate count) whose
// recall's lower bound, as measure reports it, reaches target: it doubles the width
// from start until it does (or reaches widest, or costs as much as
// limit: wider only costs more), then narrows the last doubling by
// halving the gap three times, so that the width kept is within an
// eighth of the narrowest that reaches the target rather than up to twice
// it (at 1M drawers a beam of 1536 reached 0.946 and 3072 cost 0.55 of the
// scan: the graph was turned off where about 2,000 would have done). It
// returns the width with its recall, the recall's bound and the cost; the
// bound is below target when no width reached it.
func narrowest(start, widest int, target float64, limit time.Duration, measure func(w int) (recall, low float64, cost time.Duration)) (int, float64, float64, time.Duration) {
	w, lo := start, 0 // lo: the widest measured short of the target
	var recall, low float64
	var cost time.Duration
	for ; ; w *= 2 {
		w = min(w, widest)
		recall, low, cost = measure(w)
		if low >= target || w == widest || cost >= limit {
			break
		}
		lo = w
	}
	if low < target || lo == 0 {
		return w, recall, low, cost
	}
	for range 3 {
		mid := (lo + w) / 2
		if mid <= lo || mid >= w {
			break
		}
		if r, l, c := measure(mid); l >= target {
			w, recall, low, cost = mid, r, l, c
		} else {
			lo = mid
		}
	}
	return w, recall, low, cost
}

// standardError is the standard error of the mean of xs (0 for fewer than
// two).
func standardError(xs []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / n
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return math.Sqrt(sq / (n - 1) / n)
}

// SampleVectors returns up to n stored vectors spread evenly over the
// rows (decoded from int8 codes in Int8 mode), for benchmarks and tests.
// (They are poor stand-ins for queries when calibrating: see
// palace.CalibrateIndex.)
func (f *Flat) SampleVectors(n int) [][]float32 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if n <= 0 || len(f.rowOf) == 0 {
		return nil
	}
	return f.sampleRows(n)
}
