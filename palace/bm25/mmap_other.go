//go:build !unix

package bm25

import (
	"os"
	"unsafe"
)

// mapping is unused where files are not mapped.
type mapping struct{}

// mapFile never maps here: the caller reads the file.
func mapFile(f *os.File, size int) (*mapping, []byte) { return nil, nil }

func (m *mapping) release() {}

func (m *mapping) keep() *mapping { return m }

func (m *mapping) holds(p unsafe.Pointer) bool { return false }
