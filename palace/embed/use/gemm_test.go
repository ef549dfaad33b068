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
		{1, 16, 16}, {3, 17, 16}, {5, 256, 32}, {7, 300, 48}, {20, 512, 1536}, {97, 1536, 512}, {200, 256, 64},
	} {
		w := randVec(r, shape.in*shape.out)
		// Values every kernel holds exactly: fp16 weights that are also
		// bf16, and bf16 inputs, so that the bf16 kernels' products are
		// those of the others.
		for i := range w {
			w[i] = wfile.F16ToF32(wfile.F32ToF16(fromBF16(bf16(w[i]))))
		}
		b := randVec(r, shape.out)
		x := randVec(r, shape.rows*shape.in)
		for i := range x {
			x[i] = fromBF16(bf16(x[i]))
		}
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
			d, err := newDense(e, b, currentPanels())
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

// TestRoundBF16 checks the rounding of a layer's inputs to bf16 (32 at a
// time where the CPU has the bf16 kernels, the rest one by one) against
// rounding to nearest even done by hand, on values with ties.
func TestRoundBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	src := randVec(r, 1000)
	src[0], src[1], src[2] = 1+1.0/256, 1+3.0/256, -(1 + 1.0/256) // ties: down, up, down
	src[3], src[4] = 0, float32(math.Inf(1))
	for _, n := range []int{0, 1, 31, 32, 33, 64, 1000} {
		got := make([]uint16, n)
		roundBF16(got, src[:n])
		for i, f := range src[:n] {
			b := math.Float32bits(f)
			want := b >> 16
			if rest := b & 0xffff; rest > 0x8000 || (rest == 0x8000 && want&1 == 1) {
				want++
			}
			if uint32(got[i]) != want {
				t.Fatalf("n %d: %v rounds to %#04x, want %#04x", n, f, got[i], want)
			}
		}
	}
	if bf16(1+1.0/256) != 0x3f80 || bf16(1+3.0/256) != 0x3f82 {
		t.Fatal("ties do not round to even")
	}
}

// TestF16ToBF16 checks the integer conversion of fp16 weights to bf16
// against converting through float32, for every fp16 value but NaNs.
func TestF16ToBF16(t *testing.T) {
	for h := range 1 << 16 {
		f := wfile.F16ToF32(uint16(h))
		if f != f {
			continue
		}
		if got, want := f16ToBF16(uint16(h)), bf16(f); got != want {
			t.Fatalf("fp16 %#04x (%v): %#04x, want %#04x", h, f, got, want)
		}
	}
	// The same, 32 at a time where the CPU has the tiles, on every
	// finite fp16 value.
	var src []byte
	var want []uint16
	for h := range 1 << 16 {
		if f := wfile.F16ToF32(uint16(h)); f == f {
			src = append(src, byte(h), byte(h>>8))
			want = append(want, bf16(f))
		}
	}
	got := make([]uint16, len(want))
	weightsToBF16(got, src)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("weightsToBF16: value %d: %#04x, want %#04x", i, got[i], want[i])
		}
	}
}

// TestAttentionAgrees compares the attention, run on the tile kernels with
// keys padded to panels, with softmax attention computed directly, on a
// batch whose sequences are shorter than a panel, exactly a panel, a
// panel and one, and the encoder's longest, with both kernels.
func TestAttentionAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lens := []int{1, 5, 16, 17, 40, 128}
	b := batch{start: make([]int, len(lens)+1)}
	for i, n := range lens {
		b.start[i+1] = b.start[i] + n
	}
	l := layer{width: 512, heads: 4, qscale: 0.088}
	n, w, depth := b.rows(), l.width, l.width/l.heads
	qkv := randVec(r, n*3*w)
	want := make([]float64, n*w)
	for s := range lens {
		lo, hi := b.start[s], b.start[s+1]
		for hd := 0; hd < l.heads; hd++ {
			for i := lo; i < hi; i++ {
				scores := make([]float64, hi-lo)
				mx, sum := math.Inf(-1), 0.0
				for j := lo; j < hi; j++ {
					var d float64
					for k := 0; k < depth; k++ {
						d += float64(qkv[i*3*w+hd*depth+k]) * float64(qkv[j*3*w+w+hd*depth+k])
					}
					scores[j-lo] = d * float64(l.qscale)
					mx = max(mx, scores[j-lo])
				}
				for j := range scores {
					scores[j] = math.Exp(scores[j] - mx)
					sum += scores[j]
				}
				for k := 0; k < depth; k++ {
					var o float64
					for j := lo; j < hi; j++ {
						o += scores[j-lo] / sum * float64(qkv[j*3*w+2*w+hd*depth+k])
					}
					want[i*w+hd*depth+k] = o
				}
			}
		}
	}
	for _, kernel := range []bool{true, false} {
		old := useAVX2
		useAVX2 = useAVX2 && kernel
		got := randVec(r, n*w) // whatever was there before is overwritten
		l.attention(got, qkv, &b)
		useAVX2 = old
		for i, g := range got {
			if d := math.Abs(float64(g) - want[i]); d > 1e-4*(1+math.Abs(want[i])) {
				t.Fatalf("avx2=%v: element %d (row %d) = %v, want %v", kernel, i, i/w, g, want[i])
			}
		}
	}
}

// TestExpScores checks the softmax's exponential, sixteen at a time and one
// by one, against math.Exp rounded to float32, over the arguments a
// softmax gives it, and the sum it returns.
func TestExpScores(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 15, 16, 17, 40, 128} {
		row := make([]float32, n)
		for i := range row {
			row[i] = float32(r.Float64()*100 - 95) // scaled, -95..5; mx 5 below
		}
		row[0] = 5 // the largest: exp(0) = 1
		want := make([]float64, n)
		var wsum float64
		for i, v := range row {
			x := max(float64(v*0.5-2.5), -87.3)
			want[i] = math.Exp(x)
			wsum += want[i]
		}
		sum := expScores(row, 0.5, 2.5)
		for i, g := range row {
			if d := math.Abs(float64(g) - want[i]); d > 4e-7*want[i] {
				t.Fatalf("n %d: element %d = %v, want %v (relative error %.2g)", n, i, g, want[i], d/want[i])
			}
		}
		if d := math.Abs(float64(sum) - wsum); d > 1e-6*wsum {
			t.Fatalf("n %d: sum %v, want %v", n, sum, wsum)
		}
	}
	if got := expPoly(0); got != 1 {
		t.Fatalf("e^0 = %v", got)
	}
}
