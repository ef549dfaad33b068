package index

import (
	"cmp"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sync"
)

// The projected first stage. At a million rows of 996 dimensions the exact
// scan reads 949 MB of int8 codes per query, and the graph needs beams of
// ~1,700 to reach recall 0.95 on real questions, which costs as much. The
// projection reads a fifteenth of that: every row is also kept as 4-bit
// codes (nibble.go) of its projection onto the data's principal subspace
// (DefaultProjectDims directions, computed from a sample by subspace
// iteration), every search ranks all rows by those short codes, and only
// the best several hundred candidates are re-scored from the full codes.
// The principal directions carry most of what separates rows (the default
// encoder's cosine is mostly its 100-d GloVe part), so the true neighbours
// are among the candidates: at 1M × 996, 1,000 candidates hold 0.974 of
// the exact top 10 (README).
//
// A projection is built alongside a graph (rows are then never reused or
// moved, so its codes stay aligned), by Calibrate, which also chooses how
// many candidates it re-scores and whether it, the graph or the exact scan
// answers Search.

// DefaultProjectDims is the projection's width: 128 directions (64 bytes
// of 4-bit codes a row) of the default encoder's 996: projected in float32,
// 1,000 candidates held 0.974 of the top 10 at 1M rows
// (BenchmarkFirstStageRecall).
const DefaultProjectDims = 128

// projectSample is how many rows the principal subspace is estimated
// from. The sample covariance of 8,192 rows estimates the leading 128
// directions of a 996-d distribution well (their variances differ by far
// more than the sampling noise), and the estimate takes about a second.
const projectSample = 8192

// projectIterations is how many times subspace iteration multiplies the
// basis by the sample covariance. Each pass shrinks the share of a
// direction outside the leading subspace by the ratio of eigenvalues
// across its boundary; the candidates are re-scored exactly, so an
// approximate subspace costs a little recall at a given candidate count,
// which calibration makes up for.
const projectIterations = 12

// maxProjectCand is the most candidates calibration lets a projected
// search re-score.
const maxProjectCand = 16384

// projection is the first stage's state. Its fields are guarded by the
// owning Flat's mutex.
type projection struct {
	dims  int
	mean  []float32      // the sample mean, dim values
	basis []float32      // dims orthonormal rows of dim values
	shift []float32      // basis · mean: a row's code is of basis·v − shift
	sd    []float32      // each direction's spread over the sample (nibble.go)
	codes rowStore[int8] // 4-bit levels, nibbleRowBytes(dims) bytes a row

	// Calibration: cand is how many candidates a search for calK results
	// re-scores (0: never calibrated, and Search does not use the
	// projection); off means the graph or the exact scan answers instead.
	cand, calK int
	off        bool
	calRows    int
	// costOnly: cand reached the target and was kept off by its cost
	// alone (Retime).
	costOnly bool
}

// usable reports whether Search answers through the projection.
func (p *projection) usable() bool { return p != nil && p.cand > 0 && !p.off }

// candidates is how many rows a search for k results re-scores: the
// calibrated count, which holds the first calK results at the target
// recall, and at least k. A caller that keeps only the first results of
// a longer list (the palace asks for 4× what it keeps, to re-rank them
// exactly) gets those at the calibrated recall; the tail of the list is
// the best of the candidates.
func (p *projection) candidates(k int) int { return max(p.cand, k) }

// apply writes basis · v into dst, less shift when centred.
func (p *projection) apply(dst, v []float32, centred bool) {
	d := len(p.mean)
	for j := range p.dims {
		s := dot(p.basis[j*d:(j+1)*d], v)
		if centred {
			s -= p.shift[j]
		}
		dst[j] = s
	}
}

// encode sets row's code to that of v; buf holds dims floats.
func (p *projection) encode(row int, v, buf []float32) {
	p.apply(buf, v, true)
	packNibbles(p.codes.row(row), buf, p.sd)
}

// grow appends rows up to n (codes of level -8), to be encoded.
func (p *projection) grow(n int) {
	if add := n - p.codes.len(); add > 0 {
		p.codes.extend(add)
	}
}

// newBasis returns a projection (without codes) onto the leading dims
// principal directions of sample (rows of one length): the sample's mean,
// and an orthonormal basis found by subspace iteration on the sample
// covariance, whose products are dot products over contiguous rows, so
// they run on the SIMD kernels and on every core.
func newBasis(sample [][]float32, dims int) *projection {
	n, d := len(sample), len(sample[0])
	mean := make([]float32, d)
	acc := make([]float64, d)
	for _, v := range sample {
		for i, x := range v {
			acc[i] += float64(x)
		}
	}
	for i := range mean {
		mean[i] = float32(acc[i] / float64(n))
	}
	// x holds the centred sample by rows, xt by columns.
	x, xt := make([]float32, n*d), make([]float32, d*n)
	for r, v := range sample {
		for i, val := range v {
			c := val - mean[i]
			x[r*d+i], xt[i*n+r] = c, c
		}
	}
	rng := rand.New(rand.NewSource(1))
	b := make([]float32, dims*d)
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	orthonormalise(b, dims, d)
	y := make([]float32, dims*n) // y[j*n+r] = b_j · x_r
	for range projectIterations {
		parallelFor(n, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				xr := x[r*d : (r+1)*d]
				for j := range dims {
					y[j*n+r] = dot(b[j*d:(j+1)*d], xr)
				}
			}
		})
		// b_j = Σ_r y_jr x_r = (covariance · b_j) × n, column by column.
		parallelFor(d, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				xi := xt[i*n : (i+1)*n]
				for j := range dims {
					b[j*d+i] = dot(y[j*n:(j+1)*n], xi)
				}
			}
		})
		orthonormalise(b, dims, d)
	}
	p := &projection{dims: dims, mean: mean, basis: b, shift: make([]float32, dims)}
	for j := range dims {
		p.shift[j] = dot(b[j*d:(j+1)*d], mean)
	}
	// Each direction's spread over the sample, which sets its levels.
	parallelFor(n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr := x[r*d : (r+1)*d]
			for j := range dims {
				y[j*n+r] = dot(b[j*d:(j+1)*d], xr)
			}
		}
	})
	p.sd = make([]float32, dims)
	for j := range dims {
		yj := y[j*n : (j+1)*n]
		p.sd[j] = float32(math.Sqrt(float64(dot(yj, yj)) / float64(n)))
	}
	p.codes = newRowStore[int8](nibbleRowBytes(dims))
	return p
}

// orthonormalise makes the rows of b (rows × d) orthonormal by modified
// Gram–Schmidt, run twice (once is not enough in float32 when the rows are
// nearly parallel, as they become under iteration). A row left with
// almost nothing of its own (the data has fewer directions than rows)
// is zeroed: it then contributes nothing to any score.
func orthonormalise(b []float32, rows, d int) {
	for range 2 {
		for j := range rows {
			bj := b[j*d : (j+1)*d]
			before := math.Sqrt(float64(dot(bj, bj)))
			for i := range j {
				bi := b[i*d : (i+1)*d]
				c := dot(bi, bj)
				for t := range bj {
					bj[t] -= c * bi[t]
				}
			}
			norm := math.Sqrt(float64(dot(bj, bj)))
			if norm <= 1e-4*before || norm == 0 {
				clear(bj)
				continue
			}
			inv := float32(1 / norm)
			for t := range bj {
				bj[t] *= inv
			}
		}
	}
}

// parallelFor calls fn over [0, n) split into one range per core.
func parallelFor(n int, fn func(lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), max(n/64, 1))
	var wg sync.WaitGroup
	for i := 1; i < parts; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(n*i/parts, n*(i+1)/parts)
		}()
	}
	fn(0, n/parts)
	wg.Wait()
}

// projectDue reports whether f should build a projection: it is
// configured, a graph exists (so rows stay put), and none is built yet or
// the index has doubled since the last was calibrated (rows added since
// may lie in directions the old basis missed: new topics). Caller holds
// mu.
func (f *Flat) projectDue() bool {
	dims := f.cfg.Project
	if f.g == nil || dims <= 0 || 2*dims > f.dim {
		return false
	}
	return f.pj == nil || (f.pj.calRows > 0 && 2*f.pj.calRows <= len(f.rowOf))
}

// projectChunk is how many rows are encoded under one hold of the read
// lock while a projection is built: writers wait for at most one chunk
// (about a tenth of a second at 996 dimensions on two cores).
const projectChunk = 1 << 15

// buildProjection computes a projection from a sample of the rows and
// encodes every row, holding the read lock one chunk at a time, so that
// searches and writes go on (through the projection it replaces, if any);
// the rows added meanwhile are encoded under the write lock that installs
// it. It gives up if the graph is rebuilt meanwhile (rows move then).
func (f *Flat) buildProjection() {
	f.mu.RLock()
	if !f.projectDue() {
		f.mu.RUnlock()
		return
	}
	g, old, dims := f.g, f.pj, f.cfg.Project
	sample := f.sampleRows(projectSample)
	f.mu.RUnlock()
	if len(sample) < 2*dims {
		return
	}
	p := newBasis(sample, dims)
	sample = nil
	encode := func(lo, hi int) {
		p.grow(hi)
		parallelFor(hi-lo, func(a, b int) {
			v, buf := make([]float32, f.dim), make([]float32, dims)
			for row := lo + a; row < lo+b; row++ {
				f.vectorInto(v, row)
				p.encode(row, v, buf)
			}
		})
	}
	for {
		f.mu.RLock()
		lo, hi := p.codes.len(), min(p.codes.len()+projectChunk, len(f.keys))
		if f.g != g || hi-lo < projectChunk {
			f.mu.RUnlock()
			break
		}
		encode(lo, hi)
		f.mu.RUnlock()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.g != g || f.pj != old {
		return
	}
	encode(p.codes.len(), len(f.keys))
	f.pj = p
}

// sampleRows returns up to n live rows spread evenly over the index,
// decoded. Caller holds mu.
func (f *Flat) sampleRows(n int) [][]float32 {
	live := len(f.rowOf)
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

// searchProj ranks every row by its projected code, keeps the best c and
// re-scores them from the full codes (or float32 rows under Rerank). ok
// is false when fewer than k rows were allowed. Caller holds mu; k is in
// [1, Len].
func (f *Flat) searchProj(q []float32, k, c int, allow func(key uint64) bool) ([]Result, bool) {
	p := f.pj
	qy := make([]float32, p.dims)
	p.apply(qy, q, false)
	for j, s := range p.sd {
		qy[j] *= s // a row's level j stands for sd[j] · nibbleStep · level
	}
	qc := make([]int8, p.dims)
	qs := quantize(qc, qy) * nibbleStep
	pq := prepareNibbles(qc)
	l2 := f.cfg.Metric == L2
	var qmu float32
	if l2 {
		qmu = dot(q, p.mean)
	}
	// q·v ≈ q·mean + (basis·q)·(basis·v − shift) ≈ q·mean + qs·(the
	// integer product): for cosine the first term and qs are the same for
	// every row, which the product alone then ranks.
	cand := newTopK(min(max(c, k), len(f.rowOf)))
	f.scanSplit(&cand, len(f.keys)*p.dims, func(lo, hi int, top *topK) {
		n := min(rowBlockRows, hi-lo)
		prods, idx := make([]int32, n), make([]int32, n)
		floor := top.floor()
		for b := lo; b < hi; {
			e := min(hi, (b>>rowBlockShift+1)<<rowBlockShift) // the end of b's block
			// For cosine a row's score is its product, so the kernel
			// passes over the rows below the worst kept candidate (as it
			// was when the block began); under L2 the score needs the
			// row's norm, and every row comes back.
			least := int64(math.MinInt64)
			if !l2 && !math.IsInf(float64(floor), -1) {
				least = int64(math.Ceil(float64(floor)))
			}
			m := dotsNibble(pq, p.codes.rows(b, e), least, idx, prods)
			for j, dp := range prods[:m] {
				row := b + int(idx[j])
				s := float32(dp)
				if l2 {
					s = 2*(qs*s+qmu) - f.norms[row]
				}
				if s >= floor && !f.dead[row] && (allow == nil || allow(f.keys[row])) {
					top.push(uint64(row), s) // the row stands in for the key
					floor = top.floor()
				}
			}
			b = e
		}
	})
	if len(cand.h) < k {
		return nil, false
	}
	// In row order, so that rows read from the file (coolCodes) are read
	// front to back.
	slices.SortFunc(cand.h, func(a, b Result) int { return cmp.Compare(a.Key, b.Key) })
	sc := f.queryScorer(q)
	buf := make([]int8, f.dim)
	top := newTopK(k)
	for _, r := range cand.h {
		row := int(r.Key)
		var s float32
		switch {
		case f.cfg.Rerank:
			s = f.cfg.Metric.rank(q, f.data.row(row))
		case f.mapped.readRow(buf, row):
			s = sc.scoreCodes(uint32(row), buf)
		default:
			s = sc.score(uint32(row))
		}
		top.push(f.keys[row], s)
	}
	out := top.sorted()
	for i := range out {
		out[i].Score = f.cfg.Metric.finalScore(out[i].Score)
	}
	return out, true
}

// SearchCand is Search through the projection with c candidates instead
// of the calibrated count (calibration and benchmarks sweep it); without
// a projection it scans.
func (f *Flat) SearchCand(q []float32, k, c int, allow func(key uint64) bool) []Result {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if k = f.wanted(q, k); k == 0 {
		return nil
	}
	if f.pj != nil {
		if out, ok := f.searchProj(q, k, c, allow); ok {
			return out
		}
	}
	return f.searchExact(q, k, allow)
}
