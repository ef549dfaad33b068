//go:build unix

package index

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapping is a snapshot file mapped into memory; the Flat whose arrays
// point into it keeps it alive, and it is unmapped (and its file closed)
// when neither is reachable any more.
type mapping struct {
	b []byte
	// file, codes, rows and dim locate the int8 codes in the file: rows
	// rows of dim bytes from byte codes. Once cold (coolCodes) they are
	// released from the mapping and a row is read from the file instead.
	file             *os.File
	codes, rows, dim int
	cold             atomic.Bool
	// graph and graphEnd locate the graph's section, whose layer-0 lists
	// the graph reads in place until a new row moves them to the heap
	// (releaseMovedGraph).
	graph, graphEnd int
	graphMoved      bool
}

// readRow reads row's codes from the file into dst when the codes are
// cold and the row is in the file; false when the caller is to read the
// mapping (or the heap, for rows added after loading).
func (mp *mapping) readRow(dst []int8, row int) bool {
	if mp == nil || !mp.cold.Load() || row >= mp.rows {
		return false
	}
	_, err := mp.file.ReadAt(int8Bytes(dst[:mp.dim]), int64(mp.codes)+int64(row)*int64(mp.dim))
	return err == nil
}

// isCold reports whether rows are read from the file.
func (mp *mapping) isCold() bool { return mp != nil && mp.cold.Load() }

// coolCodes releases the mapped codes from the process's memory and has
// the projection read candidates' rows from the file from then on: a
// page fault on a mapped file brings in the page cache's whole large folio
// around it (hundreds of KB on Linux 6.18, even with MADV_RANDOM), so 520
// candidates re-scored through the mapping made 370 MB resident on the
// first search, and most of the codes within a few. Read with pread they
// stay in the page cache, which the kernel can reclaim, and out of the
// process. Only while a projection and a graph exist: rows are then never
// rewritten, so no page of the codes was ever written (a released written
// page would lose its write). Caller holds mu.
func (f *Flat) coolCodes() {
	mp := f.mapped
	if mp == nil || mp.file == nil || f.g == nil || f.pj == nil {
		return
	}
	mp.cold.Store(true)
	release(mp.b, mp.codes, mp.codes+mp.rows*mp.dim)
}

// warmCodes undoes coolCodes, when calibration has switched the projection
// off: the scan or the graph reads every code through the mapping again,
// and keeps them. Caller holds mu.
func (f *Flat) warmCodes() {
	if mp := f.mapped; mp != nil {
		mp.cold.Store(false)
	}
}

// recool releases the codes again after a scan that read them all (the
// exact scan), when they are cold. Caller holds mu (for reading is enough:
// the pages are clean, and a search reading them meanwhile faults them in
// again).
func (f *Flat) recool() {
	if mp := f.mapped; mp != nil && mp.cold.Load() {
		release(mp.b, mp.codes, mp.codes+mp.rows*mp.dim)
	}
}

// releaseMovedGraph releases the graph's section of the mapping once its
// layer-0 lists have moved to the heap: the first row linked after
// loading grows them, and growing copies them, reading every page of the
// section, which nothing reads through the mapping any more. Its pages
// were never written (a row linked while they were in place moved them
// first). Caller holds mu for writing.
func (f *Flat) releaseMovedGraph() {
	mp := f.mapped
	if mp == nil || mp.graphMoved || f.g == nil || len(f.g.links0) == 0 || mp.graphEnd <= mp.graph {
		return
	}
	at := uintptr(unsafe.Pointer(&f.g.links0[0]))
	lo := uintptr(unsafe.Pointer(&mp.b[0]))
	if at >= lo && at < lo+uintptr(len(mp.b)) {
		return // still in place
	}
	mp.graphMoved = true
	release(mp.b, mp.graph, mp.graphEnd)
}

// mapV2 maps a version 2 snapshot (hdr bytes of header before its layout
// word) and points f's arrays at it, after checking the whole file's
// checksum over the mapping. The mapping is private and writable: a row
// rewritten later is copied on write, never written to the file. It
// reports false, and changes nothing, when the file should be read
// instead (the platform refuses the mapping, or the layout is another
// configuration's). An empty f is required.
//
// The palace replaces snapshots by renaming a new file over the old one,
// so a mapped file never changes under the index; truncating it in place
// would crash the process (SIGBUS).
func (f *Flat) mapV2(file *os.File, size int64, hdr, n, dim int) (bool, error) {
	if !littleEndian || size > math.MaxInt32*4 {
		return false, nil
	}
	m, err := syscall.Mmap(int(file.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return false, nil
	}
	kept := false
	defer func() {
		if !kept {
			syscall.Munmap(m)
		}
	}()
	le := binary.LittleEndian
	if len(m) < hdr+8 {
		return true, ErrCorrupt
	}
	layout := le.Uint32(m[hdr:])
	sec, ok := v2Sections(hdr, n, dim, layout)
	if !ok || sec.end > len(m)-4 || (layout&layoutGraph == 0 && sec.end != len(m)-4) {
		return true, ErrCorrupt
	}
	if crc32.Checksum(m[:len(m)-4], castagnoli) != le.Uint32(m[len(m)-4:]) {
		return true, ErrCorrupt
	}
	if layout&^(layoutGraph|layoutProj) != f.layout() || (layout&layoutGraph != 0 && f.cfg.Graph.minRows(dim) < 0) {
		return false, nil
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.setDim(dim)
	var dead []bool
	graphEnd := sec.end
	if layout&layoutGraph != 0 {
		dead = make([]bool, n)
		for i, b := range m[sec.keys+8*n : sec.keys+9*n] {
			dead[i] = b != 0
		}
		section := m[sec.end : len(m)-4]
		g, used, err := readGraph(bytes.NewReader(section), n, f.cfg.Graph, func(off, count int) []uint32 {
			if off+4*count > len(section) {
				return make([]uint32, count) // readGraph's own checks report the truncation
			}
			return mapped[uint32](section, off, count)
		})
		if err != nil {
			return true, ErrCorrupt
		}
		f.g, graphEnd = g, sec.end+used
		if layout&layoutProj != 0 {
			section := m[graphEnd : len(m)-4]
			p, pused, err := readProjection(bytes.NewReader(section), n, dim, func(off, count int) []int8 {
				if off+count > len(section) {
					return make([]int8, count) // the length check below reports the truncation
				}
				return mapped[int8](section, off, count)
			})
			if err != nil {
				return true, err
			}
			used += pused
			if f.cfg.Project > 0 {
				f.pj = p
			}
		}
		if sec.end+used != len(m)-4 {
			return true, ErrCorrupt
		}
	}
	if err := f.setKeys(append([]uint64(nil), mapped[uint64](m, sec.keys, n)...), dead); err != nil {
		return true, err
	}
	if layout&layoutCodes != 0 {
		f.scales = append([]float32(nil), mapped[float32](m, sec.scales, n)...)
		f.norms = append([]float32(nil), mapped[float32](m, sec.norms, n)...)
		f.codes.adopt(mapped[int8](m, sec.codes, n*dim), n)
	}
	if layout&layoutFloats != 0 {
		f.data.adopt(mapped[float32](m, sec.floats, n*dim), n)
	}
	// The checksum pass (and the graph's check) paged the whole file
	// in. The sections copied to the heap above (keys, flags, scales,
	// norms, the graph's levels and upper layers) are not read through
	// the mapping again, and the graph's layer-0 lists, which stay in
	// place, are read only where a search goes: their pages are
	// released, so that they count in the process's memory only once
	// and only where used. The codes, which every scan reads, stay,
	// unless the projection answers searches: then its codes are what
	// every search reads, and only candidates' full codes are read.
	release(m, sec.end, graphEnd)
	if !f.pj.usable() {
		// A projection calibration left off (or not yet calibrated) is
		// read only if it is measured again; its mean, basis and spreads
		// are on the heap, and its codes count only once scanned. An
		// older format's (or one not configured) is never read.
		release(m, graphEnd, len(m)-4)
	}

	release(m, sec.keys, sec.codes) // keys, dead flags, scales, norms (sec.codes == sec.floats without codes)
	mp := &mapping{b: m, graph: sec.end, graphEnd: graphEnd}
	if layout&layoutCodes != 0 {
		mp.codes, mp.rows, mp.dim = sec.codes, n, dim
		if fd, err := syscall.Dup(int(file.Fd())); err == nil {
			mp.file = os.NewFile(uintptr(fd), file.Name())
		}
	}
	runtime.SetFinalizer(mp, func(mp *mapping) {
		syscall.Munmap(mp.b)
		if mp.file != nil {
			mp.file.Close()
		}
	})
	f.mapped = mp
	if f.pj.usable() {
		f.coolCodes()
	}
	kept = true
	return true, nil
}

// mapped views count values of T at byte offset off of m (aligned: the
// format pads every section to 8 bytes, and m starts on a page).
func mapped[T int8 | uint32 | float32 | uint64](m []byte, off, count int) []T {
	if count == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&m[off])), count)
}

// release drops the whole pages of m[from:to] from the process's memory
// (they stay in the file and the page cache; a later read faults them in
// again). Only pages the mapping never wrote may be released: on a
// private mapping a written page would lose its writes.
func release(m []byte, from, to int) {
	pg := os.Getpagesize()
	from = (from + pg - 1) / pg * pg
	to = to / pg * pg
	if to > from {
		unix.Madvise(m[from:to], unix.MADV_DONTNEED) // syscall has no Madvise on macOS
	}
}
