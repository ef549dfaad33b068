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
}

// NeedsCalibration reports whether f has a graph that was never
// calibrated, or was calibrated at less than half its live size.
func (f *Flat) NeedsCalibration() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.g != nil && (f.g.calRows == 0 || 2*f.g.calRows <= len(f.rowOf))
}

// Calibrate chooses the graph's beam width on queries (see above): for
// beams from the configured one upwards, doubling, the mean share of the
// exact scan's top k that the graph returns; the first to reach target
// is kept if its mean time is under half the scan's, otherwise the graph
// is turned off. It takes the read lock one search at a time, so searches
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
	for ; ; ef *= 2 {
		ef = min(ef, maxCalibratedEf)
		hit, total := 0, 0
		start := time.Now()
		for i, q := range queries {
			res := f.SearchEf(q, k, ef, nil)
			for _, r := range res {
				if exact[i][r.Key] {
					hit++
				}
			}
			total += len(exact[i])
		}
		c.Graph = time.Since(start) / time.Duration(len(queries))
		c.Ef, c.Recall = ef, float64(hit)/float64(max(total, 1))
		if c.Recall >= target || ef == maxCalibratedEf || c.Graph >= c.Exact/2 {
			break
		}
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
// rows (decoded from int8 codes in Int8 mode): stand-in queries for
// Calibrate when too few real ones are known.
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
