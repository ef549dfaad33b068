package use

import "unsafe"

// maxTileRows is the most rows one tile32 call computes: four rows x 16
// columns take 16 of the 32 NEON registers as sums (gemm_arm64.s).
const maxTileRows = 4

// useNEON selects the NEON kernels, which every arm64 CPU runs (Advanced
// SIMD is part of ARMv8-A). It is a variable so tests can compare them
// with the portable kernel.
var useNEON = true

var kernelName = "neon"

// neon4 (gemm_arm64.s) computes 4 rows x 16 columns, c[i*ldc+j] =
// init[i*istride+j] + sum_k a[i*lda+k] * w[k*16+j]; fp32, strides in
// elements, k >= 1, init may alias c.
//
//go:noescape
func neon4(a *float32, lda int, w *float32, k int, c *float32, ldc int, init *float32, istride int)

// tile32 computes rows (1..4) x 16 outputs from fp32 weights. Fewer than
// four rows are copied into four, the rest zeros, so that every row's sums
// are made in the same order whatever rows share its call: a text's vector
// does not depend on where in a batch it falls (TestVectorsHoldUnderPreemption).
func tile32(a []float32, lda int, w []float32, k int, c []float32, ldc int, init []float32, istride, rows int) {
	if !useNEON || k == 0 || k > kBlock {
		tileGeneric(a, lda, w, k, c, ldc, init, istride, rows)
		return
	}
	checkTile(a, lda, len(w), k, c, ldc, init, istride, rows)
	if rows == 4 {
		neon4(unsafe.SliceData(a), lda, unsafe.SliceData(w), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride)
		return
	}
	var ap [4 * kBlock]float32
	var cp [4 * panelWidth]float32
	for i := 0; i < rows; i++ {
		copy(ap[i*k:(i+1)*k], a[i*lda:])
		copy(cp[i*panelWidth:(i+1)*panelWidth], init[i*istride:])
	}
	neon4(&ap[0], k, unsafe.SliceData(w), k, &cp[0], panelWidth, &cp[0], panelWidth)
	for i := 0; i < rows; i++ {
		copy(c[i*ldc:i*ldc+panelWidth], cp[i*panelWidth:])
	}
}
