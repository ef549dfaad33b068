//go:build amd64 && !purego

package index

import (
	"math"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly kernels. Tests flip it to compare both paths.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useVNNI selects the AVX-512 VNNI kernel of the int8 scan (Intel since
// Cascade Lake, AMD since Zen 4); x/sys/cpu reports AVX-512 only where the
// operating system saves its registers. Tests flip it.
var useVNNI = useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VNNI

// useNEON is arm64's (kernel_arm64.go).
var useNEON = false

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func l2sqAVX2(a, b *float32, n int) float32

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

//go:noescape
func dotsWideAVX2(q *int16, rows *int8, dim, n int, out *int32)

//go:noescape
func dotsVNNI(q *int8, rows *int8, dim, n int, out *int32, corr int32)

//go:noescape
func dotsNibbleVNNI(q *int8, rows *int8, chunks, n int, thr int, idx *int32, out *int32) int

//go:noescape
func dotsNibbleAVX2(q *int8, rows *int8, chunks, n int, thr int, idx *int32, out *int32) int

func dot(a, b []float32) float32 {
	if useAVX2 && len(a) > 0 {
		_ = b[len(a)-1]
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGo(a, b)
}

func l2sq(a, b []float32) float32 {
	if useAVX2 && len(a) > 0 {
		_ = b[len(a)-1]
		return l2sqAVX2(&a[0], &b[0], len(a))
	}
	return l2sqGo(a, b)
}

func dotInt8(a, b []int8) int32 {
	if useAVX2 && len(a) > 0 {
		_ = b[len(a)-1]
		return dotInt8AVX2(&a[0], &b[0], len(a))
	}
	return dotInt8Go(a, b)
}

// dots sets out[i] to the dot product of the query q with the i-th row of
// rows (rows of q's dimension, one after another).
func dots(q *scanQuery, rows []int8, out []int32) {
	d := len(q.codes)
	if d == 0 || len(out) == 0 {
		return
	}
	_ = rows[len(out)*d-1]
	switch {
	case useVNNI:
		dotsVNNI(&q.padded[0], &rows[0], d, len(out), &out[0], q.corr)
	case useAVX2:
		dotsWideAVX2(&q.wide[0], &rows[0], d, len(out), &out[0])
	default:
		dotsGo(q, rows, out)
	}
}

// dotsNibble scores the rows of rows (4-bit levels, nibbleRowBytes bytes
// a row) by the dot product of q's weights with their levels, writes the
// index of each row scoring floor or more to idx and its score to out, in
// row order, and returns how many it wrote (math.MinInt64 keeps every
// row). idx and out hold a score for every row.
func dotsNibble(q *nibbleQuery, rows []int8, floor int64, idx, out []int32) int {
	rb := len(q.padded) / 2
	n := len(rows) / max(rb, 1)
	if rb == 0 || n == 0 {
		return 0
	}
	_, _ = idx[n-1], out[n-1]
	// The kernels compare the products, which are int32, with the floor
	// within int32: no product reaches one above it, and every product
	// reaches one below it.
	thr := q.raw(floor)
	if thr > math.MaxInt32 {
		return 0
	}
	thr = max(thr, math.MinInt32)
	var m int
	switch {
	case useVNNI:
		m = dotsNibbleVNNI(&q.padded[0], &rows[0], rb/64, n, int(thr), &idx[0], &out[0])
	case useAVX2:
		m = dotsNibbleAVX2(&q.padded[0], &rows[0], rb/64, n, int(thr), &idx[0], &out[0])
	default:
		return dotsNibbleGo(q, rows, floor, idx, out)
	}
	for j := range out[:m] {
		out[j] -= q.corr
	}
	return m
}

// raw is floor as a bound on the products of the stored levels (level +
// 8), which the assembly kernels compare before taking the offset out.
func (q *nibbleQuery) raw(floor int64) int64 {
	switch {
	case floor <= math.MinInt32:
		return math.MinInt64
	case floor > math.MaxInt32:
		return math.MaxInt64 // above every product
	}
	return floor + int64(q.corr)
}

// ScanKernel names the kernel of the int8 scan this CPU runs:
// "avx512-vnni", "avx2" or "generic".
func ScanKernel() string {
	switch {
	case useVNNI:
		return "avx512-vnni"
	case useAVX2:
		return "avx2"
	}
	return "generic"
}
