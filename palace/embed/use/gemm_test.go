package use

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loci-mem/loci/palace/embed/wfile"
)

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// TestDenseKernelsAgree compares every kernel with a plain triple loop on
// shapes that exercise row tails, row blocks, k blocks and both splits.
func TestDenseKernelsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []struct{ rows, in, out int }{
		{1, 16, 16}, {5, 256, 32}, {7, 300, 48}, {20, 512, 1536}, {97, 1536, 512}, {200, 256, 64},
	} {
		w := randVec(r, shape.in*shape.out)
		for i := range w { // make the fp16 and fp32 paths see identical weights
			w[i] = wfile.F16ToF32(wfile.F32ToF16(w[i]))
		}
		b := randVec(r, shape.out)
		x := randVec(r, shape.rows*shape.in)
		want := make([]float64, shape.rows*shape.out)
		for i := 0; i < shape.rows; i++ {
			for j := 0; j < shape.out; j++ {
				s := float64(b[j])
				for k := 0; k < shape.in; k++ {
					s += float64(x[i*shape.in+k]) * float64(w[k*shape.out+j])
				}
				want[i*shape.out+j] = s
			}
		}
		var ww wfile.Writer
		ww.AddF16("w", []int{shape.in, shape.out}, w)
		buf, _ := ww.Bytes()
		f, err := wfile.Parse(buf)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := f.Get("w")
		for _, kernel := range Kernels() {
			_, restore := NewForKernel(kernel)
			d, err := newDense(e, b, halfPanels)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float32, shape.rows*shape.out)
			d.apply(got, x, shape.rows)
			restore()
			for i, g := range got {
				if diff := math.Abs(float64(g) - want[i]); diff > 1e-3*(1+math.Abs(want[i])) {
					t.Fatalf("%s %v: element %d = %v, want %v", kernel, shape, i, g, want[i])
				}
			}
		}
	}
}

func TestDotAxpy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 15, 16, 64, 128, 200} {
		a, b := randVec(r, n), randVec(r, n)
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		if got := dot(a, b); math.Abs(float64(got)-want) > 1e-4*(1+math.Abs(want)) {
			t.Errorf("dot n=%d: %v, want %v", n, got, want)
		}
		y := append([]float32(nil), a...)
		axpy(y, b, 0.5)
		for i := range y {
			if d := y[i] - (a[i] + 0.5*b[i]); d > 1e-5 || d < -1e-5 {
				t.Fatalf("axpy n=%d: y[%d] = %v, want %v", n, i, y[i], a[i]+0.5*b[i])
			}
		}
	}
}
