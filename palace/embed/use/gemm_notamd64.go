//go:build !amd64

package use

// Outside amd64 the weights are widened to fp32 at load, and only tile32
// has a kernel of its own (NEON on arm64: gemm_arm64.go; the portable one
// elsewhere: gemm_other.go).
var (
	useAVX2    = false
	useAVX512  = false
	halfPanels = false
	bf16Panels = false
)

func tile16(a []float32, lda int, w []uint16, k int, c []float32, ldc int, init []float32, istride, rows int) {
	tileGeneric16(a, lda, w, k, c, ldc, init, istride, rows)
}

func pairs() bool { return false }

func tilePair(a []float32, lda int, w32 []float32, w16 []uint16, k int, c []float32, ldc int, init []float32, istride int) {
	panic("use: no paired kernel on this platform")
}

func tileBF(a []uint16, lda int, w []uint32, k int, c []float32, ldc int, init []float32, istride, rows int) {
	tileGenericBF(a, lda, w, k, c, ldc, init, istride, rows)
}

func quadsBF() bool { return false }

func tileQuadBF(a []uint16, lda int, w []uint32, k int, c []float32, ldc int, init []float32, istride int) {
	panic("use: no tile kernels on this platform")
}

func roundBF16(dst []uint16, src []float32) { roundBFGeneric(dst, src) }

func expChunks(row []float32, scale, mx float32) (int, float32) { return 0, 0 }

func weightsToBF16(dst []uint16, src []byte) { weightsToBF16Generic(dst, src) }
