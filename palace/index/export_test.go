package index

import (
	"encoding/binary"
	"hash/crc32"
	"os"
)

// SetAVX2 switches the assembly kernels on or off and returns the old value.
func SetAVX2(on bool) bool {
	old := useAVX2
	useAVX2 = on
	return old
}

// SetMapSnapshots turns mapping version 2 snapshots on or off (off: they
// are read into memory) and returns the old value.
func SetMapSnapshots(on bool) bool {
	old := mapSnapshots
	mapSnapshots = on
	return old
}

// Mapped reports whether f points into a mapped snapshot.
func Mapped(f *Flat) bool { return f.mapped != nil }

// UseProjection makes f answer Search through its projection with cand
// candidates, as a calibration choosing it would, and reports whether f
// has a projection.
func UseProjection(f *Flat, cand int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pj == nil || f.g == nil {
		return false
	}
	f.g.off = true
	f.pj.cand, f.pj.calK, f.pj.off, f.pj.calRows = cand, 10, false, len(f.rowOf)
	return true
}

// ColdCodes reports whether f reads candidates' codes from its snapshot
// file instead of the mapping.
func ColdCodes(f *Flat) bool { return f.mapped.isCold() }

// LowerBound is the mean of a width's per-query recalls and the lower
// confidence bound calibration judges the width by.
func LowerBound(recalls []float64) (mean, low float64) {
	for _, r := range recalls {
		mean += r
	}
	mean /= float64(len(recalls))
	return mean, mean - calibrationZ*standardError(recalls)
}

// LoadWidthSearch runs load inside the timing of every query of
// Calibrate's width search (not of the costs it then times side by side),
// until the returned function is called.
func LoadWidthSearch(load func()) (restore func()) {
	widthLoad = load
	return func() { widthLoad = nil }
}

// LoadScan runs load inside the timing of every exact scan Calibrate
// times, until the returned function is called.
func LoadScan(load func()) (restore func()) {
	scanLoad = load
	return func() { scanLoad = nil }
}

// StallPairedSearch runs stall inside the timing of the i-th search of
// method m (0 the scan, 1 the graph, 2 the projection) that Calibrate
// times side by side, until the returned function is called.
func StallPairedSearch(stall func(m, i int)) (restore func()) {
	pairedStall = stall
	return func() { pairedStall = nil }
}

// DowngradeProjection rewrites the projection section of the snapshot at
// path (written by this build, for f) in the format before its codes were
// 4-bit: the same header without the flag, the mean and basis, then a
// scale and dims int8 codes a row; the checksum is made again.
func DowngradeProjection(path string, f *Flat) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	p, n, dim := f.pj, len(f.keys), f.dim
	rb := nibbleRowBytes(p.dims)
	size := 24 + 4*(dim+p.dims*dim+p.dims) + n*rb + pad8(n*rb)
	start := len(b) - 4 - size
	le := binary.LittleEndian
	old := append([]byte(nil), b[:start+24+4*(dim+p.dims*dim)]...)
	flags := le.Uint32(old[start+12:])
	le.PutUint32(old[start+12:], flags&^projNibbles)
	old = appendFloats(old, make([]float32, n))
	codes := make([]byte, n*p.dims+pad8(n*p.dims))
	for i := range n * p.dims {
		codes[i] = byte(i * 7)
	}
	old = append(old, codes...)
	old = le.AppendUint32(old, crc32.Checksum(old, castagnoli))
	return os.WriteFile(path, old, 0o600)
}

// StoredRow returns copies of what f stores for key's row, live or
// removed: its int8 codes, and its projection's codes (nil without one).
func StoredRow(f *Flat, key uint64) (codes, proj []int8, ok bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for row, k := range f.keys {
		if k != key {
			continue
		}
		codes = append([]int8(nil), f.codes.row(row)...)
		if f.pj != nil && row < f.pj.codes.len() {
			proj = append([]int8(nil), f.pj.codes.row(row)...)
		}
		return codes, proj, true
	}
	return nil, nil, false
}
