#include "textflag.h"

// NEON kernels of the scan (kernel_arm64.go). The Go assembler has no
// signed widening multiply, so those instructions are written as their
// words, each checked against GNU as (aarch64-linux-gnu-as):
//   0x0e22c023  smull  v3.8h, v1.8b, v2.8b
//   0x4e22c024  smull2 v4.8h, v1.16b, v2.16b
//   0x4e606860  sadalp v0.4s, v3.8h
//   0x4e606885  sadalp v5.4s, v4.8h
// and, in dotsNibbleNEON, smull and smlal2 of v3 and v4 as their comments
// say. An int8 product fits in 16 bits (-128 x -128 = 16384), and two of
// them may not (32768), so dotsNEON adds each product to 32 bits alone
// (SADALP adds neighbouring 16-bit lanes into 32-bit sums); a 4-bit level
// (0..15) times a weight (-127..127) is small enough for two to share 16
// bits (SMLAL2) before they are widened.

// func dotsNEON(q *int8, rows *int8, stride, chunks, n int, out *int32)
// out[i] = the dot product of the first 16*chunks codes of q and of row i
// (rows stride bytes apart); chunks >= 1, n >= 1.
TEXT ·dotsNEON(SB), NOSPLIT, $0-48
	MOVD q+0(FP), R0
	MOVD rows+8(FP), R1
	MOVD stride+16(FP), R2
	MOVD chunks+24(FP), R3
	MOVD n+32(FP), R4
	MOVD out+40(FP), R9
	SUB  R3<<4, R2, R8 // the bytes of a row past its chunks

row:
	MOVD R0, R5
	MOVD R3, R6
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V5.B16, V5.B16, V5.B16

chunk:
	VLD1.P 16(R5), [V1.B16]
	VLD1.P 16(R1), [V2.B16]
	WORD   $0x0e22c023 // smull  v3.8h, v1.8b, v2.8b
	WORD   $0x4e22c024 // smull2 v4.8h, v1.16b, v2.16b
	WORD   $0x4e606860 // sadalp v0.4s, v3.8h
	WORD   $0x4e606885 // sadalp v5.4s, v4.8h
	SUBS   $1, R6, R6
	BNE    chunk

	VADD   V5.S4, V0.S4, V0.S4
	VADDV  V0.S4, V0
	VMOV   V0.S[0], R7
	MOVW.P R7, 4(R9)
	ADD    R8, R1, R1
	SUBS   $1, R4, R4
	BNE    row
	RET

// func dotsNibbleNEON(q *int8, rows *int8, chunks, n int, out *int32)
// out[i] = the sum over row i's 64*chunks bytes of its low level (the
// byte's low four bits) times q's low weight and its high level times the
// high weight, where chunk c's weights are q[128c:128c+64] (low) and
// q[128c+64:128c+128] (high), as nibble.go lays them out; chunks >= 1,
// n >= 1.
TEXT ·dotsNibbleNEON(SB), NOSPLIT, $0-40
	MOVD q+0(FP), R0
	MOVD rows+8(FP), R1
	MOVD chunks+16(FP), R2
	MOVD n+24(FP), R3
	MOVD out+32(FP), R4
	VMOVI $15, V31.B16

nrow:
	MOVD R0, R5
	MOVD R2, R6
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V5.B16, V5.B16, V5.B16

nchunk:
	VLD1.P 64(R1), [V16.B16, V17.B16, V18.B16, V19.B16]
	VLD1.P 64(R5), [V20.B16, V21.B16, V22.B16, V23.B16]
	VLD1.P 64(R5), [V24.B16, V25.B16, V26.B16, V27.B16]
	// bytes 0-15: low levels times the low weights, high times high
	VAND  V31.B16, V16.B16, V6.B16
	VUSHR $4, V16.B16, V7.B16
	WORD  $0xe34c0c3 // smull  v3.8h, v6.8b, v20.8b
	WORD  $0x4e3480c3 // smlal2 v3.8h, v6.16b, v20.16b
	WORD  $0xe38c0e4 // smull  v4.8h, v7.8b, v24.8b
	WORD  $0x4e3880e4 // smlal2 v4.8h, v7.16b, v24.16b
	WORD  $0x4e606860 // sadalp v0.4s, v3.8h
	WORD  $0x4e606885 // sadalp v5.4s, v4.8h
	// bytes 16-31: low levels times the low weights, high times high
	VAND  V31.B16, V17.B16, V6.B16
	VUSHR $4, V17.B16, V7.B16
	WORD  $0xe35c0c3 // smull  v3.8h, v6.8b, v21.8b
	WORD  $0x4e3580c3 // smlal2 v3.8h, v6.16b, v21.16b
	WORD  $0xe39c0e4 // smull  v4.8h, v7.8b, v25.8b
	WORD  $0x4e3980e4 // smlal2 v4.8h, v7.16b, v25.16b
	WORD  $0x4e606860 // sadalp v0.4s, v3.8h
	WORD  $0x4e606885 // sadalp v5.4s, v4.8h
	// bytes 32-47: low levels times the low weights, high times high
	VAND  V31.B16, V18.B16, V6.B16
	VUSHR $4, V18.B16, V7.B16
	WORD  $0xe36c0c3 // smull  v3.8h, v6.8b, v22.8b
	WORD  $0x4e3680c3 // smlal2 v3.8h, v6.16b, v22.16b
	WORD  $0xe3ac0e4 // smull  v4.8h, v7.8b, v26.8b
	WORD  $0x4e3a80e4 // smlal2 v4.8h, v7.16b, v26.16b
	WORD  $0x4e606860 // sadalp v0.4s, v3.8h
	WORD  $0x4e606885 // sadalp v5.4s, v4.8h
	// bytes 48-63: low levels times the low weights, high times high
	VAND  V31.B16, V19.B16, V6.B16
	VUSHR $4, V19.B16, V7.B16
	WORD  $0xe37c0c3 // smull  v3.8h, v6.8b, v23.8b
	WORD  $0x4e3780c3 // smlal2 v3.8h, v6.16b, v23.16b
	WORD  $0xe3bc0e4 // smull  v4.8h, v7.8b, v27.8b
	WORD  $0x4e3b80e4 // smlal2 v4.8h, v7.16b, v27.16b
	WORD  $0x4e606860 // sadalp v0.4s, v3.8h
	WORD  $0x4e606885 // sadalp v5.4s, v4.8h
	SUBS $1, R6, R6
	BNE  nchunk

	VADD   V5.S4, V0.S4, V0.S4
	VADDV  V0.S4, V0
	VMOV   V0.S[0], R7
	MOVW.P R7, 4(R4)
	SUBS   $1, R3, R3
	BNE    nrow
	RET

// func dotF32NEON(a, b *float32, chunks int, sums *[4]float32)
// sums = four lanes whose total is the dot product of the first 16*chunks
// values of a and b; chunks >= 1.
TEXT ·dotF32NEON(SB), NOSPLIT, $0-32
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD chunks+16(FP), R2
	MOVD sums+24(FP), R3
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

floop:
	VLD1.P 64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R1), [V16.S4, V17.S4, V18.S4, V19.S4]
	VFMLA  V16.S4, V4.S4, V0.S4
	VFMLA  V17.S4, V5.S4, V1.S4
	VFMLA  V18.S4, V6.S4, V2.S4
	VFMLA  V19.S4, V7.S4, V3.S4
	SUBS   $1, R2, R2
	BNE    floop

	// No vector FADD in the assembler: x + y*1 rounds once, as it would.
	FMOVS $1.0, F28
	VDUP  V28.S[0], V28.S4
	VFMLA V1.S4, V28.S4, V0.S4
	VFMLA V3.S4, V28.S4, V2.S4
	VFMLA V2.S4, V28.S4, V0.S4
	VST1  [V0.S4], (R3)
	RET
