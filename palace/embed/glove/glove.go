// Package glove embeds text as a smooth-inverse-frequency (SIF) weighted
// average of GloVe word vectors (Arora, Liang and Ma, 2017): cheap (a few
// microseconds per sentence), good at topical similarity, blind to word
// order.
//
// The vectors are the 100-dimensional GloVe 6B vectors of the 90,000 most
// frequent words, stored as int8 with one scale per word and embedded in
// the binary (see weights/NOTICE); they are decoded on first use.
//
// Tokens outside that vocabulary (code identifiers, rare names, numbers)
// contribute nothing, so a text made only of them gets the zero vector.
//
// This package imports nothing from loci outside palace/embed.
package glove

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace/embed"
)

// ID names the model, its vocabulary, its tokenizer and its weighting.
const ID = "glove-100d-sif-v1"

// Dim is the length of every vector.
const Dim = 100

// DefaultSIF is the SIF parameter a: a word of estimated probability p
// weighs a/(a+p). It was chosen on LoCoMo conversations 1-5
// (locomo_eval_test.go in palace/embed).
const DefaultSIF = 1e-3

// zipfWords is the vocabulary size of the corpus the word ranks come from
// (GloVe 6B: 400,000 words); it sets the Zipf estimate of a word's
// probability from its frequency rank r: p = 1 / ((r+1) * H), with H the
// harmonic number of zipfWords.
const zipfWords = 400000

// Encoder is a SIF GloVe embedder. It is safe for concurrent use.
type Encoder struct {
	a        float64
	maxWords int // 0: the whole vocabulary

	once     sync.Once
	v        *vocab
	weights  []float32 // SIF weight per word id
	err      error
	loadTime time.Duration
}

var _ embed.Embedder = (*Encoder)(nil)

var shared = &Encoder{a: DefaultSIF}

// New returns the process-wide encoder; its weights are decoded on first
// use.
func New() *Encoder { return shared }

// NewWith returns an encoder with SIF parameter a that uses only the
// maxWords most frequent words (0: all), for experiments. Its ID records
// both.
func NewWith(a float64, maxWords int) *Encoder { return &Encoder{a: a, maxWords: maxWords} }

// ID implements embed.Embedder: ID for the default settings, with the SIF
// parameter and vocabulary size appended otherwise.
func (e *Encoder) ID() string {
	if e.a == DefaultSIF && e.maxWords == 0 {
		return ID
	}
	return fmt.Sprintf("%s/a=%g/words=%d", ID, e.a, e.maxWords)
}

// Dim implements embed.Embedder.
func (e *Encoder) Dim() int { return Dim }

// LanguageShare reports that GloVe reads language only (see
// embed.LanguageShare): its vocabulary is the most frequent words of
// Wikipedia and newswire.
func (e *Encoder) LanguageShare() float64 { return 1 }

// Load decodes the vocabulary if that has not happened yet.
func (e *Encoder) Load() error {
	e.once.Do(func() {
		t0 := time.Now()
		e.v, e.err = loadVocab(e.maxWords)
		if e.err == nil {
			h := math.Log(zipfWords) + 0.5772156649
			e.weights = make([]float32, len(e.v.scale))
			for r := range e.weights {
				p := 1 / (float64(r+1) * h)
				e.weights[r] = float32(e.a / (e.a + p))
			}
		}
		e.loadTime = time.Since(t0)
	})
	return e.err
}

// LoadTime is how long decoding the vocabulary took.
func (e *Encoder) LoadTime() time.Duration {
	_ = e.Load()
	return e.loadTime
}

// Embed implements embed.Embedder.
func (e *Encoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := e.Load(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = e.one(t)
	}
	return out, nil
}

func (e *Encoder) one(text string) []float32 {
	v := make([]float32, Dim)
	e.v.lookup(text, func(_ string, id int32) {
		if id < 0 {
			return
		}
		w := e.weights[id] * e.v.scale[id]
		row := e.v.vec[int(id)*Dim : int(id+1)*Dim]
		for j, q := range row {
			v[j] += w * float32(int8(q))
		}
	})
	return embed.Normalize(v)
}

// Knows reports whether a lower-case word is in the vocabulary (false
// when the vocabulary cannot be decoded).
func (e *Encoder) Knows(word []byte) bool {
	if e.Load() != nil {
		return false
	}
	_, ok := e.v.ids[string(word)]
	return ok
}

// Known reports the in-vocabulary words of text, in order, as the
// tokenizer sees them (for tests and diagnostics).
func (e *Encoder) Known(text string) ([]string, error) {
	if err := e.Load(); err != nil {
		return nil, err
	}
	var ws []string
	e.v.lookup(text, func(_ string, id int32) {
		if id >= 0 {
			ws = append(ws, e.v.words[id])
		}
	})
	return ws, nil
}
