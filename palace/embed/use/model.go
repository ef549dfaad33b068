package use

import (
	"math"
	"runtime"
	"sync"
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
	x := make([]float32, n*d0)
	for i, s := range seqs {
		for t, id := range s {
			row := x[(b.start[i]+t)*d0 : (b.start[i]+t+1)*d0]
			m.embedRow(row, id)
			addTo(row, m.signal[t*d0:(t+1)*d0])
		}
	}
	for i := range m.layers {
		x = m.layers[i].forward(x, &b)
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

// forward applies one pre-layer-norm transformer layer to x (rows of
// width l.width) and returns the new activations (rows of width 512).
func (l *layer) forward(x []float32, b *batch) []float32 {
	n := b.rows()
	w := l.width
	h := make([]float32, n*w)
	layerNorm(h, x, w, l.ln1g, l.ln1b)

	qkv := make([]float32, n*3*w)
	l.qkv.apply(qkv, h, n)
	att := h // reuse: attention output has width w
	l.attention(att, qkv, b)

	d := l.out.out
	y := make([]float32, n*d)
	l.out.apply(y, att, n)
	if l.proj != nil {
		r := make([]float32, n*d)
		l.proj.apply(r, x, n)
		addTo(y, r)
	} else {
		addTo(y, x)
	}

	h2 := make([]float32, n*d)
	layerNorm(h2, y, d, l.ln2g, l.ln2b)
	f := make([]float32, n*l.ffn1.out)
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
func (l *layer) attention(dst, qkv []float32, b *batch) {
	w := l.width
	depth := w / l.heads
	nseq := len(b.start) - 1
	jobs := nseq * l.heads
	work := func(j int) {
		s, hd := j/l.heads, j%l.heads
		lo, hi := b.start[s], b.start[s+1]
		t := hi - lo
		scores := make([]float32, t)
		qo, ko, vo := hd*depth, w+hd*depth, 2*w+hd*depth
		for i := lo; i < hi; i++ {
			q := qkv[i*3*w+qo : i*3*w+qo+depth]
			mx := float32(math.Inf(-1))
			for j := lo; j < hi; j++ {
				s := dot(q, qkv[j*3*w+ko:j*3*w+ko+depth]) * l.qscale
				scores[j-lo] = s
				mx = max(mx, s)
			}
			var sum float32
			for j := range scores {
				e := float32(math.Exp(float64(scores[j] - mx)))
				scores[j] = e
				sum += e
			}
			o := dst[i*w+hd*depth : i*w+hd*depth+depth]
			clear(o)
			for j := lo; j < hi; j++ {
				p := scores[j-lo] / sum
				axpy(o, qkv[j*3*w+vo:j*3*w+vo+depth], p)
			}
		}
	}
	// Attention is small next to the dense layers; split it only when the
	// sequences are long enough to pay for the goroutines.
	cost := 0
	for s := 0; s < nseq; s++ {
		t := b.start[s+1] - b.start[s]
		cost += t * t * w
	}
	workers := min(runtime.GOMAXPROCS(0), jobs)
	if workers <= 1 || cost < parallelMin {
		for j := 0; j < jobs; j++ {
			work(j)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, jobs)
	for j := 0; j < jobs; j++ {
		next <- j
	}
	close(next)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				work(j)
			}
		}()
	}
	wg.Wait()
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
