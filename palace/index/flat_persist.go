package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Flat snapshot file layout (little endian). Version 2, written since the
// index learned to load in its own layout:
//
//	magic    "LOCIFLAT"
//	version  uint32   2
//	dim      uint32
//	seq      uint64   change-log high-water mark the snapshot covers
//	model    uint16 length + bytes (embedder model id)
//	rows     uint64
//	layout   uint32   bit 0: int8 codes, bit 1: float32 rows, bit 2: graph,
//	                  bit 3: projection (with a graph)
//	         zero bytes to the next multiple of 8
//	keys     rows × uint64
//	dead     (bit 2) rows × byte (1: removed, kept as a graph waypoint),
//	         zero bytes to the next multiple of 8
//	codes    (bit 0) rows × scale float32, rows × squared norm float32,
//	         rows × dim int8, zero bytes to the next multiple of 8
//	floats   (bit 1) rows × dim float32
//	graph    (bit 2) zero bytes to the next multiple of 8, then the graph
//	         (graph_persist.go)
//	proj     (bit 3) the projection (project_persist.go)
//	crc      uint32   CRC-32C of every byte before it
//
// Each section is the index's own array, aligned, so loading is mapping
// the file and pointing the index at it (flat_mmap_unix.go), or elsewhere
// reading straight into the arrays: no decoding and no re-quantizing (at
// 100k × 996 that work was most of a 1.5–2.5 s load). Version 1 (rows ×
// (key, dim × float32)) is still read.
//
// A flat snapshot lets a new process (a hook, a CLI command) load every
// vector with one sequential read instead of one SQLite row per drawer.
const (
	flatMagic   = "LOCIFLAT"
	flatVersion = 2

	layoutCodes  = 1
	layoutFloats = 2
	layoutGraph  = 4
	layoutProj   = 8
)

// mapSnapshots lets tests force the reading path where mapping works.
var mapSnapshots = true

var (
	// ErrCorrupt reports a snapshot that is truncated, fails its checksum
	// or does not parse. The caller rebuilds the index from the store.
	ErrCorrupt = errors.New("index snapshot corrupt")
	// ErrVersion reports a snapshot written by an unknown format version,
	// or for a configuration that cannot use it.
	ErrVersion = errors.New("index snapshot version unsupported")
)

// SnapshotMeta is what a snapshot records beyond the vectors.
type SnapshotMeta struct {
	// Model is the embedder model id the vectors came from.
	Model string
	// Seq is the change-log high-water mark the snapshot covers: every
	// change up to and including Seq is in it, none after.
	Seq uint64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SaveFlatFile writes f (its rows, and its graph when it has one) to path
// atomically: temporary file, fsync, rename, directory fsync. It streams
// from the index's arrays under its read lock (searches go on; writers
// wait), copying nothing.
func SaveFlatFile(path string, f *Flat, meta SnapshotMeta) error {
	if len(meta.Model) > math.MaxUint16 {
		return fmt.Errorf("save flat snapshot: model id too long")
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".flat-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, crc), 1<<20)
	if err := f.writeSnapshot(bw, meta); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeSnapshot writes the version 2 header and sections of the live rows.
func (f *Flat) writeSnapshot(w *bufio.Writer, meta SnapshotMeta) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	le := binary.LittleEndian
	layout := f.layout()
	buf := []byte(flatMagic)
	buf = le.AppendUint32(buf, flatVersion)
	buf = le.AppendUint32(buf, uint32(f.dim))
	buf = le.AppendUint64(buf, meta.Seq)
	buf = le.AppendUint16(buf, uint16(len(meta.Model)))
	buf = append(buf, meta.Model...)
	// With a graph every row is written, removed ones too (they are its
	// waypoints, and its links name rows by number).
	rows := len(f.rowOf)
	if f.g != nil {
		layout |= layoutGraph
		rows = len(f.keys)
		if f.pj != nil {
			layout |= layoutProj
		}
	}
	buf = le.AppendUint64(buf, uint64(rows))
	buf = le.AppendUint32(buf, layout)
	buf = append(buf, make([]byte, pad8(len(buf)))...)
	w.Write(buf)
	live := func(fn func(row int)) {
		for row := range f.keys {
			if !f.dead[row] || f.g != nil {
				fn(row)
			}
		}
	}
	var b8 [8]byte
	live(func(row int) { le.PutUint64(b8[:], f.keys[row]); w.Write(b8[:]) })
	if f.g != nil {
		for _, d := range f.dead {
			w.WriteByte(boolByte(d))
		}
		w.Write(make([]byte, pad8(rows)))
	}
	// An erased row is written with the vectors of the row standing in
	// for it (stand); with none live, as zeros.
	if layout&layoutCodes != 0 {
		zero := make([]int8, f.dim)
		codes := func(row int) []int8 {
			if r := f.stand(row); r >= 0 {
				return f.codes.row(r)
			}
			return zero
		}
		scalar := func(v []float32) func(int) {
			return func(row int) {
				x := float32(0)
				if r := f.stand(row); r >= 0 {
					x = v[r]
				}
				le.PutUint32(b8[:4], math.Float32bits(x))
				w.Write(b8[:4])
			}
		}
		live(scalar(f.scales))
		live(scalar(f.norms))
		live(func(row int) { w.Write(int8Bytes(codes(row))) })
		w.Write(make([]byte, pad8(rows*f.dim)))
	}
	if layout&layoutFloats != 0 {
		var fb []byte
		zero := make([]float32, f.dim)
		live(func(row int) {
			v := zero
			if r := f.stand(row); r >= 0 {
				v = f.data.row(r)
			}
			fb = appendFloats(fb[:0], v)
			w.Write(fb)
		})
	}
	if f.g != nil {
		if layout&layoutFloats != 0 {
			w.Write(make([]byte, pad8(4*rows*f.dim)))
		}
		f.g.write(w)
	}
	if layout&layoutProj != 0 {
		f.pj.write(w, f.stand)
	}
	return nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// LoadFlatFile reads a flat snapshot into a new index of configuration
// cfg. A torn, truncated or corrupt file is ErrCorrupt, an unknown version
// ErrVersion; the caller rebuilds from the store.
func LoadFlatFile(path string, cfg FlatConfig) (*Flat, SnapshotMeta, error) {
	var meta SnapshotMeta
	f, err := os.Open(path)
	if err != nil {
		return nil, meta, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, meta, err
	}
	size := st.Size()
	le := binary.LittleEndian
	const fixed = len(flatMagic) + 4 + 4 + 8 + 2
	if size < int64(fixed+8+4) {
		return nil, meta, ErrCorrupt
	}
	crc := crc32.New(castagnoli)
	br := bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, size-4), crc), 1<<20)
	head := make([]byte, fixed)
	if _, err := io.ReadFull(br, head); err != nil || string(head[:len(flatMagic)]) != flatMagic {
		return nil, meta, ErrCorrupt
	}
	p := head[len(flatMagic):]
	version := le.Uint32(p)
	if version != 1 && version != 2 {
		return nil, meta, ErrVersion
	}
	dim := int(le.Uint32(p[4:]))
	meta.Seq = le.Uint64(p[8:])
	model := make([]byte, int(le.Uint16(p[16:])))
	var nb [8]byte
	if _, err := io.ReadFull(br, model); err != nil {
		return nil, meta, ErrCorrupt
	}
	if _, err := io.ReadFull(br, nb[:]); err != nil {
		return nil, meta, ErrCorrupt
	}
	meta.Model = string(model)
	n := le.Uint64(nb[:])
	body := uint64(size-4) - uint64(fixed+len(model)+8)
	if dim <= 0 || dim > 1<<20 || n > body/8 {
		return nil, meta, ErrCorrupt
	}
	idx := NewFlat(cfg)
	if version == 2 && mapSnapshots {
		// Map the file when this platform can and the layout is the
		// index's own; the checksum is verified over the mapping.
		hdr := fixed + len(model) + 8
		if done, err := idx.mapV2(f, size, hdr, int(n), dim); done || err != nil {
			if err != nil {
				return nil, meta, err
			}
			idx.graphAfterLoad()
			return idx, meta, nil
		}
	}
	if version == 1 {
		err = idx.loadRowsV1(br, int(n), dim, body)
	} else {
		err = idx.loadV2(br, int(n), dim, fixed+len(model)+8, body)
	}
	if err != nil {
		return nil, meta, err
	}
	var tail [4]byte
	if _, err := f.ReadAt(tail[:], size-4); err != nil || le.Uint32(tail[:]) != crc.Sum32() {
		return nil, meta, ErrCorrupt
	}
	idx.graphAfterLoad()
	return idx, meta, nil
}

// graphAfterLoad builds the graph of a loaded index that should have one
// and does not (a snapshot written before graphs, or below the size its
// writer built one at).
func (f *Flat) graphAfterLoad() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.graphDue() {
		f.buildGraph()
	}
}

// loadRowsV1 reads version 1 rows: (key, dim × float32) each.
func (a *Flat) loadRowsV1(br *bufio.Reader, n, dim int, body uint64) error {
	rowSize := 8 + 4*dim
	if body != uint64(n)*uint64(rowSize) {
		return ErrCorrupt
	}
	a.Reserve(n, dim)
	row := make([]byte, rowSize)
	vec := make([]float32, dim) // Add copies it
	le := binary.LittleEndian
	for i := 0; i < n; i++ {
		if _, err := io.ReadFull(br, row); err != nil {
			return ErrCorrupt
		}
		for j := range vec {
			vec[j] = math.Float32frombits(le.Uint32(row[8+4*j:]))
		}
		a.Add(le.Uint64(row), vec)
	}
	return nil
}

// loadV2 reads version 2 sections into an empty Flat. When the file's
// layout is not the Flat's (another configuration wrote it), the float32
// rows are added one by one; without them the file is of no use.
func (f *Flat) loadV2(br *bufio.Reader, n, dim, hdr int, body uint64) error {
	var lb [4]byte
	if _, err := io.ReadFull(br, lb[:]); err != nil {
		return ErrCorrupt
	}
	layout := binary.LittleEndian.Uint32(lb[:])
	sec, ok := v2Sections(hdr, n, dim, layout)
	if !ok || uint64(sec.end-hdr) > body || (layout&layoutGraph == 0 && uint64(sec.end-hdr) != body) {
		return ErrCorrupt
	}
	if _, err := br.Discard(sec.keys - hdr - 4); err != nil {
		return ErrCorrupt
	}
	keys := make([]uint64, n)
	if err := readUint64s(br, keys); err != nil {
		return err
	}
	var dead []bool
	if layout&layoutGraph != 0 {
		if layout&layoutCodes == 0 || f.cfg.Graph.minRows(dim) < 0 {
			return ErrVersion // a graph this configuration would not keep
		}
		db := make([]byte, n+pad8(n))
		if _, err := io.ReadFull(br, db); err != nil {
			return ErrCorrupt
		}
		dead = make([]bool, n)
		for i := range dead {
			dead[i] = db[i] != 0
		}
	}
	if layout&^(layoutGraph|layoutProj) != f.layout() {
		if layout&layoutGraph != 0 {
			return ErrVersion
		}
		if layout&layoutFloats == 0 {
			return ErrVersion
		}
		if layout&layoutCodes != 0 { // skip what this configuration recomputes
			if _, err := br.Discard(sec.floats - sec.scales); err != nil {
				return ErrCorrupt
			}
		}
		vec := make([]float32, dim)
		for _, k := range keys {
			if err := readFloat32s(br, vec); err != nil {
				return err
			}
			f.Add(k, vec)
		}
		return nil
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.setDim(dim)
	if err := f.setKeys(keys, dead); err != nil {
		return err
	}
	if layout&layoutCodes != 0 {
		f.scales, f.norms = make([]float32, n), make([]float32, n)
		if err := readFloat32s(br, f.scales); err != nil {
			return err
		}
		if err := readFloat32s(br, f.norms); err != nil {
			return err
		}
		f.codes.extend(n)
		for _, blk := range f.codes.blocks {
			if _, err := io.ReadFull(br, int8Bytes(blk)); err != nil {
				return ErrCorrupt
			}
		}
		if _, err := br.Discard(pad8(n * dim)); err != nil {
			return ErrCorrupt
		}
	}
	if layout&layoutFloats != 0 {
		f.data.extend(n)
		for _, blk := range f.data.blocks {
			if err := readFloat32s(br, blk); err != nil {
				return err
			}
		}
	}
	if layout&layoutGraph != 0 {
		if _, err := br.Discard(pad8(4 * n * dim * boolInt(layout&layoutFloats != 0))); err != nil {
			return ErrCorrupt
		}
		g, used, err := readGraph(br, n, f.cfg.Graph, nil)
		if err != nil {
			return ErrCorrupt
		}
		if layout&layoutProj != 0 {
			p, pused, err := readProjection(br, n, dim, nil)
			if err != nil {
				return err
			}
			used += pused
			if f.cfg.Project > 0 {
				f.pj = p
			}
		}
		if uint64(sec.end-hdr+used) != body {
			return ErrCorrupt
		}
		f.g = g
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setKeys installs the row keys of a loaded snapshot (dead: which rows
// are removed, nil for none). A live key twice is ErrCorrupt. Caller
// holds mu.
func (f *Flat) setKeys(keys []uint64, dead []bool) error {
	n := len(keys)
	if dead == nil {
		dead = make([]bool, n)
	}
	f.keys, f.dead, f.tomb = keys, dead, 0
	f.rowOf = make(map[uint64]int, n)
	for row, k := range keys {
		if dead[row] {
			f.tomb++
			continue
		}
		f.rowOf[k] = row
	}
	if len(f.rowOf) != n-f.tomb {
		return ErrCorrupt // a key twice
	}
	return nil
}

func pad8(n int) int { return (8 - n%8) % 8 }

// v2Layout holds the file offsets of a version 2 snapshot's sections.
type v2Layout struct {
	keys, scales, norms, codes, floats, end int
	layout                                  uint32
}

// v2Sections computes where each section of a version 2 file starts, for
// a header of hdr bytes before the layout word. ok is false for an
// unknown layout bit.
func v2Sections(hdr, n, dim int, layout uint32) (v2Layout, bool) {
	l := v2Layout{layout: layout}
	if layout&^(layoutCodes|layoutFloats|layoutGraph|layoutProj) != 0 ||
		(layout&layoutProj != 0 && layout&layoutGraph == 0) {
		return l, false
	}
	off := hdr + 4
	off += pad8(off)
	l.keys = off
	off += 8 * n
	if layout&layoutGraph != 0 {
		off += n + pad8(n)
	}
	l.scales, l.norms, l.codes = off, off, off
	if layout&layoutCodes != 0 {
		l.norms = off + 4*n
		l.codes = off + 8*n
		off = l.codes + n*dim
		off += pad8(n * dim)
	}
	l.floats = off
	if layout&layoutFloats != 0 {
		off += 4 * n * dim
	}
	if layout&layoutGraph != 0 {
		off += pad8(off) // the graph (and the projection) follow, their lengths in their own headers
	}
	l.end = off
	return l, true
}
