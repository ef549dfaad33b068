// Package use is a pure-Go port of the Universal Sentence Encoder Lite
// (Cer et al., 2018): a SentencePiece tokenizer and a two-layer
// transformer that map English text to 512-dimensional unit vectors.
//
// The weights (about 7M parameters, fp16) are embedded in the binary and
// decoded on first use. Dense layers run on AVX2/FMA assembly kernels when
// the CPU has them (chosen at run time) and on a portable Go kernel
// otherwise; both give the same vectors to within float32 rounding.
//
// This package imports nothing from loci outside palace/embed.
package use

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace/embed"
)

// ID names the model and its weights.
const ID = "use-lite-v1"

// Dim is the length of every vector.
const Dim = 512

// maxBatchRows bounds the tokens stacked into one forward pass.
const maxBatchRows = 1024

// Encoder embeds text with USE-lite. The zero value is not usable; call
// New. It is safe for concurrent use.
type Encoder struct {
	once     sync.Once
	m        *model
	err      error
	loadTime time.Duration
}

var _ embed.Embedder = (*Encoder)(nil)

var shared = &Encoder{}

// New returns the process-wide encoder. Its weights are decoded on first
// use (Load, Embed or Tokenize), not here.
func New() *Encoder { return shared }

// Load decodes the weights if that has not happened yet, and returns the
// error of doing so. Embed calls it.
func (e *Encoder) Load() error {
	e.once.Do(func() {
		t0 := time.Now()
		e.m, e.err = loadModel(currentPanels())
		e.loadTime = time.Since(t0)
	})
	return e.err
}

// LoadTime is how long decoding the weights took (0 before Load).
func (e *Encoder) LoadTime() time.Duration {
	_ = e.Load()
	return e.loadTime
}

// Kernel names the matrix kernel in use: "amx-bf16", "avx512-f16c",
// "avx512", "avx2-fma-f16c", "avx2-fma", "neon" (arm64) or "generic".
func Kernel() string { return kernelName }

// ID implements embed.Embedder.
func (e *Encoder) ID() string { return ID }

// Dim implements embed.Embedder.
func (e *Encoder) Dim() int { return Dim }

// LanguageShare reports that USE-lite reads language only (see
// embed.LanguageShare): its pieces were learnt from prose.
func (e *Encoder) LanguageShare() float64 { return 1 }

// Tokenize returns the SentencePiece ids of text, before truncation to
// MaxTokens.
func (e *Encoder) Tokenize(text string) ([]int32, error) {
	if err := e.Load(); err != nil {
		return nil, err
	}
	return e.m.tok.encode(text), nil
}

// Embed implements embed.Embedder. Text that is empty or only white space
// gets a zero vector; text longer than MaxTokens tokens is truncated.
func (e *Encoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := e.Load(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	var seqs [][]int32
	var idx []int
	rows := 0
	flush := func() {
		if len(seqs) == 0 {
			return
		}
		vs := make([][]float32, len(seqs))
		e.m.forward(seqs, vs)
		for i, j := range idx {
			out[j] = vs[i]
		}
		seqs, idx, rows = seqs[:0], idx[:0], 0
	}
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			out[i] = make([]float32, Dim)
			continue
		}
		ids := e.m.tok.encode(t)
		if len(ids) > MaxTokens {
			ids = ids[:MaxTokens]
		}
		if rows+len(ids) > maxBatchRows {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			flush()
		}
		seqs = append(seqs, ids)
		idx = append(idx, i)
		rows += len(ids)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	flush()
	return out, nil
}
