//go:build eval

package embed_test

import (
	"encoding/gob"
	"fmt"
	"os"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/embed/glove"
	"github.com/loci-mem/loci/palace/embed/use"
)

func cachedUSE(t *testing.T, convs []lcConv) *vecs {
	p := "/tmp/lociw/use_vecs.gob"
	if f, err := os.Open(p); err == nil {
		defer f.Close()
		var v struct{ Docs, Qs [][][]float32 }
		if err := gob.NewDecoder(f).Decode(&v); err == nil {
			return &vecs{name: "use", docs: v.Docs, qs: v.Qs}
		}
	}
	v := embedAll(t, "use", use.New(), convs)
	f, _ := os.Create(p)
	gob.NewEncoder(f).Encode(struct{ Docs, Qs [][][]float32 }{v.docs, v.qs})
	f.Close()
	return v
}

func TestZZScratch(t *testing.T) {
	convs := loadLoCoMo(t)
	us := cachedUSE(t, convs)
	hs := map[int]*vecs{}
	for _, d := range []int{384, 768} {
		hs[d] = embedAll(t, "hash", embed.NewHash(d), convs)
		report(t, convs, fmt.Sprintf("hash %d", d), cosOf(hs[d]), "")
	}
	gs := map[float64]*vecs{}
	for _, a := range []float64{1e-3, 3e-3} {
		gs[a] = embedAll(t, "glove", glove.NewWith(a, 0), convs)
	}
	pre := func(v *vecs) [][][]float32 {
		out := make([][][]float32, len(convs))
		for c := range convs {
			out[c] = make([][]float32, len(convs[c].qs))
			for q := range convs[c].qs {
				row := make([]float32, len(convs[c].texts))
				for d := range row {
					row[d] = embed.Dot(v.qs[c][q], v.docs[c][d])
				}
				out[c][q] = row
			}
		}
		return out
	}
	P := map[any][][][]float32{}
	for d, h := range hs {
		P[d] = pre(h)
	}
	for a, g := range gs {
		P[a] = pre(g)
	}
	P["use"] = pre(us)
	fused := func(parts []any, w []float64) scorer {
		return func(c, q, d int) float32 {
			var s float32
			for i, p := range parts {
				s += float32(w[i]) * P[p][c][q][d]
			}
			return s
		}
	}
	type res struct {
		name string
		dev  float64
		s    scorer
	}
	var best res
	var bestNoUse res
	for d := range hs {
		for a := range gs {
			for wh := 0; wh <= 20; wh++ {
				for wg := 0; wg+wh <= 20; wg++ {
					wu := 20 - wh - wg
					w := []float64{float64(wh) / 20, float64(wg) / 20, float64(wu) / 20}
					s := fused([]any{d, a, "use"}, w)
					m := evaluate(convs, s, 0, 5)
					name := fmt.Sprintf("hash%d %.2f glove(a=%g) %.2f use %.2f", d, w[0], a, w[1], w[2])
					if m.frac+m.any > best.dev {
						best = res{name, m.frac + m.any, s}
					}
					if wu == 0 && m.frac+m.any > bestNoUse.dev {
						bestNoUse = res{name, m.frac + m.any, s}
					}
				}
			}
		}
	}
	report(t, convs, "BEST "+best.name, best.s, "")
	report(t, convs, "BEST no use "+bestNoUse.name, bestNoUse.s, "")
	for _, w := range [][]float64{{.3, .4, .3}, {.35, .4, .25}, {.3, .45, .25}, {.35, .35, .3}, {.4, .4, .2}, {.4, .35, .25}} {
		report(t, convs, fmt.Sprintf("hash384 %.2f glove(1e-3) %.2f use %.2f", w[0], w[1], w[2]), fused([]any{384, 1e-3, "use"}, w), "")
		report(t, convs, fmt.Sprintf("hash768 %.2f glove(1e-3) %.2f use %.2f", w[0], w[1], w[2]), fused([]any{768, 1e-3, "use"}, w), "")
	}
}
