//go:build !unix

package index

import "os"

// mapping is unused where files are not mapped.
type mapping struct{}

// mapV2 never maps here: the caller reads the file.
func (f *Flat) mapV2(file *os.File, size int64, hdr, n, dim int) (bool, error) { return false, nil }
