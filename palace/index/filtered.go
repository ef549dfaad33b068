package index

import (
	"math"
	"math/bits"
)

// Searches of a subset of the rows: a filter's. Search applies a filter to
// what the graph's beam found, and scans every row when the beam held too
// few admitted rows; these score the admitted rows alone, in the order
// they are stored, or widen the beam when the filter admits most rows
// (SearchFiltered).

// SearchFiltered is Search for a filter that admits about admitted of the
// live rows (the caller counts them: a palace knows its filter's drawers).
// Of three ways it takes the one that reads the fewest rows, counted in
// rows of the sequential scan:
//
//   - scoring the admitted rows (SearchAllowed), exact: scatteredRowCost
//     for each;
//   - scanning every row, exact: one for each;
//   - when a graph answers, searching it with its beam widened, where
//     need be, so that it holds the k rows wanted among the rows it
//     admits, with a margin of three standard deviations of their count
//     (were the beam's rows a random draw): graphRowCost for each row the
//     search scores, beamScored (measured on this index's searches) for
//     each row of its beam. When the widened beam still holds fewer than
//     k admitted rows, the cheaper of the other two answers.
//
// Search tries its beam as it is: no wider than the candidates a palace
// asks for unless the graph was calibrated wider, it holds k admitted
// rows only for a filter admitting most rows, and otherwise it scans.
// When the projection answers instead of a graph, the search is Search's:
// the projection ranks admitted rows alone. exact asks for the exact
// answer, as SearchExact gives: the first way or the second.
func (f *Flat) SearchFiltered(q []float32, k int, allow func(key uint64) bool, admitted int, exact bool) []Result {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if k = f.wanted(q, k); k == 0 || admitted <= 0 {
		return nil
	}
	live := len(f.rowOf)
	admitted = min(admitted, live)
	rows := scatteredRowCost * float64(admitted)
	switch {
	case exact: // the exact ways alone, below
	case f.g != nil && !f.g.off:
		share := float64(admitted) / float64(live)
		want := float64(k)
		if f.cfg.Rerank {
			want = float64(rerankFactor * k)
		}
		ef := max(float64(f.g.cfg.EfSearch), math.Ceil((want+3*math.Sqrt(want*(1-share)))/share))
		if graphRowCost*f.beamScored()*ef < min(rows, float64(live)) {
			if out, ok := f.searchGraphEf(q, k, int(ef), allow); ok {
				return out
			}
		}
	case f.pj.usable():
		// The projection keeps admitted rows alone as candidates, and its
		// pass costs the same whatever the filter admits (at 1M × 996, 21
		// ms against the scan's 68), while the admitted rows scored one by
		// one would each be read from the snapshot file: the full codes
		// are released from memory while the projection answers.
		return f.searchLocked(q, k, allow)
	}
	if rows < float64(live) {
		return f.searchRows(q, k, func() []int32 { return f.allowedRows(allow) })
	}
	return f.searchExact(q, k, allow)
}

// scatteredRowCost and graphRowCost are how many rows of the sequential
// scan cost what scoring one row apart from its neighbours does, and one
// row a graph search scores (its links read, the visited set and the beam
// kept besides). Measured at 252k rows of 996 dimensions (a 100k palace's
// vectors, on two cores; BenchmarkFilterShares in palace): the scan took
// 44 ns a row, SearchAllowed 110 ns a row it admitted (2.5), and graph
// searches widened to beams of 560 to 2,439 rows, scoring 9.8 rows a beam
// row, 330 to 465 ns a row they scored (7.5 to 10.5).
const (
	scatteredRowCost = 2.5
	graphRowCost     = 8
)

// beamScored is how many rows the graph's searches scored per row of their
// beams, over this index's searches so far; before any, the links a row
// has on layer 0, each of which a search scores at most once. Caller holds
// mu.
func (f *Flat) beamScored() float64 {
	if b := f.beamRows.Load(); b > 0 {
		return float64(f.scored.Load()) / float64(b)
	}
	return float64(graphNeighbourCapLayer * f.g.cfg.M)
}

// SearchKeys scores just the vectors of keys and returns the best k, as
// Search would with a filter allowing exactly those keys: in Rerank mode
// int8 codes pick candidates and float32 rows rank them. Keys not in the
// index are skipped; keys must be distinct.
func (f *Flat) SearchKeys(q []float32, k int, keys []uint64) []Result {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if len(keys) == 0 {
		return nil
	}
	return f.searchRows(q, min(k, len(keys)), func() []int32 { return f.keyRows(keys) })
}

// SearchAllowed is SearchKeys for the keys that allow admits: it asks
// allow about every live row, in the order rows are stored, and scores
// those it admits. Asking costs a few nanoseconds a row where SearchKeys
// looks each key's row up (~100 ns a key at 233k rows), so for a filter
// admitting more than a small share of the rows it is the cheaper, and it
// scores no row the filter turns away, where the exact scan (SearchExact)
// scores every row. allow may be called from several goroutines at once.
func (f *Flat) SearchAllowed(q []float32, k int, allow func(key uint64) bool) []Result {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.searchRows(q, k, func() []int32 { return f.allowedRows(allow) })
}

// searchRows scores the rows listed (ascending) and returns the best k.
// Caller holds mu.
func (f *Flat) searchRows(q []float32, k int, list func() []int32) []Result {
	if k = f.wanted(q, k); k == 0 {
		return nil
	}
	rows := list()
	var top topK
	if f.cfg.Int8 {
		qc := make([]int8, f.dim)
		qs, qn := quantize(qc, q), dot(q, q)
		n := k
		if f.cfg.Rerank {
			n = min(rerankFactor*k, len(rows))
		}
		cand := newTopK(max(n, 1))
		f.scoreRows(qc, qs, qn, rows, &cand)
		top = cand
		if f.cfg.Rerank {
			top = newTopK(k)
			for _, c := range cand.h {
				top.push(c.Key, f.cfg.Metric.rank(q, f.data.row(f.rowOf[c.Key])))
			}
		}
	} else {
		top = newTopK(k)
		for _, row := range rows {
			if s := f.cfg.Metric.rank(q, f.data.row(int(row))); !top.full() || s >= top.min() {
				top.push(f.keys[row], s)
			}
		}
	}
	out := top.sorted()
	for i := range out {
		out[i].Score = f.cfg.Metric.finalScore(out[i].Score)
	}
	return out
}

// allowedRows lists the live rows whose keys allow admits, ascending.
// Caller holds mu.
func (f *Flat) allowedRows(allow func(key uint64) bool) []int32 {
	var rows []int32
	for row, key := range f.keys {
		if !f.dead[row] && allow(key) {
			rows = append(rows, int32(row))
		}
	}
	return rows
}

// keyRows lists the rows of keys in the index, in the order they are
// stored: marked in a bitmap of the rows and read back from it, which
// costs less than sorting them (a bit a row: 29 KB at 233k rows). Caller
// holds mu.
func (f *Flat) keyRows(keys []uint64) []int32 {
	marks := make([]uint64, (len(f.keys)+63)/64)
	n := 0
	for _, key := range keys {
		if row, ok := f.rowOf[key]; ok {
			marks[row/64] |= 1 << (row % 64)
			n++
		}
	}
	rows := make([]int32, 0, n)
	for w, m := range marks {
		for ; m != 0; m &= m - 1 {
			rows = append(rows, int32(w*64+bits.TrailingZeros64(m)))
		}
	}
	return rows
}

// scoreRows scores rows (ascending) against the quantized query qc (scale
// qs, squared norm qn) into top: by their int8 codes, from the mapping or
// the heap, or from the file when the codes are cold and the rows few
// (maxPreadRows). In the order the rows are stored, so that memory is
// read forwards: a ninth of 233k rows of 996 dimensions (a palace's search
// within one of nine rooms) took 570 ns a row in the order of their keys,
// about a full scan's time. Many rows are split across cores like a scan
// (scanSplit), each part keeping its own top list. Caller holds mu.
func (f *Flat) scoreRows(qc []int8, qs, qn float32, rows []int32, top *topK) {
	fromFile := len(rows) <= maxPreadRows
	if !fromFile {
		defer f.recool()
	}
	l2 := f.cfg.Metric == L2
	score := func(rows []int32, top *topK) {
		buf := make([]int8, f.dim)
		for _, row := range rows {
			codes := f.codes.row(int(row))
			if fromFile && f.mapped.readRow(buf, int(row)) {
				codes = buf
			}
			s := qs * f.scales[row] * float32(dotInt8(qc, codes))
			if l2 {
				s = min(0, 2*s-qn-f.norms[row])
			}
			if !top.full() || s >= top.min() {
				top.push(f.keys[row], s)
			}
		}
	}
	inParts(top, scanParts(len(rows)*f.dim), func(i, parts int, t *topK) {
		score(rows[len(rows)*i/parts:len(rows)*(i+1)/parts], t)
	})
}
