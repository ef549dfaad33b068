//go:build amd64 && !purego

#include "textflag.h"

// func dotAVX2(a, b *float32, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

dot32:
	CMPQ CX, $32
	JL   dot8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  dot32

dot8:
	CMPQ CX, $8
	JL   dotreduce
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  dot8

dotreduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

dottail:
	CMPQ CX, $0
	JE   dotdone
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  dottail

dotdone:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func l2sqAVX2(a, b *float32, n int) float32
TEXT ·l2sqAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

l2s32:
	CMPQ CX, $32
	JL   l2s8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VSUBPS (DI), Y4, Y4
	VSUBPS 32(DI), Y5, Y5
	VSUBPS 64(DI), Y6, Y6
	VSUBPS 96(DI), Y7, Y7
	VFMADD231PS Y4, Y4, Y0
	VFMADD231PS Y5, Y5, Y1
	VFMADD231PS Y6, Y6, Y2
	VFMADD231PS Y7, Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  l2s32

l2s8:
	CMPQ CX, $8
	JL   l2sreduce
	VMOVUPS (SI), Y4
	VSUBPS (DI), Y4, Y4
	VFMADD231PS Y4, Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  l2s8

l2sreduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

l2stail:
	CMPQ CX, $0
	JE   l2sdone
	VMOVSS (SI), X1
	VSUBSS (DI), X1, X1
	VFMADD231SS X1, X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  l2stail

l2sdone:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotInt8AVX2(a, b *int8, n int) int32
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

i8loop32:
	CMPQ CX, $32
	JL   i8loop16
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMOVSXBW 16(SI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMADDWD Y3, Y2, Y2
	VPMADDWD Y5, Y4, Y4
	VPADDD Y2, Y0, Y0
	VPADDD Y4, Y1, Y1
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  i8loop32

i8loop16:
	CMPQ CX, $16
	JL   i8reduce
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMADDWD Y3, Y2, Y2
	VPADDD Y2, Y0, Y0
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $16, CX

i8reduce:
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPHADDD X0, X0, X0
	VPHADDD X0, X0, X0
	MOVL X0, AX

i8tail:
	CMPQ CX, $0
	JE   i8done
	MOVBQSX (SI), BX
	MOVBQSX (DI), DX
	IMULL DX, BX
	ADDL BX, AX
	INCQ SI
	INCQ DI
	DECQ CX
	JMP  i8tail

i8done:
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotsWideAVX2(q *int16, rows *int8, dim, n int, out *int32)
//
// out[i] = q · rows[i*dim:(i+1)*dim] for i < n, where q is the query's
// codes widened to int16 once for the whole scan: each 16 codes of a row
// then cost one widening instead of two, and the query is read from L1.
// Any dim (a tail of fewer than 16 is summed one code at a time).
TEXT ·dotsWideAVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ out+32(FP), R10

wrow:
	TESTQ R9, R9
	JZ    wdone
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	MOVQ  SI, R11
	MOVQ  R8, CX

w32:
	CMPQ CX, $32
	JL   w16
	PREFETCHT2 16384(DI) // 16 KB ahead (each line twice: cheaper than a test)
	VPMOVSXBW (DI), Y2
	VPMOVSXBW 16(DI), Y3
	VPMADDWD (R11), Y2, Y2
	VPMADDWD 32(R11), Y3, Y3
	VPADDD Y2, Y0, Y0
	VPADDD Y3, Y1, Y1
	ADDQ $32, DI
	ADDQ $64, R11
	SUBQ $32, CX
	JMP  w32

w16:
	CMPQ CX, $16
	JL   wreduce
	VPMOVSXBW (DI), Y2
	VPMADDWD (R11), Y2, Y2
	VPADDD Y2, Y0, Y0
	ADDQ $16, DI
	ADDQ $32, R11
	SUBQ $16, CX

wreduce:
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPHADDD X0, X0, X0
	VPHADDD X0, X0, X0
	MOVL X0, AX

wtail:
	TESTQ CX, CX
	JZ    wstore
	MOVBLSX (DI), BX
	MOVWLSX (R11), DX
	IMULL DX, BX
	ADDL BX, AX
	INCQ DI
	ADDQ $2, R11
	DECQ CX
	JMP  wtail

wstore:
	MOVL AX, (R10)
	ADDQ $4, R10
	DECQ R9
	JMP  wrow

wdone:
	VZEROUPPER
	RET

// func dotsVNNI(q *int8, rows *int8, dim, n int, out *int32, corr int32)
//
// out[i] = q · rows[i*dim:(i+1)*dim] for i < n, with AVX-512 VNNI: each 64
// codes of a row take one VPDPBUSD, which multiplies unsigned bytes by
// signed ones. The row's codes are made unsigned by adding 128 (an XOR
// of the sign bit), and corr (128 times the sum of the query's codes)
// takes the 128s out again, so the products are exact. q is padded with
// zeros to a multiple of 64 codes; a row's last codes are read under a
// mask, never past its end.
TEXT ·dotsVNNI(SB), NOSPLIT, $0-44
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ out+32(FP), R10
	MOVL corr+40(FP), R12
	MOVL $0x80808080, AX
	VPBROADCASTD AX, Z31

vrow:
	TESTQ R9, R9
	JZ    vdone
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ  SI, R11
	MOVQ  R8, CX

v128:
	CMPQ CX, $128
	JL   v64
	PREFETCHT2 16384(DI) // 16 KB ahead, as dotsNibbleVNNI does
	PREFETCHT2 16448(DI)
	VPXORD   (DI), Z31, Z2
	VPXORD   64(DI), Z31, Z3
	VPDPBUSD (R11), Z2, Z0
	VPDPBUSD 64(R11), Z3, Z1
	ADDQ $128, DI
	ADDQ $128, R11
	SUBQ $128, CX
	JMP  v128

v64:
	CMPQ CX, $64
	JL   vtail
	VPXORD   (DI), Z31, Z2
	VPDPBUSD (R11), Z2, Z0
	ADDQ $64, DI
	ADDQ $64, R11
	SUBQ $64, CX

vtail:
	TESTQ CX, CX
	JZ    vreduce
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVQ AX, K1
	VMOVDQU8.Z (DI), K1, Z2
	VPXORD     Z31, Z2, Z2
	VPDPBUSD   (R11), Z2, Z0
	ADDQ       CX, DI

vreduce:
	VPADDD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4E, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xB1, X0, X1
	VPADDD        X1, X0, X0
	VMOVD         X0, AX
	SUBL          R12, AX
	MOVL          AX, (R10)
	ADDQ          $4, R10
	DECQ          R9
	JMP           vrow

vdone:
	VZEROUPPER
	RET

// func dotsNibbleVNNI(q *int8, rows *int8, chunks, n int, thr int, idx *int32, out *int32) int
//
// For each row i < n, a row being chunks 64-byte chunks of 4-bit levels
// stored as level + 8 (nibble.go: byte b of chunk t holds direction 128t+b
// low and 128t+64+b high), p = q · (stored levels), q being chunks × 128
// int8 weights; when p ≥ thr, i goes to idx and p to out, in row order,
// and the count of such rows is returned. thr is within int32 (dotsNibble
// clamps it). The nibbles are unsigned, as VPDPBUSD wants its first
// operand; the caller takes their offset out again.
//
// Rows go sixteen at a time, each into an accumulator of its own, so that
// sixteen chains of VPDPBUSD are in flight rather than one; the sixteen
// accumulators are then summed across their lanes together (a transpose
// in three rounds of interleaving and adding: dwords, qwords, 128-bit
// blocks), which leaves row r's product in lane r of one register, to be
// compared with thr and stored as one. One row at a time, the sum across
// lanes of each row was a chain of nine dependent steps: the kernel took
// 4.7 ns a row on rows in cache, and now 1.9. From memory the scan is bound
// by how many lines one core has in flight; asking for the rows 16 KB
// ahead (PREFETCHT2, into L2, whose queue is deeper than L1's) took a
// million rows below the worst kept candidate from 10.5 to about 5.5 ns a
// row (BenchmarkProjectedScan/4-bit-above; at 4 KB ahead 6.1, into L1 at
// 16 KB 6.2). The last n mod 16 rows go one at a time.
// PREFETCH8 asks for the eight lines at DI+off, DI+off+64, ... into L2.
#define PREFETCH8(off) \
	PREFETCHT2 off(DI) \
	PREFETCHT2 off+64(DI) \
	PREFETCHT2 off+128(DI) \
	PREFETCHT2 off+192(DI) \
	PREFETCHT2 off+256(DI) \
	PREFETCHT2 off+320(DI) \
	PREFETCHT2 off+384(DI) \
	PREFETCHT2 off+448(DI)

// LANESUM sets a to the sum of a and b interleaved by lo and hi
// (VPUNPCKLDQ/HDQ: dwords; VPUNPCKLQDQ/HQDQ: qwords), which leaves their
// partial sums side by side: a round of the sixteen-row transpose.
#define LANESUM(lo, hi, b, a) \
	lo     b, a, Z16 \
	hi     b, a, Z17 \
	VPADDD Z17, Z16, a

// BLOCKSUM is a round over 128-bit blocks: a set to the sum of the blocks
// of a and b that the VSHUFI32X4 selectors s1 and s2 gather.
#define BLOCKSUM(s1, s2, b, a) \
	VSHUFI32X4 s1, b, a, Z16 \
	VSHUFI32X4 s2, b, a, Z17 \
	VPADDD     Z17, Z16, a

#define NIBROW(acc) \
	VMOVDQU64 (AX), Z18 \
	VPSRLW    $4, Z18, Z19 \
	VPANDD    Z31, Z18, Z18 \
	VPANDD    Z31, Z19, Z19 \
	VPDPBUSD  Z16, Z18, acc \
	VPDPBUSD  Z17, Z19, acc \
	ADDQ      R14, AX

TEXT ·dotsNibbleVNNI(SB), NOSPLIT, $0-64
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ chunks+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ thr+32(FP), R12
	MOVQ idx+40(FP), R13
	MOVQ out+48(FP), R10
	XORQ BX, BX
	XORQ DX, DX
	MOVL $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z31
	VPBROADCASTD R12, Z30
	VMOVDQU32 nibbleLanes<>(SB), Z29
	MOVQ R8, R14
	SHLQ $6, R14 // a row's bytes

nvgroup:
	LEAQ 16(BX), AX
	CMPQ AX, R9
	JGT  nvtail
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	// 16 KB ahead, into L2 (a group's rows at one chunk a row, as the
	// default 128 directions are).
	PREFETCH8(16384)
	PREFETCH8(16896)
	MOVQ SI, R11
	MOVQ DI, R12
	MOVQ R8, CX

nvgchunk:
	VMOVDQU64 (R11), Z16
	VMOVDQU64 64(R11), Z17
	MOVQ      R12, AX
	NIBROW(Z0)
	NIBROW(Z1)
	NIBROW(Z2)
	NIBROW(Z3)
	NIBROW(Z4)
	NIBROW(Z5)
	NIBROW(Z6)
	NIBROW(Z7)
	NIBROW(Z8)
	NIBROW(Z9)
	NIBROW(Z10)
	NIBROW(Z11)
	NIBROW(Z12)
	NIBROW(Z13)
	NIBROW(Z14)
	NIBROW(Z15)
	ADDQ $64, R12
	ADDQ $128, R11
	DECQ CX
	JNZ  nvgchunk

	// Lane sums: rows 2k and 2k+1 interleaved by dwords, then rows 4k..4k+3
	// by qwords (each 128-bit block then holds those four rows' sums over
	// that block), then the blocks gathered so that block j holds rows
	// 4j..4j+3 summed over all four.
	LANESUM(VPUNPCKLDQ, VPUNPCKHDQ, Z1, Z0)
	LANESUM(VPUNPCKLDQ, VPUNPCKHDQ, Z3, Z2)
	LANESUM(VPUNPCKLDQ, VPUNPCKHDQ, Z5, Z4)
	LANESUM(VPUNPCKLDQ, VPUNPCKHDQ, Z7, Z6)
	LANESUM(VPUNPCKLDQ, VPUNPCKHDQ, Z9, Z8)
	LANESUM(VPUNPCKLDQ, VPUNPCKHDQ, Z11, Z10)
	LANESUM(VPUNPCKLDQ, VPUNPCKHDQ, Z13, Z12)
	LANESUM(VPUNPCKLDQ, VPUNPCKHDQ, Z15, Z14)
	LANESUM(VPUNPCKLQDQ, VPUNPCKHQDQ, Z2, Z0)
	LANESUM(VPUNPCKLQDQ, VPUNPCKHQDQ, Z6, Z4)
	LANESUM(VPUNPCKLQDQ, VPUNPCKHQDQ, Z10, Z8)
	LANESUM(VPUNPCKLQDQ, VPUNPCKHQDQ, Z14, Z12)
	BLOCKSUM($0x44, $0xEE, Z4, Z0)
	BLOCKSUM($0x44, $0xEE, Z12, Z8)
	BLOCKSUM($0x88, $0xDD, Z8, Z0)

	VPCMPD $5, Z30, Z0, K1 // p >= thr
	KMOVW  K1, AX
	TESTL  AX, AX
	JZ     nvgnext
	VPBROADCASTD BX, Z18
	VPADDD       Z29, Z18, Z18
	VPCOMPRESSD  Z0, K1, (R10)(DX*4)
	VPCOMPRESSD  Z18, K1, (R13)(DX*4)
	POPCNTL      AX, AX
	ADDQ         AX, DX

nvgnext:
	ADDQ $16, BX
	MOVQ R14, AX
	SHLQ $4, AX
	ADDQ AX, DI
	JMP  nvgroup

nvtail:
	MOVQ thr+32(FP), R12 // the group loop used R12

nvrow:
	CMPQ  BX, R9
	JGE   nvdone
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ  SI, R11
	MOVQ  R8, CX

nvchunk:
	VMOVDQU64 (DI), Z2
	VPSRLW    $4, Z2, Z3
	VPANDD    Z31, Z2, Z2
	VPANDD    Z31, Z3, Z3
	VPDPBUSD  (R11), Z2, Z0
	VPDPBUSD  64(R11), Z3, Z1
	ADDQ      $64, DI
	ADDQ      $128, R11
	DECQ      CX
	JNZ       nvchunk

	VPADDD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4E, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xB1, X0, X1
	VPADDD        X1, X0, X0
	VMOVD         X0, AX
	MOVLQSX       AX, AX
	CMPQ          AX, R12
	JLT           nvnext
	MOVL          BX, (R13)(DX*4)
	MOVL          AX, (R10)(DX*4)
	INCQ          DX

nvnext:
	INCQ BX
	JMP  nvrow

nvdone:
	VZEROUPPER
	MOVQ DX, ret+56(FP)
	RET

// nibbleLanes is 0, 1, ..., 15: the row of each lane of a group's sums.
DATA nibbleLanes<>+0(SB)/4, $0
DATA nibbleLanes<>+4(SB)/4, $1
DATA nibbleLanes<>+8(SB)/4, $2
DATA nibbleLanes<>+12(SB)/4, $3
DATA nibbleLanes<>+16(SB)/4, $4
DATA nibbleLanes<>+20(SB)/4, $5
DATA nibbleLanes<>+24(SB)/4, $6
DATA nibbleLanes<>+28(SB)/4, $7
DATA nibbleLanes<>+32(SB)/4, $8
DATA nibbleLanes<>+36(SB)/4, $9
DATA nibbleLanes<>+40(SB)/4, $10
DATA nibbleLanes<>+44(SB)/4, $11
DATA nibbleLanes<>+48(SB)/4, $12
DATA nibbleLanes<>+52(SB)/4, $13
DATA nibbleLanes<>+56(SB)/4, $14
DATA nibbleLanes<>+60(SB)/4, $15
GLOBL nibbleLanes<>(SB), RODATA|NOPTR, $64

// func dotsNibbleAVX2(q *int8, rows *int8, chunks, n int, thr int, idx *int32, out *int32) int
//
// dotsNibbleVNNI with AVX2: VPMADDUBSW multiplies the unsigned levels by
// the signed weights and adds adjacent pairs to int16 (at most 2 × 15 ×
// 128 in magnitude, so four such sums still fit), and VPMADDWD by ones
// widens those pairs to int32. Like the AVX-512 kernel it goes eight rows
// at a time, each into an accumulator of its own, and sums the eight
// across their lanes together (VPHADDD twice, then the two 128-bit halves:
// row r's product lands in lane r), asking for the rows 16 KB ahead; a row
// that reaches thr is rare once the candidates are full, so the group's
// products are stored at out[i..i+8] (rows already scored, at or past the
// count written) and the rows that reach it moved down to the count one
// by one. The last n mod 8 rows go one at a time.
#define NIBROW8(acc) \
	VMOVDQU    (AX), Y8 \
	VMOVDQU    32(AX), Y9 \
	VPSRLW     $4, Y8, Y10 \
	VPSRLW     $4, Y9, Y11 \
	VPAND      Y13, Y8, Y8 \
	VPAND      Y13, Y9, Y9 \
	VPAND      Y13, Y10, Y10 \
	VPAND      Y13, Y11, Y11 \
	VPMADDUBSW (R11), Y8, Y8 \
	VPMADDUBSW 32(R11), Y9, Y9 \
	VPMADDUBSW 64(R11), Y10, Y10 \
	VPMADDUBSW 96(R11), Y11, Y11 \
	VPADDW     Y10, Y8, Y8 \
	VPADDW     Y11, Y9, Y9 \
	VPADDW     Y9, Y8, Y8 \
	VPMADDWD   Y12, Y8, Y8 \
	VPADDD     Y8, acc, acc \
	ADDQ       R14, AX

TEXT ·dotsNibbleAVX2(SB), NOSPLIT, $0-64
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ chunks+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ thr+32(FP), R12
	MOVQ idx+40(FP), R13
	MOVQ out+48(FP), R10
	XORQ BX, BX
	XORQ DX, DX
	MOVL $0x0f0f0f0f, AX
	MOVQ AX, X13
	VPBROADCASTD X13, Y13
	MOVL $0x00010001, AX
	MOVQ AX, X12
	VPBROADCASTD X12, Y12
	MOVQ R12, X15
	VPBROADCASTD X15, Y15
	MOVQ R8, R14
	SHLQ $6, R14 // a row's bytes

nagroup:
	LEAQ 8(BX), AX
	CMPQ AX, R9
	JGT  natail
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	// 16 KB ahead, into L2 (a group's rows at one chunk a row).
	PREFETCH8(16384)
	MOVQ SI, R11
	MOVQ DI, R12
	MOVQ R8, CX

nagchunk:
	MOVQ R12, AX
	NIBROW8(Y0)
	NIBROW8(Y1)
	NIBROW8(Y2)
	NIBROW8(Y3)
	NIBROW8(Y4)
	NIBROW8(Y5)
	NIBROW8(Y6)
	NIBROW8(Y7)
	ADDQ $64, R12
	ADDQ $128, R11
	DECQ CX
	JNZ  nagchunk

	// Rows 0-3 and 4-7 summed within each 128-bit half, then the halves.
	VPHADDD    Y1, Y0, Y0
	VPHADDD    Y3, Y2, Y2
	VPHADDD    Y2, Y0, Y0
	VPHADDD    Y5, Y4, Y4
	VPHADDD    Y7, Y6, Y6
	VPHADDD    Y6, Y4, Y4
	VPERM2I128 $0x20, Y4, Y0, Y8
	VPERM2I128 $0x31, Y4, Y0, Y9
	VPADDD     Y9, Y8, Y8

	VPCMPGTD Y8, Y15, Y9 // thr > p: the rows that fall short
	VMOVMSKPS Y9, AX
	XORL     $0xff, AX
	JZ       nagnext
	VMOVDQU  Y8, (R10)(BX*4)

nagrow:
	BSFL AX, CX
	BTRL CX, AX
	LEAQ (BX)(CX*1), R11
	MOVL (R10)(R11*4), CX
	MOVL CX, (R10)(DX*4)
	MOVL R11, (R13)(DX*4)
	INCQ DX
	TESTL AX, AX
	JNZ  nagrow

nagnext:
	ADDQ $8, BX
	MOVQ R14, AX
	SHLQ $3, AX
	ADDQ AX, DI
	JMP  nagroup

natail:
	MOVQ thr+32(FP), R12 // the group loop used R12

narow:
	CMPQ  BX, R9
	JGE   nadone
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	MOVQ  SI, R11
	MOVQ  R8, CX

nachunk:
	VMOVDQU    (DI), Y2
	VPSRLW     $4, Y2, Y3
	VPAND      Y13, Y2, Y2
	VPAND      Y13, Y3, Y3
	VPMADDUBSW (R11), Y2, Y2
	VPMADDUBSW 64(R11), Y3, Y3
	VPMADDWD   Y12, Y2, Y2
	VPMADDWD   Y12, Y3, Y3
	VPADDD     Y2, Y0, Y0
	VPADDD     Y3, Y1, Y1
	VMOVDQU    32(DI), Y4
	VPSRLW     $4, Y4, Y5
	VPAND      Y13, Y4, Y4
	VPAND      Y13, Y5, Y5
	VPMADDUBSW 32(R11), Y4, Y4
	VPMADDUBSW 96(R11), Y5, Y5
	VPMADDWD   Y12, Y4, Y4
	VPMADDWD   Y12, Y5, Y5
	VPADDD     Y4, Y0, Y0
	VPADDD     Y5, Y1, Y1
	ADDQ       $64, DI
	ADDQ       $128, R11
	DECQ       CX
	JNZ        nachunk

	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPHADDD      X0, X0, X0
	VPHADDD      X0, X0, X0
	MOVL         X0, AX
	MOVLQSX      AX, AX
	CMPQ         AX, R12
	JLT          nanext
	MOVL         BX, (R13)(DX*4)
	MOVL         AX, (R10)(DX*4)
	INCQ         DX

nanext:
	INCQ BX
	JMP  narow

nadone:
	VZEROUPPER
	MOVQ DX, ret+56(FP)
	RET
