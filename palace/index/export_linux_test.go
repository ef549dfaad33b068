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
func ResidentCodesKB(f *Flat) (residentKB, codesKB int) {
	f.mu.RLock()
	mp := f.mapped
	f.mu.RUnlock()
	if mp == nil {
		return -1, 0
	}
	pg := os.Getpagesize()
	from := uintptr(unsafe.Pointer(&mp.b[0])) + uintptr(mp.codes)
	to := from + uintptr(mp.rows*mp.dim)
	first, last := from/uintptr(pg), (to-1)/uintptr(pg)
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
	return present * pg / 1024, mp.rows * mp.dim / 1024
}
