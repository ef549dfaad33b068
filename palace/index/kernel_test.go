package index

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

func TestKernelsMatchPureGo(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for n := 0; n <= 131; n++ {
		a := make([]float32, n)
		b := make([]float32, n)
		ai := make([]int8, n)
		bi := make([]int8, n)
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			ai[i], bi[i] = int8(r.Intn(255)-127), int8(r.Intn(255)-127)
		}
		if got, want := dot(a, b), dotGo(a, b); math.Abs(float64(got-want)) > 1e-4*(1+math.Abs(float64(want))) {
			t.Errorf("n=%d: dot = %v, pure Go %v", n, got, want)
		}
		if got, want := l2sq(a, b), l2sqGo(a, b); math.Abs(float64(got-want)) > 1e-4*(1+math.Abs(float64(want))) {
			t.Errorf("n=%d: l2sq = %v, pure Go %v", n, got, want)
		}
		if got, want := dotInt8(ai, bi), dotInt8Go(ai, bi); got != want {
			t.Errorf("n=%d: dotInt8 = %v, pure Go %v", n, got, want)
		}
	}
}

// eachKernel runs fn with each set of scan kernels this CPU has selected
// in turn (pure Go, AVX2, AVX-512 VNNI; NEON on arm64), then restores the
// CPU's choice.
func eachKernel(t *testing.T, fn func(kernel string)) {
	type kernel struct {
		name            string
		avx, vnni, neon bool
	}
	kernels := []kernel{{name: "go"}}
	if useAVX2 {
		kernels = append(kernels, kernel{name: "avx2", avx: true})
	}
	if useVNNI {
		kernels = append(kernels, kernel{name: "avx512-vnni", avx: true, vnni: true})
	} else if !useNEON {
		t.Log("no AVX-512 VNNI on this CPU: its kernel is not checked here")
	}
	if useNEON {
		kernels = append(kernels, kernel{name: "neon", neon: true})
	}
	defer func(avx, vnni, neon bool) { useAVX2, useVNNI, useNEON = avx, vnni, neon }(useAVX2, useVNNI, useNEON)
	for _, k := range kernels {
		useAVX2, useVNNI, useNEON = k.avx, k.vnni, k.neon
		fn(k.name)
	}
}

// Every scan kernel this CPU runs (AVX-512 VNNI, AVX2 with the query
// widened once, pure Go) scores each row as dotInt8Go does, for every
// width (tails under 16 and under 64 included) and at the extremes of the
// codes.
func TestScanKernelsMatchPureGo(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	eachKernel(t, func(kernel string) {
		for _, d := range []int{1, 7, 16, 31, 32, 33, 63, 64, 65, 100, 128, 384, 996} {
			for _, n := range []int{1, 2, 37} {
				q, rows := make([]int8, d), make([]int8, n*d)
				for i := range q {
					q[i] = int8(r.Intn(256) - 128)
				}
				for i := range rows {
					rows[i] = int8(r.Intn(256) - 128)
				}
				q[0], rows[0] = -128, -128
				q[d-1], rows[n*d-1] = 127, -128
				got := make([]int32, n)
				dots(prepare(q), rows, got)
				for i := range got {
					if want := dotInt8Go(q, rows[i*d:(i+1)*d]); got[i] != want {
						t.Fatalf("%s d=%d n=%d row %d: %d, pure Go %d", kernel, d, n, i, got[i], want)
					}
				}
			}
		}
	})
}

// Every 4-bit scan kernel this CPU runs scores each row as the sum of its
// levels times the query's weights, for widths of one chunk and several
// (a partial last chunk included) and at the extremes of levels and
// weights; and packNibbles stores a level where the kernels read it.
func TestNibbleKernelsMatchTheLevels(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	eachKernel(t, func(kernel string) {
		for _, dims := range []int{1, 64, 65, 100, 128, 200, 256, 384} {
			// Sixteen rows and more are scored sixteen at a time by the
			// AVX-512 kernel, the rest one by one.
			for _, n := range []int{1, 2, 15, 16, 17, 37, 100} {
				rb := nibbleRowBytes(dims)
				qc := make([]int8, dims)
				for i := range qc {
					qc[i] = int8(r.Intn(255) - 127)
				}
				qc[0], qc[dims-1] = -127, 127
				levels := make([][]int, n)
				rows := make([]int8, n*rb)
				sd := make([]float32, dims)
				for i := range sd {
					sd[i] = 1
				}
				for i := range levels {
					levels[i] = make([]int, dims)
					y := make([]float32, dims)
					for j := range y {
						c := r.Intn(16) - 8
						if j == 0 {
							c = -8
						} else if j == dims-1 {
							c = 7
						}
						levels[i][j] = c
						y[j] = float32(c) * nibbleStep
					}
					packNibbles(rows[i*rb:(i+1)*rb], y, sd)
				}
				want := make([]int32, n)
				for i := range want {
					for j, c := range levels[i] {
						want[i] += int32(c) * int32(qc[j])
					}
				}
				// Every row (no floor), then those at or above one
				// row's score, in row order, and none above every score.
				for _, floor := range []int64{math.MinInt64, math.MinInt32 - 1, int64(want[n/2]), int64(slices.Max(want)), math.MaxInt32 + 1, math.MaxInt64} {
					// Beyond n, a sentinel the kernels must leave alone
					// (the AVX2 kernel stores a group's products in out).
					idxAll, gotAll := make([]int32, n+16), make([]int32, n+16)
					for i := n; i < n+16; i++ {
						idxAll[i], gotAll[i] = -7, -7
					}
					idx, got := idxAll[:n], gotAll[:n]
					m := dotsNibble(prepareNibbles(qc), rows, floor, idx, got)
					for i := n; i < n+16; i++ {
						if idxAll[i] != -7 || gotAll[i] != -7 {
							t.Fatalf("%s dims=%d n=%d floor %d: wrote past the rows at %d", kernel, dims, n, floor, i)
						}
					}
					var wantIdx []int32
					for i, w := range want {
						if int64(w) >= floor {
							wantIdx = append(wantIdx, int32(i))
						}
					}
					if !slices.Equal(idx[:m], wantIdx) {
						t.Fatalf("%s dims=%d n=%d floor %d: rows %v, want %v", kernel, dims, n, floor, idx[:m], wantIdx)
					}
					for j, i := range idx[:m] {
						if got[j] != want[i] {
							t.Fatalf("%s dims=%d n=%d row %d: %d, want %d", kernel, dims, n, i, got[j], want[i])
						}
					}
				}
			}
		}
	})
}

func TestQuantize(t *testing.T) {
	v := []float32{0.5, -0.25, 0, 1, -1}
	codes := make([]int8, len(v))
	s := quantize(codes, v)
	for i, x := range v {
		if d := math.Abs(float64(s*float32(codes[i]) - x)); d > float64(s) {
			t.Errorf("v[%d]=%v decoded %v", i, x, s*float32(codes[i]))
		}
	}
	if s := quantize(codes, make([]float32, 5)); s != 0 {
		t.Errorf("zero vector scale = %v", s)
	}
}

func benchKernel(b *testing.B, d int, f func(a, b []float32) float32) {
	r := rand.New(rand.NewSource(1))
	x, y := make([]float32, d), make([]float32, d)
	for i := range x {
		x[i], y[i] = r.Float32(), r.Float32()
	}
	var s float32
	for b.Loop() {
		s += f(x, y)
	}
	_ = s
}

func BenchmarkDot384(b *testing.B)   { benchKernel(b, 384, dot) }
func BenchmarkDotGo384(b *testing.B) { benchKernel(b, 384, dotGo) }
func BenchmarkL2sq784(b *testing.B)  { benchKernel(b, 784, l2sq) }

func BenchmarkDotInt8_384(b *testing.B) {
	x, y := make([]int8, 384), make([]int8, 384)
	for i := range x {
		x[i], y[i] = int8(i), int8(-i)
	}
	var s int32
	for b.Loop() {
		s += dotInt8(x, y)
	}
	_ = s
}

// BenchmarkScanInt8 is the exact int8 scan of the default encoder's width
// (996) over 20k rows, per search and per row.
func BenchmarkScanInt8(b *testing.B) {
	const n, dim = 20000, 996
	f := NewFlat(FlatConfig{Int8: true})
	r := rand.New(rand.NewSource(1))
	keys := make([]uint64, n)
	vecs := make([][]float32, n)
	for i := range vecs {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		keys[i], vecs[i] = uint64(i+1), v
	}
	f.AddBatch(keys, vecs)
	q := vecs[7]
	for b.Loop() {
		f.SearchExact(q, 150, nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
}

// BenchmarkProjectedScan is the projected first stage's scan of a million
// rows of 128 directions, from memory rather than cache, as int8 codes
// (128 MB, the projection's codes before they were 4-bit) and as 4-bit
// levels (64 MB): the kernel, then the comparison with the worst kept of
// 720 candidates, block by block as searchProj does; and the 4-bit kernel
// alone on rows in cache.
func BenchmarkProjectedScan(b *testing.B) {
	const n, dims = 1 << 20, 128
	r := rand.New(rand.NewSource(1))
	qc := make([]int8, dims)
	for i := range qc {
		qc[i] = int8(r.Intn(255) - 127)
	}
	scan := func(b *testing.B, rowBytes int, kernel func(rows []int8, out []int32)) {
		codes := make([]int8, n*rowBytes)
		for i := range codes {
			codes[i] = int8(r.Intn(256))
		}
		prods := make([]int32, rowBlockRows)
		for b.Loop() {
			top := newTopK(720)
			floor := top.floor()
			for lo := 0; lo < n; lo += rowBlockRows {
				kernel(codes[lo*rowBytes:(lo+rowBlockRows)*rowBytes], prods)
				for i, dp := range prods {
					if s := float32(dp); s >= floor {
						top.push(uint64(lo+i), s)
						floor = top.floor()
					}
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
	}
	b.Run("int8", func(b *testing.B) {
		q := prepare(qc)
		scan(b, dims, func(rows []int8, out []int32) { dots(q, rows, out) })
	})
	b.Run("4-bit", func(b *testing.B) {
		q, idx := prepareNibbles(qc), make([]int32, rowBlockRows)
		scan(b, nibbleRowBytes(dims), func(rows []int8, out []int32) {
			dotsNibble(q, rows, math.MinInt64, idx, out)
		})
	})
	// The kernel alone, on rows in cache (16k rows, 1 MB), with a floor
	// no row reaches: what the scan costs when memory is not the bound.
	b.Run("4-bit-cached", func(b *testing.B) {
		const m = 1 << 14
		q, idx, out := prepareNibbles(qc), make([]int32, m), make([]int32, m)
		codes := make([]int8, m*nibbleRowBytes(dims))
		for i := range codes {
			codes[i] = int8(r.Intn(256))
		}
		for b.Loop() {
			dotsNibble(q, codes, math.MaxInt32, idx, out)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/m, "ns/row")
	})
	// As searchProj scans: the kernel passes over the rows below the
	// worst kept candidate.
	b.Run("4-bit-above", func(b *testing.B) {
		q := prepareNibbles(qc)
		codes := make([]int8, n*nibbleRowBytes(dims))
		for i := range codes {
			codes[i] = int8(r.Intn(256))
		}
		rb := nibbleRowBytes(dims)
		prods, idx := make([]int32, rowBlockRows), make([]int32, rowBlockRows)
		for b.Loop() {
			top := newTopK(720)
			floor := top.floor()
			for lo := 0; lo < n; lo += rowBlockRows {
				least := int64(math.MinInt64)
				if !math.IsInf(float64(floor), -1) {
					least = int64(floor)
				}
				m := dotsNibble(q, codes[lo*rb:(lo+rowBlockRows)*rb], least, idx, prods)
				for j, dp := range prods[:m] {
					if s := float32(dp); s >= floor {
						top.push(uint64(lo+int(idx[j])), s)
						floor = top.floor()
					}
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
	})
}
