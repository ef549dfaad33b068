// Package builtin links loci's built-in embedders into a program and
// registers them with palace/embed:
//
//	"use-lite"  palace/embed/use, USE-lite, 512-d
//	"glove"     palace/embed/glove, SIF-weighted GloVe, 100-d
//	"hybrid"    GloVe and USE-lite concatenated with weights HybridWeights
//
// palace/embed cannot import its model packages (they import it for the
// Embedder interface), so the registry lives in palace/embed and this
// package fills it. A program that wants the built-in models imports it
// for its side effect:
//
//	import _ "github.com/loci-mem/loci/palace/embed/builtin"
//
// after which embed.Lookup and embed.Default see them. Nothing is decoded
// until an embedder is first used. This package imports nothing from loci
// outside palace/embed.
package builtin

import (
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/embed/glove"
	"github.com/loci-mem/loci/palace/embed/use"
)

// HybridWeights are the weights of GloVe and USE-lite in "hybrid": the
// fused cosine is 0.3*glove + 0.7*use. Chosen on LoCoMo conversations 1-5
// (palace/embed/locomo_eval_test.go).
var HybridWeights = [2]float64{0.3, 0.7}

// Hybrid returns the concatenation of GloVe and USE-lite.
func Hybrid() (*embed.Concat, error) {
	return embed.NewConcat([]embed.Embedder{glove.New(), use.New()}, HybridWeights[:])
}

func init() {
	embed.Register("use-lite", func() (embed.Embedder, error) { return use.New(), nil })
	embed.Register("glove", func() (embed.Embedder, error) { return glove.New(), nil })
	embed.Register("hybrid", func() (embed.Embedder, error) { return Hybrid() })
}
