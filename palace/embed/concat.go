package embed

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
)

// Concat joins embedders: its vector is the parts' unit vectors, part i
// scaled by sqrt(w_i / sum w), laid end to end. The cosine of two such
// vectors is the w-weighted mean of the parts' cosines, so one index over
// the joined vectors ranks by a fused score. Parts are computed
// concurrently.
type Concat struct {
	parts   []Embedder
	weights []float64
	scale   []float32
	id      string
	dim     int
}

var (
	_ Embedder      = (*Concat)(nil)
	_ QueryEmbedder = (*Concat)(nil)
)

// NewConcat returns the weighted concatenation of parts; weights must be
// positive, one per part. Its ID is "concat(<id>*<w>,...)" with the
// normalised weights, so a change of part or weight changes the ID.
func NewConcat(parts []Embedder, weights []float64) (*Concat, error) {
	if len(parts) == 0 || len(parts) != len(weights) {
		return nil, fmt.Errorf("concat: %d parts and %d weights", len(parts), len(weights))
	}
	var sum float64
	for _, w := range weights {
		if !(w > 0) {
			return nil, fmt.Errorf("concat: weight %v is not positive", w)
		}
		sum += w
	}
	c := &Concat{parts: parts, weights: make([]float64, len(weights)), scale: make([]float32, len(weights))}
	ids := make([]string, len(parts))
	for i, p := range parts {
		c.weights[i] = weights[i] / sum
		c.scale[i] = float32(math.Sqrt(c.weights[i]))
		c.dim += p.Dim()
		ids[i] = fmt.Sprintf("%s*%.3g", p.ID(), c.weights[i])
	}
	c.id = "concat(" + strings.Join(ids, ",") + ")"
	return c, nil
}

// ID implements Embedder.
func (c *Concat) ID() string { return c.id }

// Dim implements Embedder.
func (c *Concat) Dim() int { return c.dim }

// LanguageShare is the parts' LanguageShare by their weights.
func (c *Concat) LanguageShare() float64 {
	var s float64
	for i, p := range c.parts {
		s += c.weights[i] * LanguageShare(p)
	}
	return s
}

// Embed implements Embedder. A text for which some parts give a zero
// vector keeps the other parts' contributions and is renormalised, so the
// result is a unit vector unless every part is zero.
func (c *Concat) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return c.join(ctx, texts, false)
}

// EmbedQueries implements QueryEmbedder: each part embeds the texts as it
// embeds queries (Queries).
func (c *Concat) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return c.join(ctx, texts, true)
}

// join embeds texts with every part, concurrently, as queries or as texts
// to store, and lays the parts' vectors end to end.
func (c *Concat) join(ctx context.Context, texts []string, queries bool) ([][]float32, error) {
	res := make([][][]float32, len(c.parts))
	errs := make([]error, len(c.parts))
	var wg sync.WaitGroup
	for i, p := range c.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if queries {
				res[i], errs[i] = Queries(ctx, p, texts)
			} else {
				res[i], errs[i] = p.Embed(ctx, texts)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.parts[i].ID(), err)
		}
	}
	out := make([][]float32, len(texts))
	for t := range texts {
		v := make([]float32, 0, c.dim)
		for i := range c.parts {
			for _, x := range res[i][t] {
				v = append(v, x*c.scale[i])
			}
		}
		out[t] = Normalize(v)
	}
	return out, nil
}
