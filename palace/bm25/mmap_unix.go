//go:build unix

package bm25

import (
	"os"
	"runtime"
	"syscall"
)

// mapping is a snapshot file mapped into memory. The index whose arrays
// point into it holds it; it is unmapped once the index is unreachable.
type mapping struct{ b []byte }

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
	return &mapping{b}, b
}

// release unmaps m at once (nothing may point into it).
func (m *mapping) release() {
	if m != nil {
		syscall.Munmap(m.b)
	}
}

// keep hands m to the index: it is unmapped when m becomes unreachable.
func (m *mapping) keep() *mapping {
	if m != nil {
		runtime.AddCleanup(m, func(b []byte) { syscall.Munmap(b) }, m.b)
	}
	return m
}
