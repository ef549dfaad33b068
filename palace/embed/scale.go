package embed

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"strings"
)

// A Scale says where an embedder's cosine similarities lie: the mean and
// the standard deviation of the cosines between texts that have nothing to
// do with each other. Embedders differ here far more than in what they
// rank first. Between the same unrelated sentences the built-in default
// gives 0.47 on average, USE-lite 0.18 and GloVe 0.60; remote models
// differ as much (E5's model card warns that its cosines mostly lie
// between 0.7 and 1, unrelated texts included). So a cosine threshold
// chosen with one embedder means
// nothing with another, and a threshold says whose cosines it was chosen
// on: Translate carries it to another embedder's scale, as so many
// standard deviations above what unrelated texts score.
//
// This is the usual standardisation of scores against their distribution
// on non-relevant documents (the score-distribution models of Manmatha et
// al. 2001 and Arampatzis et al. 2009 fit it per query; an embedder's
// anisotropy, Ethayarajh 2019, makes it mostly a property of the model).
// One scale a model is enough for a floor whose purpose is to keep out
// what is unrelated; fitted per prompt instead, on its nearest drawers,
// the prompt hook recalled less at every rate of prompts about nothing
// stored it served (palace/RECALL.md, "Measured at stop 83 and not kept").
type Scale struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// Valid reports whether s was measured: a spread of zero cannot be
// translated from or to.
func (s Scale) Valid() bool { return s.SD > 0 && !math.IsNaN(s.Mean) && !math.IsInf(s.SD, 0) }

// String writes the scale as ParseScale reads it.
func (s Scale) String() string { return fmt.Sprintf("%.6f %.6f", s.Mean, s.SD) }

// ParseScale reads a scale String wrote.
func ParseScale(text string) (Scale, error) {
	var s Scale
	if _, err := fmt.Sscanf(strings.TrimSpace(text), "%g %g", &s.Mean, &s.SD); err != nil {
		return Scale{}, fmt.Errorf("scale %q: %w", text, err)
	}
	if !s.Valid() {
		return Scale{}, fmt.Errorf("scale %q: no spread", text)
	}
	return s, nil
}

// Translate carries a cosine from one embedder's scale to another's: the
// cosine as many of to's standard deviations above to's mean as c is of
// from's above from's, kept within [-1, 1]. A scale that is not Valid, or
// the same scale, leaves c as it is.
func Translate(c float64, from, to Scale) float64 {
	if from == to || !from.Valid() || !to.Valid() {
		return c
	}
	return max(-1, min(1, to.Mean+(c-from.Mean)/from.SD*to.SD))
}

// scaleText holds the sentences a scale is measured on, one a line: 64
// sentences of as many unrelated subjects (cooking, astronomy, a bus
// timetable, a failing handler), in the registers notes and chats are
// written in. Written for loci, as any set of unrelated sentences would do.
//
//go:embed scale.txt
var scaleText string

// ScaleTexts returns the sentences MeasureScale embeds.
func ScaleTexts() []string { return strings.Split(strings.TrimSpace(scaleText), "\n") }

// MeasureScale measures e's scale: each sentence of ScaleTexts embedded
// as a search (Queries) against every other embedded as a stored text
// (Embed), as a search meets what it did not ask about; 4,032 cosines
// from two calls of e, their mean and standard deviation to six places.
func MeasureScale(ctx context.Context, e Embedder) (Scale, error) {
	texts := ScaleTexts()
	qs, err := Queries(ctx, e, texts)
	if err != nil {
		return Scale{}, err
	}
	ds, err := e.Embed(ctx, texts)
	if err != nil {
		return Scale{}, err
	}
	if len(qs) != len(texts) || len(ds) != len(texts) {
		return Scale{}, fmt.Errorf("embedder %s returned %d and %d vectors for %d texts", e.ID(), len(qs), len(ds), len(texts))
	}
	var m moments
	for i, q := range qs {
		for j, d := range ds {
			if i == j {
				continue
			}
			if len(q) != len(d) {
				return Scale{}, fmt.Errorf("embedder %s returned vectors of %d and %d dimensions", e.ID(), len(q), len(d))
			}
			m.add(float64(Dot(q, d)))
		}
	}
	s := m.scale()
	if !s.Valid() {
		return Scale{}, fmt.Errorf("embedder %s gave every unrelated pair the same cosine (%.3f)", e.ID(), s.Mean)
	}
	return s, nil
}

// restatedText holds a light restatement of each sentence of scaleText,
// line for line: a word or two in other words, a contraction made or
// undone, a comma or a closing mark changed, a filler added; never a
// number, a name or a negation ("The puppy finally learned to sit before
// getting her food."). These are the near-duplicates the dreamer links
// (dreamer/README.md), of the kinds its thresholds were measured on
// (LoCoMo's turns against such rewrites of themselves). Written for loci.
//
//go:embed restated.txt
var restatedText string

// RestatedTexts returns the restatements MeasureRestatements embeds, the
// i-th restating ScaleTexts' i-th.
func RestatedTexts() []string { return strings.Split(strings.TrimSpace(restatedText), "\n") }

// MeasureRestatements measures where e places the cosines of near-
// duplicates: each sentence of ScaleTexts against its restatement
// (RestatedTexts), both embedded as stored texts (Embed), as the dreamer
// compares two drawers; the mean and standard deviation of the 64
// cosines, from one call of e with 128 texts, to six places.
//
// A near-duplicate threshold lies in the low tail of these cosines, so it
// is carried between embedders on this scale, not on MeasureScale's: on
// the scale of unrelated texts the default encoder's 0.93 would be 0.60
// for the hash embedder, measured at 0.81, and on this one it is 0.82
// (dreamer/README.md, "Thresholds").
func MeasureRestatements(ctx context.Context, e Embedder) (Scale, error) {
	texts := append(ScaleTexts(), RestatedTexts()...)
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		return Scale{}, err
	}
	if len(vs) != len(texts) {
		return Scale{}, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.ID(), len(vs), len(texts))
	}
	half := len(texts) / 2
	var m moments
	for i, a := range vs[:half] {
		b := vs[half+i]
		if len(a) != len(b) {
			return Scale{}, fmt.Errorf("embedder %s returned vectors of %d and %d dimensions", e.ID(), len(a), len(b))
		}
		m.add(float64(Dot(a, b)))
	}
	s := m.scale()
	if !s.Valid() {
		return Scale{}, fmt.Errorf("embedder %s gave every restatement the same cosine (%.3f)", e.ID(), s.Mean)
	}
	return s, nil
}

// moments sums cosines for their mean and standard deviation.
type moments struct{ n, sum, sq float64 }

func (m *moments) add(c float64) { m.n, m.sum, m.sq = m.n+1, m.sum+c, m.sq+c*c }

// scale is the cosines' mean and sample standard deviation, to six
// places, as String writes them: a scale read back from a palace's record
// is the one measured.
func (m moments) scale() Scale {
	if m.n < 2 {
		return Scale{}
	}
	mean := m.sum / m.n
	round := func(x float64) float64 { return math.Round(x*1e6) / 1e6 }
	return Scale{Mean: round(mean), SD: round(math.Sqrt(max(0, m.sq-m.n*mean*mean) / (m.n - 1)))}
}

// The scales of the built-in encoders, as MeasureScale gives them
// (palace/embed/builtin's TestKnownScales measures them again). A palace
// of another embedder measures its own once and records it.
var (
	HashScale    = Scale{Mean: 0.154059, SD: 0.090342}
	GloVeScale   = Scale{Mean: 0.596012, SD: 0.123434}
	USELiteScale = Scale{Mean: 0.176836, SD: 0.120479}
	HybridScale  = Scale{Mean: 0.466843, SD: 0.093914}
)

// The built-in encoders' scales of restatements, as MeasureRestatements
// gives them (TestKnownScales measures them again).
var (
	HashRestatements    = Scale{Mean: 0.934799, SD: 0.035179}
	GloVeRestatements   = Scale{Mean: 0.988135, SD: 0.013570}
	USELiteRestatements = Scale{Mean: 0.974450, SD: 0.020850}
	HybridRestatements  = Scale{Mean: 0.978082, SD: 0.014356}
)

// builtinScales are the built-in encoders' two scales by their IDs: of
// unrelated texts and of restatements.
var builtinScales = map[string][2]Scale{
	HashID:              {HashScale, HashRestatements},
	"glove-100d-sif-v1": {GloVeScale, GloVeRestatements},
	"use-lite-v1":       {USELiteScale, USELiteRestatements},
	"concat(hash-v1*0.15,glove-100d-sif-v1*0.7,use-lite-v1*0.15)": {HybridScale, HybridRestatements},
}

// KnownScale returns the scale of a built-in encoder, by its ID.
func KnownScale(id string) (Scale, bool) {
	s, ok := builtinScales[id]
	return s[0], ok
}

// KnownRestatements returns the scale of restatements of a built-in
// encoder, by its ID.
func KnownRestatements(id string) (Scale, bool) {
	s, ok := builtinScales[id]
	return s[1], ok
}
