package index

import (
	"bufio"
	"encoding/binary"
	"io"
)

// The graph section of a flat snapshot (little endian, after the float32
// rows and padding to a multiple of 8):
//
//	m, efConstruction, efSearch, entry  uint32 each
//	top                                 int32 (-1: empty graph)
//	flags                               uint32 (bit 0: calibrated off; bit
//	                                    2: off by its cost alone,
//	                                    flagCostOnly; bits 8–15: the
//	                                    calibration's version)
//	calibrated rows                     uint64 (0: never calibrated)
//	levels   rows × byte, zero bytes to the next multiple of 8
//	links0   rows × (2m+1) uint32 (count, then neighbours), zero bytes to
//	         the next multiple of 8
//	upper    uint64 word count, then the words: for each row above layer
//	         0, in row order, its layers 1..level of m+1 uint32 each;
//	         zero bytes to the next multiple of 8
//
// Everything is checked on reading (counts, row numbers, the entry's
// level), so a file that passed its checksum but was written wrong is
// refused rather than crashing a search.

// write writes the graph section. Caller holds the Flat's read lock.
func (g *graph) write(w *bufio.Writer) {
	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, uint32(g.cfg.M))
	b = le.AppendUint32(b, uint32(g.cfg.EfConstruction))
	b = le.AppendUint32(b, uint32(g.cfg.EfSearch))
	b = le.AppendUint32(b, g.entry)
	b = le.AppendUint32(b, uint32(int32(g.top)))
	var flags uint32
	if g.off {
		flags |= 1
	}
	if g.costOnly {
		flags |= flagCostOnly
	}
	flags |= calibrationVersion << 8
	b = le.AppendUint32(b, flags)
	b = le.AppendUint64(b, uint64(g.calRows))
	w.Write(b)
	n := len(g.levels)
	w.Write(g.levels)
	w.Write(make([]byte, pad8(n)))
	writeUint32s(w, g.links0)
	w.Write(make([]byte, pad8(4*len(g.links0))))
	var words uint64
	for row, l := range g.levels {
		if l > 0 {
			words += uint64(len(g.upper[uint32(row)]))
		}
	}
	w.Write(le.AppendUint64(nil, words))
	for row, l := range g.levels {
		if l > 0 {
			writeUint32s(w, g.upper[uint32(row)])
		}
	}
	w.Write(make([]byte, pad8(int(4*words))))
}

func writeUint32s(w *bufio.Writer, v []uint32) {
	var b [4]byte
	for _, x := range v {
		binary.LittleEndian.PutUint32(b[:], x)
		w.Write(b[:])
	}
}

// readGraph reads a graph section over n rows and reports how many bytes
// it took.
//
// view, when not nil, gives the layer-0 lists in place instead of reading
// them: count words at byte offset off of the section r reads (a mapped
// snapshot), which r then skips. The lists are the graph's bulk (132 MB
// at a million rows), and in place they cost memory only where a search
// or an insert touches them; an insert that adds a row moves them to the
// heap (append), and one that rewrites a list copies its page on write.
func readGraph(r io.Reader, n int, cfg GraphConfig, view func(off, count int) []uint32) (*graph, int, error) {
	le := binary.LittleEndian
	var h [32]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, 0, ErrCorrupt
	}
	m := int(le.Uint32(h[0:]))
	if m < 2 || m > 255 {
		return nil, 0, ErrCorrupt
	}
	cfg.M = m
	if cfg.EfConstruction <= 0 {
		cfg.EfConstruction = int(le.Uint32(h[4:]))
	}
	calibrated := le.Uint64(h[24:])
	if cfg.EfSearch <= 0 || calibrated > 0 {
		cfg.EfSearch = int(le.Uint32(h[8:])) // the calibrated width wins
	}
	if cfg.EfSearch <= 0 || cfg.EfSearch > maxCalibratedEf {
		return nil, 0, ErrCorrupt
	}
	g := newGraph(cfg)
	g.entry, g.top = le.Uint32(h[12:]), int(int32(le.Uint32(h[16:])))
	flags := le.Uint32(h[20:])
	g.off, g.calRows = flags&1 != 0, int(min(calibrated, uint64(n)+1))
	g.costOnly = flags&flagCostOnly != 0 && g.off && g.calRows > 0
	if flags>>8&0xff < calibrationVersion {
		g.calRows = 0 // an older calibration's choice: measure again
	}
	used := len(h)

	g.levels = make([]byte, n)
	if _, err := io.ReadFull(r, g.levels); err != nil {
		return nil, 0, ErrCorrupt
	}
	if _, err := io.CopyN(io.Discard, r, int64(pad8(n))); err != nil {
		return nil, 0, ErrCorrupt
	}
	used += n + pad8(n)
	if s, ok := r.(io.Seeker); ok && view != nil && n > 0 {
		g.links0 = view(used, n*(g.m0+1))
		if _, err := s.Seek(int64(4*len(g.links0)), io.SeekCurrent); err != nil {
			return nil, 0, ErrCorrupt
		}
	} else {
		g.links0 = make([]uint32, n*(g.m0+1))
		if err := readUint32s(r, g.links0); err != nil {
			return nil, 0, err
		}
	}
	if _, err := io.CopyN(io.Discard, r, int64(pad8(4*len(g.links0)))); err != nil {
		return nil, 0, ErrCorrupt
	}
	used += 4*len(g.links0) + pad8(4*len(g.links0))

	var wb [8]byte
	if _, err := io.ReadFull(r, wb[:]); err != nil {
		return nil, 0, ErrCorrupt
	}
	words := le.Uint64(wb[:])
	var want uint64
	for _, l := range g.levels {
		if l > graphMaxLevel {
			return nil, 0, ErrCorrupt
		}
		want += uint64(l) * uint64(m+1)
	}
	if words != want {
		return nil, 0, ErrCorrupt
	}
	all := make([]uint32, words)
	if err := readUint32s(r, all); err != nil {
		return nil, 0, err
	}
	if _, err := io.CopyN(io.Discard, r, int64(pad8(int(4*words)))); err != nil {
		return nil, 0, ErrCorrupt
	}
	used += 8 + int(4*words) + pad8(int(4*words))
	for row, l := range g.levels {
		if l > 0 {
			k := int(l) * (m + 1)
			g.upper[uint32(row)], all = all[:k:k], all[k:]
		}
	}
	if err := g.check(n); err != nil {
		return nil, 0, err
	}
	return g, used, nil
}

// check validates a loaded graph over n rows.
func (g *graph) check(n int) error {
	switch {
	case n == 0 && g.top != -1,
		n > 0 && (g.top < 0 || int(g.entry) >= n || int(g.levels[g.entry]) != g.top):
		return ErrCorrupt
	}
	ok := func(nb []uint32, cap int) bool {
		if int(nb[0]) > cap {
			return false
		}
		for _, r := range nb[1 : 1+nb[0]] {
			if int(r) >= n {
				return false
			}
		}
		return true
	}
	for row := range n {
		if !ok(g.links(uint32(row), 0), g.m0) {
			return ErrCorrupt
		}
		for l := 1; l <= int(g.levels[row]); l++ {
			if !ok(g.links(uint32(row), l), g.cfg.M) {
				return ErrCorrupt
			}
		}
	}
	return nil
}

func readUint32s(r io.Reader, v []uint32) error {
	b := make([]byte, 1<<16)
	for len(v) > 0 {
		k := min(len(v), len(b)/4)
		if _, err := io.ReadFull(r, b[:4*k]); err != nil {
			return ErrCorrupt
		}
		for i := range k {
			v[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		v = v[k:]
	}
	return nil
}
