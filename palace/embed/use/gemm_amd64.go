package use

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// maxTileRows is the most rows one kernel call computes (6 rows x 16
// columns = 12 of the 16 AVX registers as accumulators).
const maxTileRows = 6

// useAVX2 selects the assembly kernels. It is a variable so tests can
// compare them with the portable kernel.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useAVX512 selects the AVX-512 kernels, which do a tile's work in half
// the multiply-adds (x/sys/cpu reports AVX-512 only where the operating
// system saves its registers). Tests flip it.
var useAVX512 = useAVX2 && cpu.X86.HasAVX512F

// useNEON is false: NEON is arm64's (gemm_arm64.go).
var useNEON = false

// halfPanels keeps the weights in fp16 and widens them inside the kernel
// (F16C), which halves the memory a query streams.
var halfPanels = useAVX2 && hasF16C()

// bf16Panels keeps the weights as bf16 pairs and rounds a layer's inputs
// to bf16, for the AMX tiles (AMX-BF16, with AVX512_BF16 to round): one
// tile instruction does 8,192 multiply-adds, where an AVX-512 FMA does 16
// (AVX512_BF16's VDPBF16PS, which does 32, was measured slower than the
// FMA kernels on the same Xeon, and is not used). The products of two
// bf16 values are exact in fp32 and the sums are kept in fp32; what
// changes is the inputs' and weights' eight bits of mantissa (fp16
// weights keep eleven), which leaves every reference sentence at a cosine
// of 0.9999 or more (use_test.go). Linux lends a process the tiles on
// request (requestAMX); GODEBUG=cpu.amxbf16=off switches them off.
var bf16Panels = useAVX512 && halfPanels && cpu.X86.HasAVX512BF16 && cpu.X86.HasAMXTile && cpu.X86.HasAMXBF16 && requestAMX()

// hasF16C reports CPUID.1:ECX.F16C[bit 29] (golang.org/x/sys/cpu does not
// export it); the OS support for AVX state is covered by useAVX2.
func hasF16C() bool {
	_, _, c, _ := cpuid(1, 0)
	return c&(1<<29) != 0
}

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

var kernelName = func() string {
	name := "generic"
	switch {
	case useAVX512:
		name = "avx512"
	case useAVX2:
		name = "avx2-fma"
	}
	switch {
	case bf16Panels:
		name = "amx-bf16"
	case halfPanels:
		name += "-f16c"
	}
	return name
}()

type kernFunc func(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

// Assembly kernels (gemm_amd64.s): kernN and halfN compute N rows x 16
// columns, c[i*ldc+j] = init[i*istride+j] + sum_k a[i*lda+k] * w[k*16+j],
// with w fp32 (kernN) or fp16 (halfN). Strides are in elements; k >= 1;
// init may alias c.

//go:noescape
func kern1(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func kern2(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func kern3(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func kern4(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func kern5(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func kern6(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func half1(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func half2(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func half3(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func half4(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func half5(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func half6(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zkern1(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zkern2(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zkern3(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zkern4(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zkern5(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zkern6(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zhalf1(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zhalf2(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zhalf3(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zhalf4(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zhalf5(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zhalf6(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zpair16(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

//go:noescape
func zpair32(a *float32, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int)

var (
	kerns32 = [...]kernFunc{nil, kern1, kern2, kern3, kern4, kern5, kern6}
	kerns16 = [...]kernFunc{nil, half1, half2, half3, half4, half5, half6}
	// The AVX-512 kernels (useAVX512).
	zkerns32 = [...]kernFunc{nil, zkern1, zkern2, zkern3, zkern4, zkern5, zkern6}
	zkerns16 = [...]kernFunc{nil, zhalf1, zhalf2, zhalf3, zhalf4, zhalf5, zhalf6}
)

// tile32 computes rows (1..6) x 16 outputs from fp32 weights.
func tile32(a []float32, lda int, w []float32, k int, c []float32, ldc int, init []float32, istride, rows int) {
	if !useAVX2 || k == 0 {
		tileGeneric(a, lda, w, k, c, ldc, init, istride, rows)
		return
	}
	checkTile(a, lda, len(w), k, c, ldc, init, istride, rows)
	if useAVX512 {
		zkerns32[rows](unsafe.SliceData(a), lda, unsafe.Pointer(unsafe.SliceData(w)), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride)
		return
	}
	kerns32[rows](unsafe.SliceData(a), lda, unsafe.Pointer(unsafe.SliceData(w)), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride)
}

// tile16 computes rows (1..6) x 16 outputs from fp16 weights.
func tile16(a []float32, lda int, w []uint16, k int, c []float32, ldc int, init []float32, istride, rows int) {
	if !halfPanels || k == 0 {
		tileGeneric16(a, lda, w, k, c, ldc, init, istride, rows)
		return
	}
	checkTile(a, lda, len(w), k, c, ldc, init, istride, rows)
	if useAVX512 {
		zkerns16[rows](unsafe.SliceData(a), lda, unsafe.Pointer(unsafe.SliceData(w)), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride)
		return
	}
	kerns16[rows](unsafe.SliceData(a), lda, unsafe.Pointer(unsafe.SliceData(w)), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride)
}

// pairs reports whether tilePair runs: AVX-512 computes two panels of six
// rows in one call.
func pairs() bool { return useAVX512 }

// tilePair computes 6 rows x 32 outputs, two panels: w holds the first
// panel's k rows of 16 weights and then the second's (fp32 in w32 or fp16
// in w16, whichever the layer keeps), c and init rows 32 wide.
func tilePair(a []float32, lda int, w32 []float32, w16 []uint16, k int, c []float32, ldc int, init []float32, istride int) {
	const rows = maxTileRows
	_ = a[(rows-1)*lda+k-1]
	_ = c[(rows-1)*ldc+2*panelWidth-1]
	_ = init[(rows-1)*istride+2*panelWidth-1]
	if w16 != nil {
		if len(w16) < 2*k*panelWidth {
			panic("use: short weight panel")
		}
		zpair16(unsafe.SliceData(a), lda, unsafe.Pointer(unsafe.SliceData(w16)), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride)
		return
	}
	if len(w32) < 2*k*panelWidth {
		panic("use: short weight panel")
	}
	zpair32(unsafe.SliceData(a), lda, unsafe.Pointer(unsafe.SliceData(w32)), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride)
}

// The AMX kernels (gemm_amd64.s) take bf16 inputs (a, lda in elements)
// and panels of bf16 pairs, k a multiple of 32, and a tile configuration:
// amx22 computes 32 rows x 32 columns from two adjacent panels, amx11 up
// to 16 rows (as cfg says) x 16 columns.

//go:noescape
func amx22(a *uint16, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int, cfg *[64]byte)

//go:noescape
func amx11(a *uint16, lda int, w unsafe.Pointer, k int, c *float32, ldc int, init *float32, istride int, cfg *[64]byte)

//go:noescape
func toBF16(dst *uint16, src *float32, n int)

// amxStep is the k a tile multiplication takes: 16 pairs.
const amxStep = 32

// tileConfig is an AMX tile configuration (palette 1) whose tiles are all
// 64 bytes a row: tmm0 and tmm1 (inputs) and tmm4-tmm7 (sums) of rows
// rows, tmm2 and tmm3 (weights) of 16.
func tileConfig(rows int) *[64]byte {
	var c [64]byte
	c[0] = 1
	for t := range 8 {
		c[16+2*t] = 64
		c[48+t] = byte(rows)
		if t == 2 || t == 3 {
			c[48+t] = 16
		}
	}
	return &c
}

// tileConfigs[n] configures n rows (1..16).
var tileConfigs = func() (cs [17]*[64]byte) {
	for n := 1; n <= 16; n++ {
		cs[n] = tileConfig(n)
	}
	return cs
}()

// checkTileBF panics (through the bounds checks) unless every element a
// bf16 kernel touches is inside the slices.
func checkTileBF(a []uint16, lda, wlen, k int, c []float32, ldc int, init []float32, istride, rows, panels int) {
	_ = a[(rows-1)*lda+k-1]
	if k%amxStep != 0 || wlen < k/2*panelWidth*panels {
		panic("use: short bf16 weight panel, or k not a multiple of 32")
	}
	_ = c[(rows-1)*ldc+panels*panelWidth-1]
	_ = init[(rows-1)*istride+panels*panelWidth-1]
}

// tileBF computes rows (1..16) x 16 outputs from bf16 inputs and pairs,
// on the tiles when k is a multiple of 32.
func tileBF(a []uint16, lda int, w []uint32, k int, c []float32, ldc int, init []float32, istride, rows int) {
	if !bf16Panels || k == 0 || k%amxStep != 0 {
		tileGenericBF(a, lda, w, k, c, ldc, init, istride, rows)
		return
	}
	checkTileBF(a, lda, len(w), k, c, ldc, init, istride, rows, 1)
	amx11(unsafe.SliceData(a), lda, unsafe.Pointer(unsafe.SliceData(w)), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride, tileConfigs[rows])
}

// tileQuadBF computes 32 rows x 32 outputs from two adjacent panels
// (k a multiple of 32).
func tileQuadBF(a []uint16, lda int, w []uint32, k int, c []float32, ldc int, init []float32, istride int) {
	checkTileBF(a, lda, len(w), k, c, ldc, init, istride, 2*bfRows, 2)
	amx22(unsafe.SliceData(a), lda, unsafe.Pointer(unsafe.SliceData(w)), k, unsafe.SliceData(c), ldc, unsafe.SliceData(init), istride, tileConfigs[bfRows])
}

// roundBF16 rounds src to bf16 into dst (as long), 32 values an
// instruction where the CPU has the tiles.
func roundBF16(dst []uint16, src []float32) {
	n := 0
	if bf16Panels {
		n = len(src) &^ 31
		if n > 0 {
			_ = dst[n-1]
			toBF16(unsafe.SliceData(dst), unsafe.SliceData(src), n)
		}
	}
	roundBFGeneric(dst[n:], src[n:])
}

// quadsBF reports whether tileQuadBF runs (the tiles are there).
func quadsBF() bool { return bf16Panels }

//go:noescape
func expRow(row *float32, n int, scale, mx float32) float32

// expChunks does expScores's work for the longest prefix of row a multiple
// of 16 long, on AVX-512 (expRow), and returns its length and its sum.
func expChunks(row []float32, scale, mx float32) (int, float32) {
	n := len(row) &^ 15
	if !useAVX512 || n == 0 {
		return 0, 0
	}
	return n, expRow(unsafe.SliceData(row), n, scale, mx)
}

//go:noescape
func f16sToBF16(dst *uint16, src *byte, n int)

// weightsToBF16 converts the fp16 weights src (little-endian, two bytes
// each) to bf16 into dst (as long), 32 an iteration where the CPU has the
// tiles.
func weightsToBF16(dst []uint16, src []byte) {
	n := 0
	if bf16Panels {
		n = len(dst) &^ 31
		if n > 0 {
			_ = src[2*n-1]
			f16sToBF16(unsafe.SliceData(dst), unsafe.SliceData(src), n)
		}
	}
	weightsToBF16Generic(dst[n:], src[2*n:])
}
