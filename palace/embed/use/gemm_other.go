//go:build !amd64 && !arm64

package use

const maxTileRows = 4

// useNEON is false: there is no NEON here (gemm_arm64.go).
var useNEON = false

var kernelName = "generic"

func tile32(a []float32, lda int, w []float32, k int, c []float32, ldc int, init []float32, istride, rows int) {
	tileGeneric(a, lda, w, k, c, ldc, init, istride, rows)
}
