//go:build bench

package palace

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin"
)

// BenchmarkFirstStageRecall measures candidate first stages for a vector
// search that must not read every code of a large palace: sign bits of
// the mean-centred vectors (ranked by Hamming distance), a 128-d PCA
// projection (ranked by projected dot product) estimated as
// LOCI_BENCH_PCA says, and, when LOCI_BENCH_N covers the whole index, the
// palace's own projected search (index.Flat.SearchCand). Each ranks an
// existing palace's first LOCI_BENCH_N vectors (default 200,000) for 200
// LoCoMo questions; its best C candidates are re-scored exactly and the
// top 10 compared with the exact scan's. Recall@10 is reported per C.
// LOCI_BENCH_STAGES picks stages (default sign,pca,index; int8 adds each
// projection in int8 codes, also scaled per direction; int4 in 4-bit
// codes at three steps).
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
	rowOf := map[uint64]int{}
	idx.Each(func(key uint64, v []float32) bool {
		rowOf[key] = len(vecs)
		vecs = append(vecs, v)
		return len(vecs) < n
	})
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

	stages := envOr("LOCI_BENCH_STAGES", "sign,pca,index")

	// The palace's own projected first stage (index.Flat.SearchCand), as
	// calibration measures it, when it holds every vector of the index.
	// Against the float top 10 and, as calibration counts, against the
	// int8 exact scan's (whose own recall against the float top 10 is
	// the ceiling of anything re-scored from the int8 codes).
	if strings.Contains(stages, "index") && len(vecs) == idx.Len() && idx.Stats().ProjectDims > 0 {
		exact := make([]map[uint64]bool, len(qvs))
		hit := 0
		for qi, q := range qvs {
			exact[qi] = map[uint64]bool{}
			for _, r := range idx.SearchExact(q, 10, nil) {
				exact[qi][r.Key] = true
				if truth[qi][rowOf[r.Key]] {
					hit++
				}
			}
		}
		b.Logf("index exact scan (int8), %d × %d: recall@10 %.3f", len(vecs), d, float64(hit)/float64(10*len(qvs)))
		for _, c := range cs {
			hit, hitExact := 0, 0
			for qi, q := range qvs {
				for _, r := range idx.SearchCand(q, 10, c, nil) {
					if truth[qi][rowOf[r.Key]] {
						hit++
					}
					if exact[qi][r.Key] {
						hitExact++
					}
				}
			}
			b.Logf("index projection, %d × %d: C=%d recall@10 %.3f (%.3f against the int8 scan)", len(vecs), d, c,
				float64(hit)/float64(10*len(qvs)), float64(hitExact)/float64(10*len(qvs)))
		}
	}
	if strings.Contains(stages, "sign") {
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
	}

	// PCA: covariance of a sample, the top 128 directions by subspace
	// iteration; LOCI_BENCH_PCA lists sample:iterations pairs (default
	// 30000:26, and 8192:12, the projection's own; see index/project.go).
	const dims = 128
	for _, cfg := range strings.Split(envOr("LOCI_BENCH_PCA", "30000:26,8192:12"), ",") {
		if !strings.Contains(stages, "pca") {
			break
		}
		var sampleN, iters int
		if _, err := fmt.Sscanf(cfg, "%d:%d", &sampleN, &iters); err != nil {
			b.Fatalf("LOCI_BENCH_PCA: %q: %v", cfg, err)
		}
		project := pcaProjector(vecs, mean, dims, sampleN, iters)
		proj := make([][]float32, len(vecs))
		for i, v := range vecs {
			proj[i] = project(v, true)
		}
		report(fmt.Sprintf("PCA-128 (sample %d, %d iterations)", sampleN, iters), func(qi int) []int {
			qp := project(qvs[qi], false)
			return sortedRows(len(vecs), func(r int) float64 { return float64(embed.Dot(qp, proj[r])) })
		})
		if strings.Contains(stages, "int8") {
			reportInt8(report, proj, func(qi int) []float32 { return project(qvs[qi], false) })
		}
		if strings.Contains(stages, "int4") {
			reportInt4(report, proj, func(qi int) []float32 { return project(qvs[qi], false) })
		}
	}
}

// reportInt8 reports the projection proj in int8 codes, as
// index.projection keeps it (each row's coordinates scaled by their
// largest, and the query's too), then with each coordinate first divided
// by its standard deviation over the rows (and the query's multiplied by
// it), so that the trailing directions, whose values are a fraction of the
// leading ones', are not rounded to a few levels.
func reportInt8(report func(string, func(int) []int), proj [][]float32, query func(qi int) []float32) {
	dims, sd := len(proj[0]), spreads(proj)
	for _, perDirection := range []bool{false, true} {
		codes := make([]int8, dims*len(proj))
		scales := make([]float32, len(proj))
		buf := make([]float32, dims)
		for r, v := range proj {
			for j, x := range v {
				buf[j] = x
				if perDirection {
					buf[j] = x / sd[j]
				}
			}
			scales[r] = quantize8(codes[r*dims:(r+1)*dims], buf)
		}
		name := "  in int8 codes"
		if perDirection {
			name = "  in int8 codes, each direction scaled to its spread"
		}
		report(name, func(qi int) []int {
			qp := query(qi)
			if perDirection {
				for j := range qp {
					qp[j] *= sd[j]
				}
			}
			qc := make([]int8, dims)
			quantize8(qc, qp)
			return byCodes(codes, qc, scales)
		})
	}
}

// reportInt4 reports the projection in 4-bit codes: each coordinate
// divided by its standard deviation over the rows, then rounded to one of
// 16 levels step apart (clipped), for several steps; the query's
// coordinates are multiplied by the deviations and kept in int8.
func reportInt4(report func(string, func(int) []int), proj [][]float32, query func(qi int) []float32) {
	dims, sd := len(proj[0]), spreads(proj)
	for _, step := range []float32{0.25, 0.33, 0.45} {
		codes := make([]int8, dims*len(proj))
		for r, v := range proj {
			for j, x := range v {
				c := math.RoundToEven(float64(x / sd[j] / step))
				codes[r*dims+j] = int8(max(-8, min(7, c)))
			}
		}
		report(fmt.Sprintf("  in 4-bit codes, step %.2f of each direction's spread", step), func(qi int) []int {
			qp := query(qi)
			for j := range qp {
				qp[j] *= sd[j]
			}
			qc := make([]int8, dims)
			quantize8(qc, qp)
			return byCodes(codes, qc, nil)
		})
	}
}

// byCodes orders the rows of codes (len(qc) codes each) by their integer
// product with qc, times the row's scale when scales is not nil.
func byCodes(codes, qc []int8, scales []float32) []int {
	dims := len(qc)
	return sortedRows(len(codes)/dims, func(r int) float64 {
		var dp int32
		for j, c := range codes[r*dims : (r+1)*dims] {
			dp += int32(c) * int32(qc[j])
		}
		if scales != nil {
			return float64(scales[r]) * float64(dp)
		}
		return float64(dp)
	})
}

// spreads is each coordinate's root mean square over proj (centred
// projections: their standard deviation).
func spreads(proj [][]float32) []float32 {
	sd := make([]float32, len(proj[0]))
	for _, v := range proj {
		for j, x := range v {
			sd[j] += x * x
		}
	}
	for j := range sd {
		sd[j] = float32(math.Sqrt(float64(sd[j]) / float64(len(proj))))
	}
	return sd
}

// quantize8 writes v's int8 codes (v scaled by 127 over its largest
// magnitude) into dst and returns the scale back.
func quantize8(dst []int8, v []float32) float32 {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	for i, x := range v {
		dst[i] = int8(math.RoundToEven(float64(x * 127 / m)))
	}
	return m / 127
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// pcaProjector estimates the leading dims principal directions of vecs
// (whose mean is given) from the covariance of sampleN of them, by iters
// rounds of subspace iteration, and returns the projection onto them
// (centred or not).
func pcaProjector(vecs [][]float32, mean []float64, dims, sampleN, iters int) func(v []float32, centred bool) []float32 {
	d := len(mean)
	r := rand.New(rand.NewSource(1))
	cov := make([]float64, d*d)
	c := make([]float64, d)
	for range sampleN {
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
	for it := range iters {
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
	return func(v []float32, centred bool) []float32 {
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
