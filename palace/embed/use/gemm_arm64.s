#include "textflag.h"

// NEON kernels for arm64 (gemm_arm64.go): rows x 16 columns of
// c[i*ldc+j] = init[i*istride+j] + sum_k a[i*lda+k] * w[k*16+j], fp32,
// strides in elements, k >= 1, init may alias c (it is read before c is
// written). A panel row of 16 weights is four vectors; each a[i][k] is
// loaded replicated into all four lanes (LD1R) and multiplied into the
// row's four sums with FMLA (fused multiply-add, as the amd64 kernels'
// FMA).

// func neon4(a *float32, lda int, w *float32, k int, c *float32, ldc int, init *float32, istride int)
// Four rows: V0-V15 hold the sums (row r in V4r..V4r+3), V16-V19 a panel
// row of weights, V20-V23 the rows' inputs at k.
TEXT ·neon4(SB), NOSPLIT, $0-64
	MOVD a+0(FP), R0
	MOVD lda+8(FP), R1
	MOVD w+16(FP), R2
	MOVD k+24(FP), R3
	MOVD c+32(FP), R4
	MOVD ldc+40(FP), R5
	MOVD init+48(FP), R6
	MOVD istride+56(FP), R7
	LSL  $2, R1, R1
	LSL  $2, R5, R5
	LSL  $2, R7, R7
	ADD  R1, R0, R8
	ADD  R1, R8, R9
	ADD  R1, R9, R10
	ADD  R7, R6, R11
	ADD  R7, R11, R12
	ADD  R7, R12, R13
	VLD1 (R6), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1 (R11), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1 (R12), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1 (R13), [V12.S4, V13.S4, V14.S4, V15.S4]

loop4:
	VLD1.P  64(R2), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1R.P 4(R0), [V20.S4]
	VLD1R.P 4(R8), [V21.S4]
	VLD1R.P 4(R9), [V22.S4]
	VLD1R.P 4(R10), [V23.S4]
	VFMLA   V16.S4, V20.S4, V0.S4
	VFMLA   V17.S4, V20.S4, V1.S4
	VFMLA   V18.S4, V20.S4, V2.S4
	VFMLA   V19.S4, V20.S4, V3.S4
	VFMLA   V16.S4, V21.S4, V4.S4
	VFMLA   V17.S4, V21.S4, V5.S4
	VFMLA   V18.S4, V21.S4, V6.S4
	VFMLA   V19.S4, V21.S4, V7.S4
	VFMLA   V16.S4, V22.S4, V8.S4
	VFMLA   V17.S4, V22.S4, V9.S4
	VFMLA   V18.S4, V22.S4, V10.S4
	VFMLA   V19.S4, V22.S4, V11.S4
	VFMLA   V16.S4, V23.S4, V12.S4
	VFMLA   V17.S4, V23.S4, V13.S4
	VFMLA   V18.S4, V23.S4, V14.S4
	VFMLA   V19.S4, V23.S4, V15.S4
	SUBS    $1, R3, R3
	BNE     loop4

	ADD  R5, R4, R8
	ADD  R5, R8, R9
	ADD  R5, R9, R10
	VST1 [V0.S4, V1.S4, V2.S4, V3.S4], (R4)
	VST1 [V4.S4, V5.S4, V6.S4, V7.S4], (R8)
	VST1 [V8.S4, V9.S4, V10.S4, V11.S4], (R9)
	VST1 [V12.S4, V13.S4, V14.S4, V15.S4], (R10)
	RET
