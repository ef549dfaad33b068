// Package builtin links loci's built-in embedders into a program and
// registers them with palace/embed:
//
//	"use-lite"  palace/embed/use, USE-lite, 512-d
//	"glove"     palace/embed/glove, SIF-weighted GloVe, 100-d
//	"hybrid"    hash (384-d), GloVe and USE-lite concatenated with
//	            HybridWeights, 996-d; the default (embed.DefaultName)
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

// HybridWeights are the weights of the hash, GloVe and USE-lite parts of
// "hybrid": its cosine is 0.15*hash + 0.70*glove + 0.15*use. They were
// chosen on LoCoMo conversations 1-5 (palace/embed/locomo_eval_test.go).
var HybridWeights = [3]float64{0.15, 0.70, 0.15}

// Hybrid returns the weighted concatenation of the hash embedder (lexical
// overlap, including words no model knows), GloVe (topical similarity)
// and USE-lite (sentence meaning).
func Hybrid() (*embed.Concat, error) {
	return embed.NewConcat([]embed.Embedder{embed.NewHash(embed.HashDim), glove.New(), use.New()}, HybridWeights[:])
}

func init() {
	embed.Register("use-lite", func() (embed.Embedder, error) { return use.New(), nil })
	embed.Register("glove", func() (embed.Embedder, error) { return glove.New(), nil })
	embed.Register("hybrid", func() (embed.Embedder, error) { return Hybrid() })
	embed.RegisterLexicon(glove.New().Knows)
}
