//go:build amd64 && !purego

package index

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernels. Tests flip it to compare both paths.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func l2sqAVX2(a, b *float32, n int) float32

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

//go:noescape
func dotsWideAVX2(q *int16, rows *int8, dim, n int, out *int32)

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

// dotsWide sets out[i] to the dot product of the widened query qw with the
// i-th row of rows (rows of len(qw) codes, one after another).
func dotsWide(qw []int16, rows []int8, out []int32) {
	d := len(qw)
	if useAVX2 && d > 0 && len(out) > 0 {
		_ = rows[len(out)*d-1]
		dotsWideAVX2(&qw[0], &rows[0], d, len(out), &out[0])
		return
	}
	dotsWideGo(qw, rows, out)
}
