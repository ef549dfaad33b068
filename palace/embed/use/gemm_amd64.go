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

// halfPanels keeps the weights in fp16 and widens them inside the kernel
// (F16C), which halves the memory a query streams.
var halfPanels = useAVX2 && hasF16C()

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
	if halfPanels {
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

// checkTile panics (through the bounds checks) unless every element a
// kernel touches is inside the slices.
func checkTile(a []float32, lda, wlen, k int, c []float32, ldc int, init []float32, istride, rows int) {
	_ = a[(rows-1)*lda+k-1]
	if wlen < k*panelWidth {
		panic("use: short weight panel")
	}
	_ = c[(rows-1)*ldc+panelWidth-1]
	_ = init[(rows-1)*istride+panelWidth-1]
}

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
