//go:build !unix

package index

import "os"

// mapping is unused where files are not mapped.
type mapping struct{}

func (mp *mapping) readRow(dst []int8, row int) bool { return false }
func (mp *mapping) isCold() bool                     { return false }
func (f *Flat) coolCodes()                           {}
func (f *Flat) warmCodes()                           {}
func (f *Flat) recool()                              {}
func (f *Flat) releaseMovedGraph()                   {}

// mapV2 never maps here: the caller reads the file.
func (f *Flat) mapV2(file *os.File, size int64, hdr, n, dim int) (bool, error) { return false, nil }
