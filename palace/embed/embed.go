// Package embed turns text into vectors for the palace's semantic index.
//
// An Embedder is a pure function from text to unit-length float32 vectors.
// Every vector stored in a palace records the ID of the embedder that made
// it, so a change of model is detected and the palace re-embedded.
//
// This package holds the interface, the weightless embedders (NewHash, the
// remote OpenAI-compatible provider NewOpenAI / NewOpenAIFromEnv, the
// weighted concatenation NewConcat) and a registry (Register, Lookup,
// Default). The models with embedded weights live in sub-packages that
// import this one: palace/embed/use (USE-lite) and palace/embed/glove.
// To avoid an import cycle they do not register themselves; the small
// package palace/embed/builtin imports them and registers "use-lite",
// "glove" and "hybrid" from its init, so a program links the built-in
// models by importing it for its side effect:
//
//	import _ "github.com/loci-mem/loci/palace/embed/builtin"
//
// Without it, Lookup knows only "hash" and "openai" and Default falls back
// to the hash embedder. See README.md for the models, their weights and
// the measurements behind the default.
//
// This package and its sub-packages import nothing from loci outside
// palace/embed.
package embed

import (
	"context"
	"errors"
	"math"
)

// Embedder maps texts to vectors of a fixed dimension.
//
// Implementations must be safe for concurrent use, must return one
// L2-normalised vector per input text (a zero vector for text with no
// usable content), and must be deterministic for a given ID.
type Embedder interface {
	// ID names the model and its version, e.g. "use-lite-v1". Vectors made
	// by embedders with different IDs are never compared.
	ID() string
	// Dim is the length of every vector Embed returns.
	Dim() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// LanguageShare is the share of e's cosine made by models that read the
// words of languages only: models whose vocabulary holds words and word
// pieces learnt from prose, so that code's identifiers, calls and
// operators are mostly unknown to them. GloVe and USE-lite are such
// models (1); the hash embedder reads any run of letters and digits as
// the keyword index does (0), and a remote model is taken to read what
// its users send it, code included (0), as today's embedding models are
// trained on code as well as prose. A concatenation's share is its parts'
// shares by their weights (the default's is 0.85).
//
// A hybrid search weighs the vector leg's vote on a text by how much of
// the text such a model can read (palace/legible.go), and only this share
// of the vote.
func LanguageShare(e Embedder) float64 {
	if r, ok := e.(interface{ LanguageShare() float64 }); ok {
		return r.LanguageShare()
	}
	return 0
}

// ErrUnknown is returned by Lookup for a name no embedder answers to.
var ErrUnknown = errors.New("unknown embedder")

// Normalize scales v to unit length in place and returns it. A zero vector
// is left as it is.
func Normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Dot returns the inner product of a and b, which must have equal length.
// For unit vectors it is their cosine similarity.
func Dot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(a)
	b = b[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
