package use

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/loci-mem/loci/palace/embed/wfile"
)

// panelWidth is the number of output columns a kernel computes at once:
// two 8-lane AVX registers.
const panelWidth = 16

// dense is a fully connected layer y = b + x W with W of shape [in x out],
// stored packed for the kernels: the rows of W are cut into blocks of
// kBlock rows; within a block, each group of 16 consecutive columns (a
// panel) is stored contiguously, row after row. Block after block, panel
// after panel, a layer's weights are thus read in one sequential sweep.
// They hold fp32 (p32) or, when the CPU can widen fp16 in its kernels,
// fp16 (p16), which halves the memory each query streams, or, when it
// multiplies on AMX tiles (bf16Panels), bf16 pairs (pbf): a panel's lane
// j of pair i holds W[k0+2i][j] in its low half and W[k0+2i+1][j] in its
// high half, as many bytes as fp16; sixteen pairs of a panel (1 KB) are
// the weight tile of one tile multiplication.
type dense struct {
	in, out int
	p32     []float32
	p16     []uint16
	pbf     []uint32
	bias    []float32
}

// panelKind is the form a layer keeps its weights in for the kernels.
type panelKind int

const (
	panels32 panelKind = iota
	panels16
	panelsBF16
)

// currentPanels is the form the kernels this CPU runs take.
func currentPanels() panelKind {
	switch {
	case bf16Panels:
		return panelsBF16
	case halfPanels:
		return panels16
	}
	return panels32
}

// newDense packs the weights of w (F16 or F32, shape [in x out]) in the
// form kind (bf16 pairs only for an even number of rows; fp16 only from
// F16 weights; fp32 otherwise).
func newDense(w *wfile.Entry, b []float32, kind panelKind) (dense, error) {
	in, out := w.Dims[0], w.Dims[1]
	if out%panelWidth != 0 {
		return dense{}, fmt.Errorf("entry %s: %d columns is not a multiple of %d", w.Name, out, panelWidth)
	}
	d := dense{in: in, out: out, bias: b}
	np := out / panelWidth
	if kind == panelsBF16 && in%2 == 0 {
		// Two rows of W at a time in bf16 (from fp16 bits straight where
		// the weights are fp16: a process that embeds one prompt pays for
		// the whole load), then paired into the panels.
		var flat []float32
		if w.DType != wfile.F16 {
			var err error
			if flat, err = w.Float32s(); err != nil {
				return dense{}, err
			}
		}
		row := func(dst []uint16, k int) {
			if flat == nil {
				weightsToBF16(dst, w.Data[2*k*out:2*(k+1)*out])
				return
			}
			for i, f := range flat[k*out : (k+1)*out] {
				dst[i] = bf16(f)
			}
		}
		lo, hi := make([]uint16, out), make([]uint16, out)
		d.pbf = make([]uint32, in*out/2)
		for k := 0; k < in; k += 2 {
			row(lo, k)
			row(hi, k+1)
			for p := 0; p < np; p++ {
				dst := d.pbf[d.offset(p, k)/2:][:panelWidth]
				l, h := lo[p*panelWidth:][:panelWidth], hi[p*panelWidth:][:panelWidth]
				for j := range dst {
					dst[j] = uint32(l[j]) | uint32(h[j])<<16
				}
			}
		}
		return d, nil
	}
	if kind != panels32 && w.DType == wfile.F16 {
		d.p16 = make([]uint16, in*out)
		for p := 0; p < np; p++ {
			for k := 0; k < in; k++ {
				src := w.Data[2*(k*out+p*panelWidth):]
				dst := d.p16[d.offset(p, k):]
				for j := 0; j < panelWidth; j++ {
					dst[j] = binary.LittleEndian.Uint16(src[2*j:])
				}
			}
		}
		return d, nil
	}
	flat, err := w.Float32s()
	if err != nil {
		return dense{}, err
	}
	d.p32 = make([]float32, in*out)
	for p := 0; p < np; p++ {
		for k := 0; k < in; k++ {
			o := d.offset(p, k)
			copy(d.p32[o:o+panelWidth], flat[k*out+p*panelWidth:])
		}
	}
	return d, nil
}

// offset is the index of W[k][16p] in the packed weights.
func (d *dense) offset(p, k int) int {
	k0 := k - k%kBlock
	kn := min(kBlock, d.in-k0)
	return k0*d.out + p*kn*panelWidth + (k-k0)*panelWidth
}

// parallelMin is the work (multiply-adds) below which a layer runs on one
// goroutine: splitting costs a few microseconds.
const parallelMin = 1 << 18

// Cache blocking: a kernel call reads at most kBlock values of a panel
// (16 KB as fp32, so a panel slice stays in L1 across the row tiles) and a
// worker holds at most rowBlock rows of input (rowBlock*kBlock*4 = 96 KB,
// in L2).
const (
	kBlock   = 256
	rowBlock = 96
)

// apply computes dst[r] = b + src[r] W for rows r < rows. src has row
// stride d.in and dst row stride d.out. Large products are split across up
// to GOMAXPROCS goroutines: by row blocks when there are several, else by
// column panels.
func (d *dense) apply(dst, src []float32, rows int) {
	if rows == 0 {
		return
	}
	_ = src[rows*d.in-1]
	_ = dst[rows*d.out-1]
	if d.pbf != nil {
		d.applyBF(dst, src, rows)
		return
	}
	np := d.out / panelWidth
	nrb := (rows + rowBlock - 1) / rowBlock
	split(runtime.GOMAXPROCS(0), rows*d.in*d.out, nrb, np, func(r0, r1, p0, p1 int) {
		d.block(dst, src, r0, min(rows, r1), p0, p1)
	})
}

// split runs fn over a product's rows and column panels: on one goroutine
// below parallelMin multiply-adds (work), else on up to workers, by row
// blocks when there are several (nrb, handed out one at a time), or by
// column panels (np) when there is one. fn's r1 may pass the last row.
func split(workers, work, nrb, np int, fn func(r0, r1, p0, p1 int)) {
	if workers <= 1 || work < parallelMin {
		for rb := 0; rb < nrb; rb++ {
			fn(rb*rowBlock, (rb+1)*rowBlock, 0, np)
		}
		return
	}
	var wg sync.WaitGroup
	if nrb == 1 {
		workers = min(workers, np)
		for w := 1; w < workers; w++ {
			p0, p1 := np*w/workers, np*(w+1)/workers
			wg.Add(1)
			go func() {
				defer wg.Done()
				fn(0, rowBlock, p0, p1)
			}()
		}
		fn(0, rowBlock, 0, np/workers)
		wg.Wait()
		return
	}
	var next atomic.Int32
	run := func() {
		for {
			rb := int(next.Add(1)) - 1
			if rb >= nrb {
				return
			}
			fn(rb*rowBlock, (rb+1)*rowBlock, 0, np)
		}
	}
	for w := 1; w < min(workers, nrb); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run()
		}()
	}
	run()
	wg.Wait()
}

// block computes rows [r0, r1) of the output columns of panels [p0, p1).
func (d *dense) block(dst, src []float32, r0, r1, p0, p1 int) {
	in, out := d.in, d.out
	paired := pairs()
	for k0 := 0; k0 < in; k0 += kBlock {
		kn := min(kBlock, in-k0)
		for p := p0; p < p1; {
			// Two panels at once where the kernel takes them (their
			// weights are adjacent within the k block).
			np := 1
			if paired && p+1 < p1 {
				np = 2
			}
			lo := d.offset(p, k0)
			col := p * panelWidth
			for r := r0; r < r1; r += maxTileRows {
				n := min(maxTileRows, r1-r)
				c := dst[r*out+col:]
				init, istride := c, out
				if k0 == 0 {
					init, istride = d.bias[col:], 0
				}
				if np == 2 && n == maxTileRows {
					var w32 []float32
					var w16 []uint16
					if d.p16 != nil {
						w16 = d.p16[lo : lo+2*kn*panelWidth]
					} else {
						w32 = d.p32[lo : lo+2*kn*panelWidth]
					}
					tilePair(src[r*in+k0:], in, w32, w16, kn, c, out, init, istride)
					continue
				}
				for j := 0; j < np; j++ {
					plo, jc := lo+j*kn*panelWidth, j*panelWidth
					ji := init[jc:]
					if d.p16 != nil {
						tile16(src[r*in+k0:], in, d.p16[plo:plo+kn*panelWidth], kn, c[jc:], out, ji, istride, n)
					} else {
						tile32(src[r*in+k0:], in, d.p32[plo:plo+kn*panelWidth], kn, c[jc:], out, ji, istride, n)
					}
				}
			}
			p += np
		}
	}
}

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

// tileGeneric computes rows x 16 outputs: c[i*ldc+j] = init[i*istride+j]
// + sum_k a[i*lda+k] * w[k*16+j]. It is the portable kernel; init may
// alias c.
func tileGeneric(a []float32, lda int, w []float32, k int, c []float32, ldc int, init []float32, istride, rows int) {
	for i := 0; i < rows; i++ {
		var acc [panelWidth]float32
		copy(acc[:], init[i*istride:i*istride+panelWidth])
		ar := a[i*lda : i*lda+k]
		for kk, x := range ar {
			wr := w[kk*panelWidth : kk*panelWidth+panelWidth]
			acc[0] += x * wr[0]
			acc[1] += x * wr[1]
			acc[2] += x * wr[2]
			acc[3] += x * wr[3]
			acc[4] += x * wr[4]
			acc[5] += x * wr[5]
			acc[6] += x * wr[6]
			acc[7] += x * wr[7]
			acc[8] += x * wr[8]
			acc[9] += x * wr[9]
			acc[10] += x * wr[10]
			acc[11] += x * wr[11]
			acc[12] += x * wr[12]
			acc[13] += x * wr[13]
			acc[14] += x * wr[14]
			acc[15] += x * wr[15]
		}
		copy(c[i*ldc:i*ldc+panelWidth], acc[:])
	}
}

// tileGeneric16 is tileGeneric for fp16 panels (used only in tests and on
// a CPU that lost F16C between load and use, which cannot happen).
func tileGeneric16(a []float32, lda int, w []uint16, k int, c []float32, ldc int, init []float32, istride, rows int) {
	wf := make([]float32, k*panelWidth)
	for i, h := range w[:k*panelWidth] {
		wf[i] = wfile.F16ToF32(h)
	}
	tileGeneric(a, lda, wf, k, c, ldc, init, istride, rows)
}

// applyBF is apply for bf16 weights: the inputs are rounded to bf16 once,
// then the products are split as apply splits them.
func (d *dense) applyBF(dst, src []float32, rows int) {
	a := bfPool.Get().(*[]uint16)
	defer bfPool.Put(a)
	if cap(*a) < rows*d.in {
		*a = make([]uint16, rows*d.in)
	}
	in := (*a)[:rows*d.in]
	roundBF16(in, src[:rows*d.in])
	np := d.out / panelWidth
	nrb := (rows + rowBlock - 1) / rowBlock
	split(runtime.GOMAXPROCS(0), rows*d.in*d.out, nrb, np, func(r0, r1, p0, p1 int) {
		d.blockBF(dst, in, r0, min(rows, r1), p0, p1)
	})
}

var bfPool = sync.Pool{New: func() any { return new([]uint16) }}

// bfRows is the most rows one tile holds.
const bfRows = 16

// blockBF is block for bf16 weights and inputs: 32 rows x 2 panels a call
// where there are as many, else 16 rows (or the rest) x 1 panel.
func (d *dense) blockBF(dst []float32, src []uint16, r0, r1, p0, p1 int) {
	in, out := d.in, d.out
	quads := quadsBF()
	for k0 := 0; k0 < in; k0 += kBlock {
		kn := min(kBlock, in-k0)
		for p := p0; p < p1; {
			np := 1
			if p+1 < p1 {
				np = 2
			}
			lo := d.offset(p, k0) / 2
			col := p * panelWidth
			for r := r0; r < r1; {
				c := dst[r*out+col:]
				init, istride := c, out
				if k0 == 0 {
					init, istride = d.bias[col:], 0
				}
				a := src[r*in+k0:]
				if quads && np == 2 && r1-r >= 2*bfRows && kn%32 == 0 {
					tileQuadBF(a, in, d.pbf[lo:lo+kn*panelWidth], kn, c, out, init, istride)
					r += 2 * bfRows
					continue
				}
				n := min(bfRows, r1-r)
				for j := 0; j < np; j++ {
					plo := lo + j*kn*panelWidth/2
					tileBF(a, in, d.pbf[plo:plo+kn*panelWidth/2], kn, c[j*panelWidth:], out, init[j*panelWidth:], istride, n)
				}
				r += n
			}
			p += np
		}
	}
}

// tileGenericBF is tileGeneric for bf16 inputs and weight pairs, widened
// to fp32 (exactly) and multiplied there, as tileGeneric16 does for fp16:
// for k not a multiple of 32 (no layer of the model) and for tests.
func tileGenericBF(a []uint16, lda int, w []uint32, k int, c []float32, ldc int, init []float32, istride, rows int) {
	af := make([]float32, rows*k)
	for i := 0; i < rows; i++ {
		for kk, h := range a[i*lda : i*lda+k] {
			af[i*k+kk] = fromBF16(h)
		}
	}
	wf := make([]float32, k*panelWidth)
	for i, pw := range w[:k/2*panelWidth] {
		kk, j := 2*(i/panelWidth), i%panelWidth
		wf[kk*panelWidth+j] = fromBF16(uint16(pw))
		wf[(kk+1)*panelWidth+j] = fromBF16(uint16(pw >> 16))
	}
	tileGeneric(af, k, wf, k, c, ldc, init, istride, rows)
}

// bf16 rounds f to bfloat16 (the top half of its bits), to nearest even.
func bf16(f float32) uint16 {
	b := math.Float32bits(f)
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// f16ToBF16 is bf16(wfile.F16ToF32(h)) in integer steps for a normal fp16
// value (its exponent rebased from 15 to 127, its mantissa moved up, then
// rounded to bf16's), and by way of float32 for zeros, subnormals,
// infinities and NaNs.
func f16ToBF16(h uint16) uint16 {
	e := uint32(h>>10) & 0x1f
	if e == 0 || e == 0x1f {
		return bf16(wfile.F16ToF32(h))
	}
	b := uint32(h&0x8000)<<16 | (e+127-15)<<23 | uint32(h&0x3ff)<<13
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// weightsToBF16Generic is weightsToBF16 in Go.
func weightsToBF16Generic(dst []uint16, src []byte) {
	for i := range dst {
		dst[i] = f16ToBF16(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

// fromBF16 widens a bfloat16 to float32, exactly.
func fromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// roundBFGeneric rounds src to bf16 into dst, in Go.
func roundBFGeneric(dst []uint16, src []float32) {
	for i, f := range src {
		dst[i] = bf16(f)
	}
}
