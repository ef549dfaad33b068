//go:build linux

package index

import (
	"encoding/binary"
	"os"
	"unsafe"
)

// ResidentCodesKB is how many KB of f's mapped codes are in the process's
// memory (pages present in its page table, from /proc/self/pagemap, not
// merely in the page cache), and the codes' size in KB; -1 when f maps
// no snapshot or the page map cannot be read.
func ResidentCodesKB(f *Flat) (residentKB, sizeKB int) {
	f.mu.RLock()
	mp := f.mapped
	f.mu.RUnlock()
	if mp == nil {
		return -1, 0
	}
	return residentPagesKB(mp.b, mp.codes, mp.codes+mp.rows*mp.dim)
}

// ResidentGraphKB is the same for the graph's section of the mapping.
func ResidentGraphKB(f *Flat) (residentKB, sizeKB int) {
	f.mu.RLock()
	mp := f.mapped
	f.mu.RUnlock()
	if mp == nil {
		return -1, 0
	}
	return residentPagesKB(mp.b, mp.graph, mp.graphEnd)
}

func residentPagesKB(m []byte, from, to int) (int, int) {
	if to <= from {
		return 0, 0
	}
	pg := uintptr(os.Getpagesize())
	base := uintptr(unsafe.Pointer(&m[0]))
	first, last := (base+uintptr(from))/pg, (base+uintptr(to)-1)/pg
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return -1, 0
	}
	defer pm.Close()
	entries := make([]byte, 8*(last-first+1))
	if _, err := pm.ReadAt(entries, int64(first)*8); err != nil {
		return -1, 0
	}
	present := 0
	for i := 0; i < len(entries); i += 8 {
		if binary.LittleEndian.Uint64(entries[i:])&(1<<63) != 0 {
			present++
		}
	}
	return present * int(pg) / 1024, (to - from) / 1024
}
