//go:build bench

package palace

import (
	"context"
	"encoding/json"
	"math"
	"math/bits"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin"
)

// BenchmarkFirstStageRecall measures two candidate first stages for a
// vector search that must not read every code of a large palace: sign
// bits of the mean-centred vectors (ranked by Hamming distance), and a
// 128-d PCA projection (ranked by projected dot product). Each ranks an
// existing palace's first LOCI_BENCH_N vectors (default 200,000) for 200
// LoCoMo questions; its best C candidates are re-scored exactly and the
// top 10 compared with the exact scan's. Recall@10 is reported per C.
//
//	LOCI_BENCH_HOME=/tmp/scale2 LOCI_BENCH_PALACE=scale-1000000-default \
//	go test -tags bench -run '^$' -bench BenchmarkFirstStageRecall -benchtime 1x -v -timeout 30m ./palace/
func BenchmarkFirstStageRecall(b *testing.B) {
	home, name := os.Getenv("LOCI_BENCH_HOME"), os.Getenv("LOCI_BENCH_PALACE")
	if home == "" || name == "" {
		b.Fatal("set LOCI_BENCH_HOME and LOCI_BENCH_PALACE to a palace built with the default encoder (loci bench scale --dir)")
	}
	n, _ := strconv.Atoi(os.Getenv("LOCI_BENCH_N"))
	if n <= 0 {
		n = 200_000
	}
	ctx := context.Background()
	reg, err := OpenRegistry(Config{DataDir: home, Embedder: embed.Default()})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	p, err := reg.Open(ctx, name)
	if err != nil {
		b.Fatal(err)
	}
	idx, err := p.vec.sync(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var vecs [][]float32
	idx.Each(func(_ uint64, v []float32) bool { vecs = append(vecs, v); return len(vecs) < n })
	if len(vecs) == 0 {
		b.Fatal("the palace has no vectors")
	}
	d := len(vecs[0])
	var loc []struct {
		QA []struct {
			Question string `json:"question"`
		} `json:"qa"`
	}
	raw, err := os.ReadFile("../../shared/data/locomo10.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, &loc); err != nil {
		b.Fatal(err)
	}
	var qs []string
	for _, s := range loc {
		for i, q := range s.QA {
			if i%10 == 0 && len(qs) < 200 {
				qs = append(qs, q.Question)
			}
		}
	}
	qvs, err := p.emb.Embed(ctx, qs)
	if err != nil {
		b.Fatal(err)
	}
	mean := make([]float64, d)
	for _, v := range vecs {
		for i, x := range v {
			mean[i] += float64(x)
		}
	}
	for i := range mean {
		mean[i] /= float64(len(vecs))
	}
	truth := make([]map[int]bool, len(qvs))
	for qi, q := range qvs {
		truth[qi] = topRows(len(vecs), 10, func(r int) float64 { return float64(embed.Dot(q, vecs[r])) })
	}
	cs := []int{100, 200, 500, 1000, 2000}
	report := func(stage string, first func(qi int) []int) {
		hit := make([]int, len(cs))
		for qi, q := range qvs {
			order := first(qi)
			for ci, c := range cs {
				cand := order[:min(c, len(order))]
				best := topRows(len(cand), 10, func(i int) float64 { return float64(embed.Dot(q, vecs[cand[i]])) })
				for i := range best {
					if truth[qi][cand[i]] {
						hit[ci]++
					}
				}
			}
		}
		for ci, c := range cs {
			b.Logf("%s, %d × %d: C=%d recall@10 %.3f", stage, len(vecs), d, c, float64(hit[ci])/float64(10*len(qvs)))
		}
	}

	// Sign bits of the mean-centred vectors.
	w := (d + 63) / 64
	sign := func(v []float32, out []uint64) {
		clear(out)
		for i, x := range v {
			if float64(x) > mean[i] {
				out[i/64] |= 1 << (i % 64)
			}
		}
	}
	codes := make([]uint64, w*len(vecs))
	for r, v := range vecs {
		sign(v, codes[r*w:(r+1)*w])
	}
	qb := make([]uint64, w)
	report("sign bits", func(qi int) []int {
		sign(qvs[qi], qb)
		return sortedRows(len(vecs), func(r int) float64 {
			h := 0
			for i, x := range codes[r*w : (r+1)*w] {
				h += bits.OnesCount64(x ^ qb[i])
			}
			return -float64(h)
		})
	})

	// PCA: covariance of a 30k sample, top 128 directions by subspace
	// iteration.
	const dims = 128
	r := rand.New(rand.NewSource(1))
	cov := make([]float64, d*d)
	c := make([]float64, d)
	for range 30_000 {
		v := vecs[r.Intn(len(vecs))]
		for i := range c {
			c[i] = float64(v[i]) - mean[i]
		}
		for i := range d {
			row := cov[i*d : (i+1)*d]
			for j := i; j < d; j++ {
				row[j] += c[i] * c[j]
			}
		}
	}
	for i := range d {
		for j := range i {
			cov[i*d+j] = cov[j*d+i]
		}
	}
	basis := make([][]float64, dims)
	for k := range basis {
		basis[k] = make([]float64, d)
		for i := range basis[k] {
			basis[k][i] = r.NormFloat64()
		}
	}
	tmp := make([]float64, d)
	for it := range 26 {
		if it > 0 {
			for k := range basis {
				for i := range d {
					s := 0.0
					for j, x := range basis[k] {
						s += cov[i*d+j] * x
					}
					tmp[i] = s
				}
				copy(basis[k], tmp)
			}
		}
		for k := range basis { // Gram-Schmidt
			for j := range k {
				dot := 0.0
				for i := range d {
					dot += basis[k][i] * basis[j][i]
				}
				for i := range d {
					basis[k][i] -= dot * basis[j][i]
				}
			}
			norm := 0.0
			for _, x := range basis[k] {
				norm += x * x
			}
			for i := range basis[k] {
				basis[k][i] /= math.Sqrt(norm)
			}
		}
	}
	project := func(v []float32, centred bool) []float32 {
		out := make([]float32, dims)
		for k := range basis {
			s := 0.0
			for i, x := range v {
				y := float64(x)
				if centred {
					y -= mean[i]
				}
				s += y * basis[k][i]
			}
			out[k] = float32(s)
		}
		return out
	}
	proj := make([][]float32, len(vecs))
	for i, v := range vecs {
		proj[i] = project(v, true)
	}
	report("PCA-128", func(qi int) []int {
		qp := project(qvs[qi], false)
		return sortedRows(len(vecs), func(r int) float64 { return float64(embed.Dot(qp, proj[r])) })
	})
}

// sortedRows orders rows 0..n-1 by score, best first.
func sortedRows(n int, score func(int) float64) []int {
	rows, s := make([]int, n), make([]float64, n)
	for i := range rows {
		rows[i], s[i] = i, score(i)
	}
	sort.Slice(rows, func(a, b int) bool { return s[rows[a]] > s[rows[b]] })
	return rows
}

// topRows is the set of the k best of rows 0..n-1 by score.
func topRows(n, k int, score func(int) float64) map[int]bool {
	out := map[int]bool{}
	for _, r := range sortedRows(n, score)[:min(k, n)] {
		out[r] = true
	}
	return out
}
