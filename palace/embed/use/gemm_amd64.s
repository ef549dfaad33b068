// AVX2/FMA kernels for dense layers; see gemm_amd64.go. kernN computes N
// rows of 16 output columns from fp32 weights, halfN the same from fp16
// weights widened with F16C; the twelve variants differ only in N and in
// how a row of 16 weights is loaded.
//
// func kernN(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)
// func halfN(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)
//
// Register use:
//   SI  a (row 0), R10 = a + 3*lda (rows 3 and 5), R8 = lda in bytes
//   DI  w panel (16 weights per k), CX = k
//   DX  c (row 0), R9 = ldc in bytes, R11 = c + 3*ldc
//   AX  init (row 0), BX = istride in bytes, R12 = init + 3*istride
//   Y0..Y11 accumulators (two per row), Y12 Y13 weights, Y14 broadcast

#include "textflag.h"

#define ARGS \
	MOVQ a+0(FP), SI; MOVQ lda+8(FP), R8; SHLQ $2, R8; \
	MOVQ w+16(FP), DI; MOVQ k+24(FP), CX; \
	MOVQ c+32(FP), DX; MOVQ ldc+40(FP), R9; SHLQ $2, R9; \
	MOVQ init+48(FP), AX; MOVQ istride+56(FP), BX; SHLQ $2, BX; \
	LEAQ (SI)(R8*2), R10; ADDQ R8, R10; \
	LEAQ (AX)(BX*2), R12; ADDQ BX, R12; \
	LEAQ (DX)(R9*2), R11; ADDQ R9, R11

// INIT loads row r's accumulators from its two halves; FMA adds row r's
// a[k] times the weights; STORE writes row r's two halves.
#define INIT(lo, hi, acc0, acc1) VMOVUPS lo, acc0; VMOVUPS hi, acc1
#define FMA(arow, acc0, acc1) VBROADCASTSS arow, Y14; VFMADD231PS Y12, Y14, acc0; VFMADD231PS Y13, Y14, acc1
#define STORE(acc0, acc1, lo, hi) VMOVUPS acc0, lo; VMOVUPS acc1, hi

#define LOAD32 VMOVUPS (DI), Y12; VMOVUPS 32(DI), Y13
#define LOAD16 VCVTPH2PS (DI), Y12; VCVTPH2PS 16(DI), Y13
#define NEXT(step) ADDQ $step, DI; ADDQ $4, SI; ADDQ $4, R10; DECQ CX

TEXT ·kern1(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
kernloop1:
	LOAD32
	FMA((SI), Y0, Y1)
	NEXT(64)
	JNZ kernloop1
	STORE(Y0, Y1, (DX), 32(DX))
	VZEROUPPER
	RET

TEXT ·kern2(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
kernloop2:
	LOAD32
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	NEXT(64)
	JNZ kernloop2
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	VZEROUPPER
	RET

TEXT ·kern3(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
	INIT((AX)(BX*2), 32(AX)(BX*2), Y4, Y5)
kernloop3:
	LOAD32
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	FMA((SI)(R8*2), Y4, Y5)
	NEXT(64)
	JNZ kernloop3
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	STORE(Y4, Y5, (DX)(R9*2), 32(DX)(R9*2))
	VZEROUPPER
	RET

TEXT ·kern4(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
	INIT((AX)(BX*2), 32(AX)(BX*2), Y4, Y5)
	INIT((R12), 32(R12), Y6, Y7)
kernloop4:
	LOAD32
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	FMA((SI)(R8*2), Y4, Y5)
	FMA((R10), Y6, Y7)
	NEXT(64)
	JNZ kernloop4
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	STORE(Y4, Y5, (DX)(R9*2), 32(DX)(R9*2))
	STORE(Y6, Y7, (R11), 32(R11))
	VZEROUPPER
	RET

TEXT ·kern5(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
	INIT((AX)(BX*2), 32(AX)(BX*2), Y4, Y5)
	INIT((R12), 32(R12), Y6, Y7)
	INIT((AX)(BX*4), 32(AX)(BX*4), Y8, Y9)
kernloop5:
	LOAD32
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	FMA((SI)(R8*2), Y4, Y5)
	FMA((R10), Y6, Y7)
	FMA((SI)(R8*4), Y8, Y9)
	NEXT(64)
	JNZ kernloop5
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	STORE(Y4, Y5, (DX)(R9*2), 32(DX)(R9*2))
	STORE(Y6, Y7, (R11), 32(R11))
	STORE(Y8, Y9, (DX)(R9*4), 32(DX)(R9*4))
	VZEROUPPER
	RET

TEXT ·kern6(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
	INIT((AX)(BX*2), 32(AX)(BX*2), Y4, Y5)
	INIT((R12), 32(R12), Y6, Y7)
	INIT((AX)(BX*4), 32(AX)(BX*4), Y8, Y9)
	INIT((R12)(BX*2), 32(R12)(BX*2), Y10, Y11)
kernloop6:
	LOAD32
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	FMA((SI)(R8*2), Y4, Y5)
	FMA((R10), Y6, Y7)
	FMA((SI)(R8*4), Y8, Y9)
	FMA((R10)(R8*2), Y10, Y11)
	NEXT(64)
	JNZ kernloop6
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	STORE(Y4, Y5, (DX)(R9*2), 32(DX)(R9*2))
	STORE(Y6, Y7, (R11), 32(R11))
	STORE(Y8, Y9, (DX)(R9*4), 32(DX)(R9*4))
	STORE(Y10, Y11, (R11)(R9*2), 32(R11)(R9*2))
	VZEROUPPER
	RET

TEXT ·half1(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
halfloop1:
	LOAD16
	FMA((SI), Y0, Y1)
	NEXT(32)
	JNZ halfloop1
	STORE(Y0, Y1, (DX), 32(DX))
	VZEROUPPER
	RET

TEXT ·half2(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
halfloop2:
	LOAD16
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	NEXT(32)
	JNZ halfloop2
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	VZEROUPPER
	RET

TEXT ·half3(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
	INIT((AX)(BX*2), 32(AX)(BX*2), Y4, Y5)
halfloop3:
	LOAD16
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	FMA((SI)(R8*2), Y4, Y5)
	NEXT(32)
	JNZ halfloop3
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	STORE(Y4, Y5, (DX)(R9*2), 32(DX)(R9*2))
	VZEROUPPER
	RET

TEXT ·half4(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
	INIT((AX)(BX*2), 32(AX)(BX*2), Y4, Y5)
	INIT((R12), 32(R12), Y6, Y7)
halfloop4:
	LOAD16
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	FMA((SI)(R8*2), Y4, Y5)
	FMA((R10), Y6, Y7)
	NEXT(32)
	JNZ halfloop4
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	STORE(Y4, Y5, (DX)(R9*2), 32(DX)(R9*2))
	STORE(Y6, Y7, (R11), 32(R11))
	VZEROUPPER
	RET

TEXT ·half5(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
	INIT((AX)(BX*2), 32(AX)(BX*2), Y4, Y5)
	INIT((R12), 32(R12), Y6, Y7)
	INIT((AX)(BX*4), 32(AX)(BX*4), Y8, Y9)
halfloop5:
	LOAD16
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	FMA((SI)(R8*2), Y4, Y5)
	FMA((R10), Y6, Y7)
	FMA((SI)(R8*4), Y8, Y9)
	NEXT(32)
	JNZ halfloop5
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	STORE(Y4, Y5, (DX)(R9*2), 32(DX)(R9*2))
	STORE(Y6, Y7, (R11), 32(R11))
	STORE(Y8, Y9, (DX)(R9*4), 32(DX)(R9*4))
	VZEROUPPER
	RET

TEXT ·half6(SB), NOSPLIT, $0-64
	ARGS
	INIT((AX), 32(AX), Y0, Y1)
	INIT((AX)(BX*1), 32(AX)(BX*1), Y2, Y3)
	INIT((AX)(BX*2), 32(AX)(BX*2), Y4, Y5)
	INIT((R12), 32(R12), Y6, Y7)
	INIT((AX)(BX*4), 32(AX)(BX*4), Y8, Y9)
	INIT((R12)(BX*2), 32(R12)(BX*2), Y10, Y11)
halfloop6:
	LOAD16
	FMA((SI), Y0, Y1)
	FMA((SI)(R8*1), Y2, Y3)
	FMA((SI)(R8*2), Y4, Y5)
	FMA((R10), Y6, Y7)
	FMA((SI)(R8*4), Y8, Y9)
	FMA((R10)(R8*2), Y10, Y11)
	NEXT(32)
	JNZ halfloop6
	STORE(Y0, Y1, (DX), 32(DX))
	STORE(Y2, Y3, (DX)(R9*1), 32(DX)(R9*1))
	STORE(Y4, Y5, (DX)(R9*2), 32(DX)(R9*2))
	STORE(Y6, Y7, (R11), 32(R11))
	STORE(Y8, Y9, (DX)(R9*4), 32(DX)(R9*4))
	STORE(Y10, Y11, (R11)(R9*2), 32(R11)(R9*2))
	VZEROUPPER
	RET

// AVX-512 kernels: zkernN and zhalfN compute the same N rows x 16 columns
// with one ZMM accumulator a row, each multiply-add broadcasting a[k]
// from memory (EVEX embedded broadcast), so a step of k is one weight load
// (widened from fp16 by zhalfN) and N multiply-adds instead of 2N.
#define ZINIT(src, acc) VMOVUPS src, acc
#define ZFMA(arow, acc) VFMADD231PS.BCST arow, Z12, acc
#define ZSTORE(acc, dst) VMOVUPS acc, dst
#define ZLOAD32 VMOVUPS (DI), Z12
#define ZLOAD16 VCVTPH2PS (DI), Z12

#define ZROWS1(LOAD, step, loop) \
	ARGS; \
	ZINIT((AX), Z0); \
loop: \
	LOAD; \
	ZFMA((SI), Z0); \
	NEXT(step); \
	JNZ loop; \
	ZSTORE(Z0, (DX)); \
	VZEROUPPER; \
	RET

#define ZROWS2(LOAD, step, loop) \
	ARGS; \
	ZINIT((AX), Z0); ZINIT((AX)(BX*1), Z1); \
loop: \
	LOAD; \
	ZFMA((SI), Z0); ZFMA((SI)(R8*1), Z1); \
	NEXT(step); \
	JNZ loop; \
	ZSTORE(Z0, (DX)); ZSTORE(Z1, (DX)(R9*1)); \
	VZEROUPPER; \
	RET

#define ZROWS3(LOAD, step, loop) \
	ARGS; \
	ZINIT((AX), Z0); ZINIT((AX)(BX*1), Z1); ZINIT((AX)(BX*2), Z2); \
loop: \
	LOAD; \
	ZFMA((SI), Z0); ZFMA((SI)(R8*1), Z1); ZFMA((SI)(R8*2), Z2); \
	NEXT(step); \
	JNZ loop; \
	ZSTORE(Z0, (DX)); ZSTORE(Z1, (DX)(R9*1)); ZSTORE(Z2, (DX)(R9*2)); \
	VZEROUPPER; \
	RET

#define ZROWS4(LOAD, step, loop) \
	ARGS; \
	ZINIT((AX), Z0); ZINIT((AX)(BX*1), Z1); ZINIT((AX)(BX*2), Z2); ZINIT((R12), Z3); \
loop: \
	LOAD; \
	ZFMA((SI), Z0); ZFMA((SI)(R8*1), Z1); ZFMA((SI)(R8*2), Z2); ZFMA((R10), Z3); \
	NEXT(step); \
	JNZ loop; \
	ZSTORE(Z0, (DX)); ZSTORE(Z1, (DX)(R9*1)); ZSTORE(Z2, (DX)(R9*2)); ZSTORE(Z3, (R11)); \
	VZEROUPPER; \
	RET

#define ZROWS5(LOAD, step, loop) \
	ARGS; \
	ZINIT((AX), Z0); ZINIT((AX)(BX*1), Z1); ZINIT((AX)(BX*2), Z2); ZINIT((R12), Z3); ZINIT((AX)(BX*4), Z4); \
loop: \
	LOAD; \
	ZFMA((SI), Z0); ZFMA((SI)(R8*1), Z1); ZFMA((SI)(R8*2), Z2); ZFMA((R10), Z3); ZFMA((SI)(R8*4), Z4); \
	NEXT(step); \
	JNZ loop; \
	ZSTORE(Z0, (DX)); ZSTORE(Z1, (DX)(R9*1)); ZSTORE(Z2, (DX)(R9*2)); ZSTORE(Z3, (R11)); ZSTORE(Z4, (DX)(R9*4)); \
	VZEROUPPER; \
	RET

#define ZROWS6(LOAD, step, loop) \
	ARGS; \
	ZINIT((AX), Z0); ZINIT((AX)(BX*1), Z1); ZINIT((AX)(BX*2), Z2); ZINIT((R12), Z3); ZINIT((AX)(BX*4), Z4); ZINIT((R12)(BX*2), Z5); \
loop: \
	LOAD; \
	ZFMA((SI), Z0); ZFMA((SI)(R8*1), Z1); ZFMA((SI)(R8*2), Z2); ZFMA((R10), Z3); ZFMA((SI)(R8*4), Z4); ZFMA((R10)(R8*2), Z5); \
	NEXT(step); \
	JNZ loop; \
	ZSTORE(Z0, (DX)); ZSTORE(Z1, (DX)(R9*1)); ZSTORE(Z2, (DX)(R9*2)); ZSTORE(Z3, (R11)); ZSTORE(Z4, (DX)(R9*4)); ZSTORE(Z5, (R11)(R9*2)); \
	VZEROUPPER; \
	RET

TEXT ·zkern1(SB), NOSPLIT, $0-64
	ZROWS1(ZLOAD32, 64, zkloop1)

TEXT ·zkern2(SB), NOSPLIT, $0-64
	ZROWS2(ZLOAD32, 64, zkloop2)

TEXT ·zkern3(SB), NOSPLIT, $0-64
	ZROWS3(ZLOAD32, 64, zkloop3)

TEXT ·zkern4(SB), NOSPLIT, $0-64
	ZROWS4(ZLOAD32, 64, zkloop4)

TEXT ·zkern5(SB), NOSPLIT, $0-64
	ZROWS5(ZLOAD32, 64, zkloop5)

TEXT ·zkern6(SB), NOSPLIT, $0-64
	ZROWS6(ZLOAD32, 64, zkloop6)

TEXT ·zhalf1(SB), NOSPLIT, $0-64
	ZROWS1(ZLOAD16, 32, zhloop1)

TEXT ·zhalf2(SB), NOSPLIT, $0-64
	ZROWS2(ZLOAD16, 32, zhloop2)

TEXT ·zhalf3(SB), NOSPLIT, $0-64
	ZROWS3(ZLOAD16, 32, zhloop3)

TEXT ·zhalf4(SB), NOSPLIT, $0-64
	ZROWS4(ZLOAD16, 32, zhloop4)

TEXT ·zhalf5(SB), NOSPLIT, $0-64
	ZROWS5(ZLOAD16, 32, zhloop5)

TEXT ·zhalf6(SB), NOSPLIT, $0-64
	ZROWS6(ZLOAD16, 32, zhloop6)

// zpair16 and zpair32 compute 6 rows x 32 columns, two panels side by
// side (the second panel follows the first in memory, k rows of 16
// weights later), with 12 ZMM accumulators: enough independent
// multiply-adds in flight to keep both of a core's FMA units busy, where
// six wait on each other's latency. A row's a[k] is broadcast once into a
// register for both panels (two memory broadcasts a row were slower).
#define ZFMA2(arow, acc0, acc1) VBROADCASTSS arow, Z14; VFMADD231PS Z12, Z14, acc0; VFMADD231PS Z13, Z14, acc1

#define ZPAIR6(LOAD, step, shift, loop) \
	ARGS; \
	MOVQ CX, R13; SHLQ $shift, R13; \
	ZINIT((AX), Z0); ZINIT(64(AX), Z6); \
	ZINIT((AX)(BX*1), Z1); ZINIT(64(AX)(BX*1), Z7); \
	ZINIT((AX)(BX*2), Z2); ZINIT(64(AX)(BX*2), Z8); \
	ZINIT((R12), Z3); ZINIT(64(R12), Z9); \
	ZINIT((AX)(BX*4), Z4); ZINIT(64(AX)(BX*4), Z10); \
	ZINIT((R12)(BX*2), Z5); ZINIT(64(R12)(BX*2), Z11); \
loop: \
	LOAD; \
	ZFMA2((SI), Z0, Z6); ZFMA2((SI)(R8*1), Z1, Z7); ZFMA2((SI)(R8*2), Z2, Z8); \
	ZFMA2((R10), Z3, Z9); ZFMA2((SI)(R8*4), Z4, Z10); ZFMA2((R10)(R8*2), Z5, Z11); \
	NEXT(step); \
	JNZ loop; \
	ZSTORE(Z0, (DX)); ZSTORE(Z6, 64(DX)); \
	ZSTORE(Z1, (DX)(R9*1)); ZSTORE(Z7, 64(DX)(R9*1)); \
	ZSTORE(Z2, (DX)(R9*2)); ZSTORE(Z8, 64(DX)(R9*2)); \
	ZSTORE(Z3, (R11)); ZSTORE(Z9, 64(R11)); \
	ZSTORE(Z4, (DX)(R9*4)); ZSTORE(Z10, 64(DX)(R9*4)); \
	ZSTORE(Z5, (R11)(R9*2)); ZSTORE(Z11, 64(R11)(R9*2)); \
	VZEROUPPER; \
	RET

#define ZPLOAD16 VCVTPH2PS (DI), Z12; VCVTPH2PS (DI)(R13*1), Z13
#define ZPLOAD32 VMOVUPS (DI), Z12; VMOVUPS (DI)(R13*1), Z13

TEXT ·zpair16(SB), NOSPLIT, $0-64
	ZPAIR6(ZPLOAD16, 32, 5, zploop16)

TEXT ·zpair32(SB), NOSPLIT, $0-64
	ZPAIR6(ZPLOAD32, 64, 6, zploop32)

// The AMX kernels multiply bf16 tiles (AMX-BF16): TDPBF16PS adds to a
// tile of 16 rows x 16 fp32 sums the products of a tile of 16 rows x 32
// bf16 inputs and one of 16 pairs of weight rows x 16 columns (a panel's
// bf16 pairs, 1 KB), 8,192 multiply-adds an instruction. The Go assembler
// does not know them: they are written as their bytes (VEX-encoded,
// checked against GNU as), each with the registers its comment names. A
// call loads its tile configuration (cfg, made in Go), loads the sums from
// init, adds k/32 steps of products and stores the sums in c, and releases
// the tiles: a goroutine holds tile state only within one call, during
// which it is not moved to another thread (the runtime does not preempt
// assembly).
#define LDTILECFG_AX BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0x00
#define TILERELEASE BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0xc0

// amx22 computes 32 rows x 32 columns: rows 0-15 and 16-31 (tmm0, tmm1)
// times two adjacent panels (tmm2, tmm3) into tmm4-tmm7.
TEXT ·amx22(SB), NOSPLIT, $0-72
	MOVQ cfg+64(FP), AX
	LDTILECFG_AX
	MOVQ init+48(FP), AX; MOVQ istride+56(FP), BX; SHLQ $2, BX
	MOVQ BX, R12; SHLQ $4, R12; ADDQ AX, R12
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x24; BYTE $0x18 // tileloadd (AX)(BX*1), tmm4
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x6c; BYTE $0x18; BYTE $0x40 // tileloadd 64(AX)(BX*1), tmm5
	BYTE $0xc4; BYTE $0xc2; BYTE $0x7b; BYTE $0x4b; BYTE $0x34; BYTE $0x1c // tileloadd (R12)(BX*1), tmm6
	BYTE $0xc4; BYTE $0xc2; BYTE $0x7b; BYTE $0x4b; BYTE $0x7c; BYTE $0x1c; BYTE $0x40 // tileloadd 64(R12)(BX*1), tmm7
	MOVQ a+0(FP), SI; MOVQ lda+8(FP), R8; SHLQ $1, R8
	MOVQ R8, R10; SHLQ $4, R10; ADDQ SI, R10
	MOVQ w+16(FP), DI; MOVQ k+24(FP), CX
	MOVQ CX, R13; SHLQ $5, R13; LEAQ (DI)(R13*1), R11
	SHRQ $5, CX
	MOVQ $64, BX
amx22loop:
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x04; BYTE $0x06 // tileloadd (SI)(R8*1), tmm0
	BYTE $0xc4; BYTE $0x82; BYTE $0x7b; BYTE $0x4b; BYTE $0x0c; BYTE $0x02 // tileloadd (R10)(R8*1), tmm1
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x14; BYTE $0x1f // tileloadd (DI)(BX*1), tmm2
	BYTE $0xc4; BYTE $0xc2; BYTE $0x7b; BYTE $0x4b; BYTE $0x1c; BYTE $0x1b // tileloadd (R11)(BX*1), tmm3
	BYTE $0xc4; BYTE $0xe2; BYTE $0x6a; BYTE $0x5c; BYTE $0xe0 // tdpbf16ps tmm4 += tmm0 * tmm2
	BYTE $0xc4; BYTE $0xe2; BYTE $0x62; BYTE $0x5c; BYTE $0xe8 // tdpbf16ps tmm5 += tmm0 * tmm3
	BYTE $0xc4; BYTE $0xe2; BYTE $0x6a; BYTE $0x5c; BYTE $0xf1 // tdpbf16ps tmm6 += tmm1 * tmm2
	BYTE $0xc4; BYTE $0xe2; BYTE $0x62; BYTE $0x5c; BYTE $0xf9 // tdpbf16ps tmm7 += tmm1 * tmm3
	ADDQ $64, SI; ADDQ $64, R10; ADDQ $1024, DI; ADDQ $1024, R11
	DECQ CX
	JNZ amx22loop
	MOVQ c+32(FP), DX; MOVQ ldc+40(FP), R9; SHLQ $2, R9
	MOVQ R9, R12; SHLQ $4, R12; ADDQ DX, R12
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7a; BYTE $0x4b; BYTE $0x24; BYTE $0x0a // tilestored tmm4, (DX)(R9*1)
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7a; BYTE $0x4b; BYTE $0x6c; BYTE $0x0a; BYTE $0x40 // tilestored tmm5, 64(DX)(R9*1)
	BYTE $0xc4; BYTE $0x82; BYTE $0x7a; BYTE $0x4b; BYTE $0x34; BYTE $0x0c // tilestored tmm6, (R12)(R9*1)
	BYTE $0xc4; BYTE $0x82; BYTE $0x7a; BYTE $0x4b; BYTE $0x7c; BYTE $0x0c; BYTE $0x40 // tilestored tmm7, 64(R12)(R9*1)
	TILERELEASE
	RET

// amx11 computes up to 16 rows (cfg's rows of tmm0 and tmm4) x 16
// columns: tmm4 += tmm0 * tmm2.
TEXT ·amx11(SB), NOSPLIT, $0-72
	MOVQ cfg+64(FP), AX
	LDTILECFG_AX
	MOVQ init+48(FP), AX; MOVQ istride+56(FP), BX; SHLQ $2, BX
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x24; BYTE $0x18 // tileloadd (AX)(BX*1), tmm4
	MOVQ a+0(FP), SI; MOVQ lda+8(FP), R8; SHLQ $1, R8
	MOVQ w+16(FP), DI; MOVQ k+24(FP), CX
	SHRQ $5, CX
	MOVQ $64, BX
amx11loop:
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7b; BYTE $0x4b; BYTE $0x04; BYTE $0x06 // tileloadd (SI)(R8*1), tmm0
	BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x4b; BYTE $0x14; BYTE $0x1f // tileloadd (DI)(BX*1), tmm2
	BYTE $0xc4; BYTE $0xe2; BYTE $0x6a; BYTE $0x5c; BYTE $0xe0 // tdpbf16ps tmm4 += tmm0 * tmm2
	ADDQ $64, SI; ADDQ $1024, DI
	DECQ CX
	JNZ amx11loop
	MOVQ c+32(FP), DX; MOVQ ldc+40(FP), R9; SHLQ $2, R9
	BYTE $0xc4; BYTE $0xa2; BYTE $0x7a; BYTE $0x4b; BYTE $0x24; BYTE $0x0a // tilestored tmm4, (DX)(R9*1)
	TILERELEASE
	RET

// BFLOOP rounds 32 values an iteration to bf16, to nearest even, from
// what LOAD puts in Z0 and Z1 (src advancing by step):
// VCVTNE2PS2BF16 Z0, Z1, Z2 (EVEX.512.F2.0F38.W0 72 /r) puts Z0's 16
// values in Z2's low half and Z1's in its high half. CX counts values.
#define BFLOOP(LOAD, step, loop, done) \
	SHRQ $5, CX; \
	JZ done; \
loop: \
	LOAD; \
	BYTE $0x62; BYTE $0xF2; BYTE $0x77; BYTE $0x48; BYTE $0x72; BYTE $0xD0; \
	VMOVDQU32 Z2, (DI); \
	ADDQ $step, SI; \
	ADDQ $64, DI; \
	DECQ CX; \
	JNZ loop; \
done: \
	VZEROUPPER; \
	RET

#define BFLOAD32 VMOVUPS (SI), Z0; VMOVUPS 64(SI), Z1
#define BFLOAD16 VCVTPH2PS (SI), Z0; VCVTPH2PS 32(SI), Z1

// toBF16 rounds n fp32 values (n a multiple of 32) to bf16.
TEXT ·toBF16(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	BFLOOP(BFLOAD32, 128, bfloop, bfdone)

// expRow replaces each of n scores x (n a multiple of 16) with
// exp(max(x*scale - mx, -87.3)) and returns their sum, 16 lanes at a time
// (AVX-512): 2^n times e^r, n the nearest integer to the argument over
// ln 2 and r what is left, e^r = 1 + r + r²·p(r), p Cephes expf's degree-5
// polynomial (expPoly in model.go is the same in Go).
TEXT ·expRow(SB), NOSPLIT, $0-28
	MOVQ row+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSS scale+16(FP), Z10
	VBROADCASTSS mx+20(FP), Z11
	MOVL $0x3fb8aa3b, AX; VPBROADCASTD AX, Z12 // log2(e)
	MOVL $0x3f318000, AX; VPBROADCASTD AX, Z13 // ln 2, high part (0.693359375)
	MOVL $0xb95e8083, AX; VPBROADCASTD AX, Z14 // ln 2, low part (-2.12194440e-4)
	MOVL $0x39506967, AX; VPBROADCASTD AX, Z15 // 1.9875691500e-4
	MOVL $0x3ab743ce, AX; VPBROADCASTD AX, Z16 // 1.3981999507e-3
	MOVL $0x3c088908, AX; VPBROADCASTD AX, Z17 // 8.3334519073e-3
	MOVL $0x3d2aa9c1, AX; VPBROADCASTD AX, Z18 // 4.1665795894e-2
	MOVL $0x3e2aaaaa, AX; VPBROADCASTD AX, Z19 // 1.6666665459e-1
	MOVL $0x3f000000, AX; VPBROADCASTD AX, Z20 // 0.5
	MOVL $0x3f800000, AX; VPBROADCASTD AX, Z21 // 1
	MOVL $0xc2ae999a, AX; VPBROADCASTD AX, Z22 // -87.3
	VXORPS Z9, Z9, Z9
	SHRQ $4, CX
	JZ expdone
exploop:
	VMOVUPS (SI), Z0
	VMULPS Z10, Z0, Z0
	VSUBPS Z11, Z0, Z0
	VMAXPS Z22, Z0, Z0
	VMULPS Z12, Z0, Z1
	VRNDSCALEPS $0, Z1, Z1
	VFNMADD231PS Z13, Z1, Z0
	VFNMADD231PS Z14, Z1, Z0
	VMOVAPS Z15, Z2
	VFMADD213PS Z16, Z0, Z2
	VFMADD213PS Z17, Z0, Z2
	VFMADD213PS Z18, Z0, Z2
	VFMADD213PS Z19, Z0, Z2
	VFMADD213PS Z20, Z0, Z2
	VMULPS Z0, Z0, Z3
	VFMADD213PS Z0, Z3, Z2
	VADDPS Z21, Z2, Z2
	VSCALEFPS Z1, Z2, Z2
	VMOVUPS Z2, (SI)
	VADDPS Z2, Z9, Z9
	ADDQ $64, SI
	DECQ CX
	JNZ exploop
expdone:
	VEXTRACTF32X8 $1, Z9, Y1
	VADDPS Y1, Y9, Y9
	VEXTRACTF128 $1, Y9, X1
	VADDPS X1, X9, X9
	VMOVHLPS X9, X1, X1
	VADDPS X1, X9, X9
	VMOVSHDUP X9, X1
	VADDSS X1, X9, X9
	VMOVSS X9, ret+24(FP)
	VZEROUPPER
	RET

// f16sToBF16 converts n fp16 values (n a multiple of 32) to bf16:
// widened exactly (VCVTPH2PS), then rounded as toBF16 rounds.
TEXT ·f16sToBF16(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	BFLOOP(BFLOAD16, 64, f16loop, f16done)
