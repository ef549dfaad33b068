package use

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// batch is a set of token sequences stacked row-wise: sequence s occupies
// rows start[s] .. start[s+1]-1 of every activation matrix, so each dense
// layer runs once over all rows of all sequences.
type batch struct {
	start []int // len = sequences + 1
}

func (b *batch) rows() int { return b.start[len(b.start)-1] }

// forward embeds the sequences of ids (each 1..MaxTokens long) into out,
// one 512-d unit vector per sequence.
func (m *model) forward(seqs [][]int32, out [][]float32) {
	b := batch{start: make([]int, len(seqs)+1)}
	for i, s := range seqs {
		b.start[i+1] = b.start[i] + len(s)
	}
	n := b.rows()
	d0 := m.layers[0].width
	pool := &scratchPools[0]
	if n > smallPass {
		pool = &scratchPools[1]
	}
	sc := pool.Get().(*scratch)
	defer pool.Put(sc)
	sc.x = sized(sc.x, n*d0)
	x := sc.x
	for i, s := range seqs {
		for t, id := range s {
			row := x[(b.start[i]+t)*d0 : (b.start[i]+t+1)*d0]
			m.embedRow(row, id)
			addTo(row, m.signal[t*d0:(t+1)*d0])
		}
	}
	for i := range m.layers {
		x = m.layers[i].forward(x, &b, sc, i%2)
	}
	w := m.tanh.in
	pooled := make([]float32, len(seqs)*w)
	for i := range seqs {
		p := pooled[i*w : (i+1)*w]
		for r := b.start[i]; r < b.start[i+1]; r++ {
			for k, v := range x[r*w : (r+1)*w] {
				p[k] += v
			}
		}
		inv := 1 / float32(max(1, b.start[i+1]-b.start[i]))
		for k := range p {
			p[k] *= inv
		}
	}
	h := make([]float32, len(seqs)*m.tanh.out)
	m.tanh.apply(h, pooled, len(seqs))
	for i := range seqs {
		v := h[i*m.tanh.out : (i+1)*m.tanh.out]
		var ss float64
		for k, y := range v {
			t := float32(math.Tanh(float64(y)))
			v[k] = t
			ss += float64(t) * float64(t)
		}
		inv := float32(1 / math.Sqrt(math.Max(ss, 1e-12)))
		for k := range v {
			v[k] *= inv
		}
		out[i] = v
	}
}

// scratch holds a forward pass's activations. The passes of a process
// reuse them (scratchPools): a batch's activations are megabytes, and
// allocating them afresh for every pass cost more in clearing and
// collecting than the attention does. Every array is written whole
// before it is read, so none is cleared.
type scratch struct {
	x                []float32    // the input rows
	ys               [2][]float32 // layer outputs, alternating: a layer reads the one before
	h, qkv, r, h2, f []float32
}

// scratchPools keep small passes (a query, a text: at most smallPass
// rows) apart from batches, so that a server which once embedded a large
// batch does not keep its activations (24 MB at maxBatchRows) alive by
// reusing them for every query; unused, a pool's scratch is freed by the
// garbage collector.
var scratchPools = [2]sync.Pool{
	{New: func() any { return new(scratch) }},
	{New: func() any { return new(scratch) }},
}

// smallPass is the most rows a pass of the small pool has: one text of the
// longest the encoder reads.
const smallPass = MaxTokens

// sized returns buf with length n, reallocated only when too small; its
// contents are not cleared.
func sized(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}

// forward applies one pre-layer-norm transformer layer to x (rows of
// width l.width) and returns the new activations (rows of width 512), in
// sc.ys[out].
func (l *layer) forward(x []float32, b *batch, sc *scratch, out int) []float32 {
	n := b.rows()
	w := l.width
	sc.h = sized(sc.h, n*w)
	h := sc.h
	layerNorm(h, x, w, l.ln1g, l.ln1b)

	sc.qkv = sized(sc.qkv, n*3*w)
	qkv := sc.qkv
	l.qkv.apply(qkv, h, n)
	att := h // reuse: attention output has width w
	l.attention(att, qkv, b)

	d := l.out.out
	sc.ys[out] = sized(sc.ys[out], n*d)
	y := sc.ys[out]
	l.out.apply(y, att, n)
	if l.proj != nil {
		sc.r = sized(sc.r, n*d)
		r := sc.r
		l.proj.apply(r, x, n)
		addTo(y, r)
	} else {
		addTo(y, x)
	}

	sc.h2 = sized(sc.h2, n*d)
	h2 := sc.h2
	layerNorm(h2, y, d, l.ln2g, l.ln2b)
	sc.f = sized(sc.f, n*l.ffn1.out)
	f := sc.f
	l.ffn1.apply(f, h2, n)
	for i, v := range f {
		if v < 0 {
			f[i] = 0
		}
	}
	l.ffn2.apply(h2, f, n)
	addTo(y, h2)
	return y
}

// attention computes multi-head softmax attention within each sequence.
// qkv rows hold [q | k | v], each of width l.width; dst rows get the heads'
// outputs side by side.
//
// Both products of a head run on the dense layers' tile kernels: the
// head's keys are packed as the panels of a weight matrix (16 keys to a
// panel), so the scores of up to six queries come from one kernel call,
// and the values as well (16 dimensions to a panel), so the weighted sum
// of the values is a product of the softmax rows with them. A sequence's
// keys are padded to a multiple of 16 with zeros, whose probabilities are
// zero.
func (l *layer) attention(dst, qkv []float32, b *batch) {
	nseq := len(b.start) - 1
	jobs := nseq * l.heads
	// Attention is small next to the dense layers; split it only when the
	// sequences are long enough to pay for the goroutines.
	cost := 0
	for s := 0; s < nseq; s++ {
		t := b.start[s+1] - b.start[s]
		cost += t * t * l.width
	}
	workers := min(runtime.GOMAXPROCS(0), jobs)
	if workers <= 1 || cost < parallelMin {
		var sc headScratch
		for j := 0; j < jobs; j++ {
			l.head(dst, qkv, b, j, &sc)
		}
		return
	}
	var wg sync.WaitGroup
	var next atomic.Int32
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc headScratch
			for j := int(next.Add(1)) - 1; j < jobs; j = int(next.Add(1)) - 1 {
				l.head(dst, qkv, b, j, &sc)
			}
		}()
	}
	wg.Wait()
}

// headScratch is one goroutine's working memory for attention heads.
type headScratch struct {
	keys, values, scores []float32
}

// grow returns buf with length n, zeroed.
func grow(buf []float32, n int) []float32 {
	buf = sized(buf, n)
	clear(buf)
	return buf
}

// zeroInit is the kernels' initial value for products that start at zero
// (read with stride 0).
var zeroInit [panelWidth]float32

// head computes attention head j%heads of sequence j/heads into dst.
func (l *layer) head(dst, qkv []float32, b *batch, j int, sc *headScratch) {
	w := l.width
	depth := w / l.heads
	s, hd := j/l.heads, j%l.heads
	lo, hi := b.start[s], b.start[s+1]
	t := hi - lo
	tp := (t + panelWidth - 1) / panelWidth * panelWidth
	qo, ko, vo := hd*depth, w+hd*depth, 2*w+hd*depth

	// Keys as panels: panel p holds keys 16p..16p+15, dimension after
	// dimension. Values as panels: panel p holds dimensions 16p..16p+15,
	// key after key.
	sc.keys = grow(sc.keys, tp*depth)
	sc.values = grow(sc.values, tp*depth)
	for key := 0; key < t; key++ {
		row := qkv[(lo+key)*3*w:]
		kp := sc.keys[(key/panelWidth)*depth*panelWidth+key%panelWidth:]
		for d, v := range row[ko : ko+depth] {
			kp[d*panelWidth] = v
		}
		for p := 0; p < depth/panelWidth; p++ {
			copy(sc.values[p*tp*panelWidth+key*panelWidth:], row[vo+p*panelWidth:vo+(p+1)*panelWidth])
		}
	}

	// Scores: row i, column key.
	sc.scores = grow(sc.scores, t*tp)
	for r := 0; r < t; r += maxTileRows {
		n := min(maxTileRows, t-r)
		a := qkv[(lo+r)*3*w+qo:]
		for p := 0; p < tp/panelWidth; p++ {
			tile32(a, 3*w, sc.keys[p*depth*panelWidth:(p+1)*depth*panelWidth], depth,
				sc.scores[r*tp+p*panelWidth:], tp, zeroInit[:], 0, n)
		}
	}
	// Softmax over each row's t keys; the padding keeps probability 0.
	for i := 0; i < t; i++ {
		row := sc.scores[i*tp : i*tp+t]
		// The largest score, scaled: rounding is monotonic and qscale
		// positive, so it is the largest scaled score (a plain comparison;
		// the builtin max's care for NaN and signed zeros cost a tenth of
		// the attention here).
		mx := row[0]
		for _, v := range row[1:] {
			if v > mx {
				mx = v
			}
		}
		mx *= l.qscale
		sum := expScores(row, l.qscale, mx)
		for k := range row {
			row[k] /= sum
		}
		clear(sc.scores[i*tp+t : (i+1)*tp])
	}
	// Outputs: the probabilities times the values.
	for r := 0; r < t; r += maxTileRows {
		n := min(maxTileRows, t-r)
		for p := 0; p < depth/panelWidth; p++ {
			tile32(sc.scores[r*tp:], tp, sc.values[p*tp*panelWidth:(p+1)*tp*panelWidth], tp,
				dst[(lo+r)*w+hd*depth+p*panelWidth:], w, zeroInit[:], 0, n)
		}
	}
}

// expScores replaces each score x of row with exp(x*scale - mx), and
// returns their sum. An argument below -87.3 counts as -87.3 (e^-87.3 is
// 1.2e-38, the smallest normal float32, and nothing to a softmax that
// holds a 1). Sixteen at a time on AVX-512 (expRow), the rest by expPoly,
// the same arithmetic.
func expScores(row []float32, scale, mx float32) float32 {
	n, sum := expChunks(row, scale, mx)
	for k := n; k < len(row); k++ {
		e := expPoly(row[k]*scale - mx)
		row[k] = e
		sum += e
	}
	return sum
}

// expPoly is e^x for x of at most 88 or so, within 4e-7 of math.Exp
// (TestExpScores): x = n ln 2 + r with n the nearest integer and |r| <=
// ln 2 / 2 (ln 2 in two parts, so that n ln 2 is exact to float32), e^r
// = 1 + r + r²·p(r) with p the degree-5 polynomial of Cephes' expf, and
// 2^n put in the exponent: what expRow computes sixteen at a time.
func expPoly(x float32) float32 {
	x = max(x, -87.3)
	n := float32(math.RoundToEven(float64(x * 1.44269504088896341)))
	r := x - n*0.693359375
	r -= n * -2.12194440e-4
	p := float32(1.9875691500e-4)
	p = p*r + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 0.5
	y := p*(r*r) + r + 1
	return y * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// layerNorm normalises each row of src (width w) to zero mean and unit
// variance (epsilon 1e-6), then scales by g and shifts by b.
func layerNorm(dst, src []float32, w int, g, b []float32) {
	for r := 0; r+w <= len(src); r += w {
		x := src[r : r+w]
		y := dst[r : r+w]
		var mean float32
		for _, v := range x {
			mean += v
		}
		mean /= float32(w)
		var vr float32
		for _, v := range x {
			d := v - mean
			vr += d * d
		}
		vr /= float32(w)
		inv := float32(1 / math.Sqrt(float64(vr)+1e-6))
		for i, v := range x {
			y[i] = (v-mean)*inv*g[i] + b[i]
		}
	}
}

func addTo(dst, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] += src[i]
	}
}
