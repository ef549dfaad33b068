//go:build unix

package bm25

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// mapping is a snapshot file mapped into memory. The index whose arrays
// point into it holds it; it is unmapped once the index is unreachable, or
// once none of the index's arrays points into it (see Index.dropSnapshot).
type mapping struct {
	b       []byte
	cleanup runtime.Cleanup
}

// mapFile maps size bytes of f read-only and private: nothing can write
// into it, and the file never changes under it (SaveFile replaces files by
// renaming; truncating a mapped file in place would crash the process).
// It returns nil when the platform refuses or the machine is big-endian;
// the caller then reads the file.
func mapFile(f *os.File, size int) (*mapping, []byte) {
	if !littleEndian {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil
	}
	return &mapping{b: b}, b
}

// release unmaps m at once: nothing may point into it any more.
func (m *mapping) release() {
	if m != nil {
		m.cleanup.Stop()
		syscall.Munmap(m.b)
	}
}

// keep hands m to the index: it is unmapped when m becomes unreachable.
func (m *mapping) keep() *mapping {
	if m != nil {
		m.cleanup = runtime.AddCleanup(m, func(b []byte) { syscall.Munmap(b) }, m.b)
	}
	return m
}

// holds reports whether p points into the mapping.
func (m *mapping) holds(p unsafe.Pointer) bool {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m.b)))
	return uintptr(p) >= start && uintptr(p) < start+uintptr(len(m.b))
}
