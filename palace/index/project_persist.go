package index

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
)

// The projection section of a flat snapshot (little endian), after the
// graph section, whose rows it shares:
//
//	dims, cand, calK, flags  uint32 each (flags bit 0: calibrated off;
//	                         bit 1: 4-bit codes; bit 2: off by its
//	                         cost alone, flagCostOnly; bits 8–15: the
//	                         calibration's version)
//	calibrated rows          uint64 (0: never calibrated)
//	mean     dim × float32
//	basis    dims × dim float32
//	sd       dims × float32
//	codes    rows × nibbleRowBytes(dims) bytes, zero bytes to the next
//	         multiple of 8
//
// The shift (basis · mean) is computed again on reading. A section
// without flag bit 1 was written before the codes were 4-bit (after the
// basis: rows × float32 scales, then rows × dims int8 codes, padded): it
// is passed over, and the projection is built again.

// write writes the projection section. Caller holds the Flat's read lock.
func (p *projection) write(w *bufio.Writer, stand func(row int) int) {
	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, uint32(p.dims))
	b = le.AppendUint32(b, uint32(p.cand))
	b = le.AppendUint32(b, uint32(p.calK))
	flags := uint32(calibrationVersion<<8) | projNibbles
	if p.off {
		flags |= 1
	}
	if p.costOnly {
		flags |= flagCostOnly
	}
	b = le.AppendUint32(b, flags)
	b = le.AppendUint64(b, uint64(p.calRows))
	w.Write(b)
	var fb []byte
	w.Write(appendFloats(fb, p.mean))
	w.Write(appendFloats(fb, p.basis))
	w.Write(appendFloats(fb, p.sd))
	zero := make([]int8, p.codes.dim)
	for lo := 0; lo < p.codes.len(); {
		blk := p.codes.blocks[lo>>rowBlockShift]
		hi := min(p.codes.len(), lo+len(blk)/p.codes.dim)
		clean := true
		for row := lo; row < hi && clean; row++ {
			clean = stand(row) == row
		}
		if clean {
			w.Write(int8Bytes(p.codes.rows(lo, hi)))
		} else {
			for row := lo; row < hi; row++ { // erased rows: their stand-in's codes
				switch r := stand(row); {
				case r < 0:
					w.Write(int8Bytes(zero))
				default:
					w.Write(int8Bytes(p.codes.row(r)))
				}
			}
		}
		lo = hi
	}
	w.Write(make([]byte, pad8(p.codes.len()*p.codes.dim)))
}

// projNibbles is the flag of a section whose codes are 4-bit levels.
const projNibbles = 1 << 1

// readProjection reads a projection section over n rows of dim values and
// reports how many bytes it took. view, when not nil, gives the codes in
// place (count bytes at byte offset off of the section, a mapped
// snapshot), which r then skips: they are the section's bulk (64 MB at a
// million rows). A section of an older format gives a nil projection and
// its length.
func readProjection(r io.Reader, n, dim int, view func(off, count int) []int8) (*projection, int, error) {
	le := binary.LittleEndian
	var h [24]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, 0, ErrCorrupt
	}
	dims := int(le.Uint32(h[0:]))
	if dims <= 0 || 2*dims > dim {
		return nil, 0, ErrCorrupt
	}
	p := &projection{dims: dims, cand: int(le.Uint32(h[4:])), calK: int(le.Uint32(h[8:]))}
	flags := le.Uint32(h[12:])
	p.off, p.calRows = flags&1 != 0, int(min(le.Uint64(h[16:]), uint64(n)+1))
	p.costOnly = flags&flagCostOnly != 0 && p.off && p.calRows > 0
	if p.cand > maxProjectCand || (p.calRows > 0 && (p.cand <= 0 || p.calK <= 0)) {
		return nil, 0, ErrCorrupt
	}
	if flags>>8&0xff < calibrationVersion {
		p.cand, p.calRows = 0, 0 // an older calibration's choice: measure again
	}
	used := len(h)
	if flags&projNibbles == 0 {
		// Seeking a mapped snapshot passes over the old codes without
		// reading them into memory (the caller checks the length).
		size := 4*(dim+dims*dim+n) + n*dims + pad8(n*dims)
		if s, ok := r.(io.Seeker); ok {
			if _, err := s.Seek(int64(size), io.SeekCurrent); err != nil {
				return nil, 0, ErrCorrupt
			}
		} else if _, err := io.CopyN(io.Discard, r, int64(size)); err != nil {
			return nil, 0, ErrCorrupt
		}
		return nil, used + size, nil
	}
	p.mean, p.basis, p.sd = make([]float32, dim), make([]float32, dims*dim), make([]float32, dims)
	for _, v := range [][]float32{p.mean, p.basis, p.sd} {
		if err := readFloat32s(r, v); err != nil {
			return nil, 0, err
		}
		used += 4 * len(v)
	}
	for _, x := range p.basis {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, 0, ErrCorrupt
		}
	}
	for _, x := range p.sd {
		if !(x >= 0) || math.IsInf(float64(x), 0) { // NaN fails x >= 0
			return nil, 0, ErrCorrupt
		}
	}
	rb := nibbleRowBytes(dims)
	p.codes = newRowStore[int8](rb)
	if s, ok := r.(io.Seeker); ok && view != nil && n > 0 {
		p.codes.adopt(view(used, n*rb), n)
		if _, err := s.Seek(int64(n*rb), io.SeekCurrent); err != nil {
			return nil, 0, ErrCorrupt
		}
	} else {
		p.codes.extend(n)
		for _, blk := range p.codes.blocks {
			if _, err := io.ReadFull(r, int8Bytes(blk)); err != nil {
				return nil, 0, ErrCorrupt
			}
		}
	}
	if _, err := io.CopyN(io.Discard, r, int64(pad8(n*rb))); err != nil {
		return nil, 0, ErrCorrupt
	}
	used += n*rb + pad8(n*rb)
	p.shift = make([]float32, dims)
	for j := range dims {
		p.shift[j] = dot(p.basis[j*dim:(j+1)*dim], p.mean)
	}
	return p, used, nil
}
