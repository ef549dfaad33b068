package use

import (
	_ "embed"
	"fmt"
	"math"
	"strings"

	"github.com/loci-mem/loci/palace/embed/wfile"
)

// The weights are written by cmd/lociweights; see palace/embed/README.md.
//
//go:embed weights/use-lite.lwt
var weightFile []byte

//go:embed weights/SHA256SUMS
var weightSums string

// model holds the decoded weights.
type model struct {
	tok *tokenizer

	// Token table, decoded row by row on demand: fp16 (emb16) or int8 with
	// a scale per row (emb8, embScale).
	emb16    []byte
	emb8     []byte
	embScale []float32
	embDim   int

	timing []float32 // inverse timescales, 128
	// signal is the timing signal of positions 0..MaxTokens-1: for k < 128,
	// sin(t*timing[k]) at k and cos(t*timing[k]) at 128+k.
	signal []float32
	layers [2]layer
	tanh   dense
}

type layer struct {
	width, heads int
	qscale       float32
	ln1g, ln1b   []float32
	qkv, out     dense
	proj         *dense // layer 0 only: the residual projection 256 -> 512
	ln2g, ln2b   []float32
	ffn1, ffn2   dense
}

// loadModel decodes the embedded weights, the matrices in the form the
// kernels take (kind).
func loadModel(kind panelKind) (*model, error) {
	if err := wfile.Verify(weightFile, weightSums, "use-lite.lwt"); err != nil {
		return nil, err
	}
	f, err := wfile.Parse(weightFile)
	if err != nil {
		return nil, fmt.Errorf("use-lite weights: %w", err)
	}
	l := loader{f: f, kind: kind}
	m := &model{}

	pieces := strings.Split(string(l.raw("vocab.pieces", wfile.Bytes)), "\x00")
	scoresE := l.entry("vocab.scores")
	var scores []float64
	if l.err == nil {
		scores, l.err = scoresE.Float64s()
	}
	if l.err == nil && len(scores) != len(pieces) {
		l.err = fmt.Errorf("%d pieces but %d scores", len(pieces), len(scores))
	}
	if l.err != nil {
		return nil, fmt.Errorf("use-lite weights: %w", l.err)
	}
	m.tok = newTokenizer(pieces, scores)

	if e, err := f.Get("emb"); err == nil {
		if e.DType != wfile.F16 || len(e.Dims) != 2 {
			return nil, fmt.Errorf("use-lite weights: emb is %v %v", e.DType, e.Dims)
		}
		m.emb16, m.embDim = e.Data, e.Dims[1]
	} else {
		e := l.entry("emb.q")
		m.embScale = l.vec("emb.scale")
		if l.err == nil {
			m.emb8, m.embDim = e.Data, e.Dims[1]
		}
	}
	m.timing = l.vec("timing")
	for i := range m.layers {
		p := fmt.Sprintf("l%d.", i)
		ly := &m.layers[i]
		ly.heads = 4
		ly.ln1g, ly.ln1b = l.vec(p+"ln1.g"), l.vec(p+"ln1.b")
		ly.width = len(ly.ln1g)
		ly.qkv = l.dense(p + "qkv")
		ly.out = l.dense(p + "out")
		if qs := l.vec(p + "qscale"); len(qs) == 1 {
			ly.qscale = qs[0]
		}
		if l.err == nil && !(ly.qscale > 0) { // the softmax scales its largest score (model.go)
			l.err = fmt.Errorf("entry %sqscale is %v, not a positive scale", p, ly.qscale)
		}
		ly.ln2g, ly.ln2b = l.vec(p+"ln2.g"), l.vec(p+"ln2.b")
		ly.ffn1 = l.dense(p + "ffn1")
		ly.ffn2 = l.dense(p + "ffn2")
		if i == 0 {
			d := l.dense(p + "dense")
			ly.proj = &d
		}
	}
	m.tanh = l.dense("tanh")
	if l.err != nil {
		return nil, fmt.Errorf("use-lite weights: %w", l.err)
	}
	if m.embDim != m.layers[0].width || len(m.timing)*2 != m.embDim {
		return nil, fmt.Errorf("use-lite weights: inconsistent shapes")
	}
	nh := len(m.timing)
	m.signal = make([]float32, MaxTokens*m.embDim)
	for t := 0; t < MaxTokens; t++ {
		row := m.signal[t*m.embDim : (t+1)*m.embDim]
		for k, inv := range m.timing {
			a := float64(t) * float64(inv)
			row[k] = float32(math.Sin(a))
			row[nh+k] = float32(math.Cos(a))
		}
	}
	return m, nil
}

// loader reads entries and remembers the first error.
type loader struct {
	f    *wfile.File
	kind panelKind
	err  error
}

func (l *loader) entry(name string) *wfile.Entry {
	if l.err != nil {
		return nil
	}
	e, err := l.f.Get(name)
	l.err = err
	return e
}

func (l *loader) raw(name string, dt wfile.DType) []byte {
	e := l.entry(name)
	if e == nil {
		return nil
	}
	if e.DType != dt {
		l.err = fmt.Errorf("entry %s is %v, want %v", name, e.DType, dt)
		return nil
	}
	return e.Data
}

func (l *loader) vec(name string) []float32 {
	e := l.entry(name)
	if e == nil {
		return nil
	}
	v, err := e.Float32s()
	l.err = err
	return v
}

func (l *loader) dense(name string) dense {
	w := l.entry(name + ".w")
	b := l.vec(name + ".b")
	if l.err != nil {
		return dense{}
	}
	if len(w.Dims) != 2 || w.Dims[1] != len(b) {
		l.err = fmt.Errorf("entry %s.w has shape %v for %d biases", name, w.Dims, len(b))
		return dense{}
	}
	d, err := newDense(w, b, l.kind)
	l.err = err
	return d
}

// embedRow writes 2*emb[id] (the graph doubles the token embedding) into dst.
func (m *model) embedRow(dst []float32, id int32) {
	d := m.embDim
	if m.emb16 != nil {
		wfile.DecodeF16(dst[:d], m.emb16[int(id)*2*d:])
		for i := range dst[:d] {
			dst[i] *= 2
		}
		return
	}
	s := 2 * m.embScale[id]
	row := m.emb8[int(id)*d : int(id+1)*d]
	for i, q := range row {
		dst[i] = float32(int8(q)) * s
	}
}
