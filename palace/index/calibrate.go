package index

import (
	"time"
)

// Calibration: a graph's recall depends on the data. Sentence embeddings
// (a few hundred dense dimensions with topical structure) are navigated
// at recall@10 above 0.99 with a narrow beam; bag-of-words vectors (the
// hash embedder) have no such structure and need a beam ten or forty times
// wider for the same recall, by which point the exact scan is as fast.
// So the beam width is not a constant but measured on the palace's own
// data: Calibrate searches sample queries both ways and keeps the
// narrowest beam that reaches the target recall against the exact scan,
// and turns the graph off (Search scans) when no beam reaches it at less
// than half the scan's time.

// CalibrationTarget is the recall@10 against the exact scan a calibrated
// graph must reach (issue 15's goal).
const CalibrationTarget = 0.95

// calibrationVersion is recorded with a calibration in the snapshot: a
// snapshot calibrated by an older version asks to be measured again
// (NeedsCalibration). 1: the last doubling is bisected. 2: the palace
// measures on its own queries only (Palace.CalibrateIndex).
const calibrationVersion = 2

// maxCalibratedEf is the widest beam tried.
const maxCalibratedEf = 4096

// Calibration is what Calibrate measured and chose.
type Calibration struct {
	Queries int     `json:"queries"`
	Ef      int     `json:"ef"`     // the beam chosen (0: graph off)
	Recall  float64 `json:"recall"` // at Ef, against the exact scan
	// Graph and Exact are the mean cost of one query in CPU time: the
	// graph search runs on one core, the exact scan is split across up
	// to GOMAXPROCS cores (its wall time times the parts it ran in).
	Graph time.Duration `json:"graph_ns"`
	Exact time.Duration `json:"exact_ns"`
	Off   bool          `json:"off"` // Search scans instead
	// Reached is the narrowest beam found to reach the target (0: none
	// did), kept even when it cost too much to switch the graph on.
	Reached int `json:"reached_ef,omitempty"`
}

// HoldGraph switches off a graph that was never calibrated: Search scans
// until Calibrate has measured it. A calibrated graph keeps its choice.
func (f *Flat) HoldGraph() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.g != nil && f.g.calRows == 0 {
		f.g.off = true
	}
}

// NeedsCalibration reports whether f has a graph that was never
// calibrated, or was calibrated at less than half its live size.
func (f *Flat) NeedsCalibration() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.g != nil && (f.g.calRows == 0 || 2*f.g.calRows <= len(f.rowOf))
}

// Calibrate chooses the graph's beam width on queries (see above): for
// beams from the configured one upwards, doubling and then bisecting the
// last doubling, the mean share of the exact scan's top k that the graph
// returns; the narrowest found to reach target is kept if its mean time
// is under half the scan's, otherwise the graph is turned off. It takes the read lock one search at a time, so searches
// and writes go on meanwhile. Without a graph it does nothing.
func (f *Flat) Calibrate(queries [][]float32, k int, target float64) Calibration {
	c := Calibration{Queries: len(queries)}
	f.mu.RLock()
	g, live := f.g, len(f.rowOf)
	f.mu.RUnlock()
	if g == nil || len(queries) == 0 || k <= 0 {
		return c
	}
	exact := make([]map[uint64]bool, len(queries))
	start := time.Now()
	for i, q := range queries {
		exact[i] = map[uint64]bool{}
		for _, r := range f.SearchExact(q, k, nil) {
			exact[i][r.Key] = true
		}
	}
	f.mu.RLock()
	parts := f.scanParts()
	ef := DefaultGraphEfSearch
	if g.cfg.EfSearch > 0 && g.calRows == 0 {
		ef = g.cfg.EfSearch
	}
	f.mu.RUnlock()
	c.Exact = time.Since(start) * time.Duration(parts) / time.Duration(len(queries))
	ef = max(ef, k)
	// One untimed pass, so that the first beam width is not charged for
	// bringing the graph's links into the cache.
	for _, q := range queries {
		f.SearchEf(q, k, ef, nil)
	}
	measure := func(ef int) (float64, time.Duration) {
		hit, total := 0, 0
		start := time.Now()
		for i, q := range queries {
			for _, r := range f.SearchEf(q, k, ef, nil) {
				if exact[i][r.Key] {
					hit++
				}
			}
			total += len(exact[i])
		}
		return float64(hit) / float64(max(total, 1)), time.Since(start) / time.Duration(len(queries))
	}
	// Double the beam until it reaches the target (or costs more than the
	// scan: wider beams only cost more), then narrow the last doubling
	// down by halving the gap, so that the beam kept is within an eighth
	// of the narrowest that reaches the target rather than up to twice it
	// (at 1M drawers, 1536 reached 0.946 and 3072 cost 0.55 of the scan:
	// the graph was turned off where about 2,000 would have done).
	lo := 0 // the widest beam measured short of the target
	for ; ; ef *= 2 {
		ef = min(ef, maxCalibratedEf)
		c.Recall, c.Graph = measure(ef)
		c.Ef = ef
		if c.Recall >= target || ef == maxCalibratedEf || c.Graph >= c.Exact {
			break
		}
		lo = ef
	}
	if c.Recall >= target && lo > 0 {
		hi, hiRecall, hiCost := c.Ef, c.Recall, c.Graph
		for range 3 {
			mid := (lo + hi) / 2
			if mid <= lo || mid >= hi {
				break
			}
			if r, cost := measure(mid); r >= target {
				hi, hiRecall, hiCost = mid, r, cost
			} else {
				lo = mid
			}
		}
		c.Ef, c.Recall, c.Graph = hi, hiRecall, hiCost
	}
	if c.Recall >= target {
		c.Reached = c.Ef
	}
	c.Off = c.Recall < target || c.Graph >= c.Exact/2
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.g == g { // not rebuilt meanwhile
		g.off, g.calRows = c.Off, max(live, 1)
		if !c.Off {
			g.cfg.EfSearch = c.Ef
		}
	}
	if c.Off {
		c.Ef = 0
	}
	return c
}

// SampleVectors returns up to n stored vectors spread evenly over the
// rows (decoded from int8 codes in Int8 mode), for benchmarks and tests.
// (They are poor stand-ins for queries when calibrating: see
// palace.CalibrateIndex.)
func (f *Flat) SampleVectors(n int) [][]float32 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	live := len(f.rowOf)
	if n <= 0 || live == 0 {
		return nil
	}
	n = min(n, live)
	out := make([][]float32, 0, n)
	next := 0 // rows before next are taken or dead
	for i := range n {
		row := max(next, i*len(f.keys)/n)
		for row < len(f.keys) && f.dead[row] {
			row++
		}
		if row == len(f.keys) {
			break
		}
		out = append(out, f.vector(row))
		next = row + 1
	}
	return out
}
