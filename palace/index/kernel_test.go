package index

import (
	"math"
	"math/rand"
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

// Every scan kernel this CPU runs (AVX-512 VNNI, AVX2 with the query
// widened once, pure Go) scores each row as dotInt8Go does, for every
// width (tails under 16 and under 64 included) and at the extremes of the
// codes.
func TestScanKernelsMatchPureGo(t *testing.T) {
	type kernel struct {
		name      string
		avx, vnni bool
	}
	kernels := []kernel{{"go", false, false}}
	if useAVX2 {
		kernels = append(kernels, kernel{"avx2", true, false})
	}
	if useVNNI {
		kernels = append(kernels, kernel{"avx512-vnni", true, true})
	} else {
		t.Log("no AVX-512 VNNI on this CPU: its kernel is not checked here")
	}
	defer func(avx, vnni bool) { useAVX2, useVNNI = avx, vnni }(useAVX2, useVNNI)
	r := rand.New(rand.NewSource(9))
	for _, k := range kernels {
		useAVX2, useVNNI = k.avx, k.vnni
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
						t.Fatalf("%s d=%d n=%d row %d: %d, pure Go %d", k.name, d, n, i, got[i], want)
					}
				}
			}
		}
	}
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
