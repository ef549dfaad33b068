package index

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Flat snapshot file layout (little endian), version 1:
//
//	magic    "LOCIFLAT"
//	version  uint32
//	dim      uint32
//	seq      uint64   change-log high-water mark the snapshot covers
//	model    uint16 length + bytes (embedder model id)
//	rows     uint64
//	rows ×   (key uint64, dim × float32)
//	crc      uint32 CRC-32C of every byte before it
//
// A flat snapshot lets a new process (a hook, a CLI command) load every
// vector with one sequential read instead of one SQLite row per drawer.
const (
	flatMagic   = "LOCIFLAT"
	flatVersion = 1
)

// Each calls fn for every live key and its vector while Auto is exact; it
// returns false (calling nothing) once Auto answers from the graph.
func (a *Auto) Each(fn func(key uint64, vec []float32) bool) bool {
	a.mu.RLock()
	f := a.flat
	a.mu.RUnlock()
	if f == nil {
		return false
	}
	f.Each(fn)
	return true
}

// SaveFlatFile writes every live vector of idx (an *Auto that is still
// exact, or a *Flat) to path atomically: temporary file, fsync, rename,
// directory fsync.
func SaveFlatFile(path string, idx Index, meta SnapshotMeta) error {
	var each func(func(uint64, []float32) bool) bool
	switch x := idx.(type) {
	case *Auto:
		each = x.Each
	case *Flat:
		each = func(fn func(uint64, []float32) bool) bool { x.Each(fn); return true }
	default:
		return fmt.Errorf("save flat snapshot: unsupported index %T", idx)
	}
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
	le := binary.LittleEndian
	dim := idx.Dim()
	// Collect first: the row count goes in the header.
	type row struct {
		key uint64
		vec []float32
	}
	var rows []row
	ok := each(func(k uint64, v []float32) bool { rows = append(rows, row{k, v}); return true })
	if !ok {
		tmp.Close()
		return fmt.Errorf("save flat snapshot: index is no longer exact")
	}
	buf := []byte(flatMagic)
	buf = le.AppendUint32(buf, flatVersion)
	buf = le.AppendUint32(buf, uint32(dim))
	buf = le.AppendUint64(buf, meta.Seq)
	buf = le.AppendUint16(buf, uint16(len(meta.Model)))
	buf = append(buf, meta.Model...)
	buf = le.AppendUint64(buf, uint64(len(rows)))
	bw.Write(buf)
	rb := make([]byte, 8+4*dim)
	for _, r := range rows {
		le.PutUint64(rb, r.key)
		for i, x := range r.vec {
			le.PutUint32(rb[8+4*i:], math.Float32bits(x))
		}
		bw.Write(rb)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(le.AppendUint32(nil, crc.Sum32())); err != nil {
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

// LoadFlatFile reads a flat snapshot into a new exact Auto index, streaming
// it through one reused row buffer. A torn, truncated or corrupt file is
// ErrCorrupt; the caller rebuilds from SQLite.
func LoadFlatFile(path string, cfg AutoConfig) (*Auto, SnapshotMeta, error) {
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
	body := io.TeeReader(io.LimitReader(f, size-4), crc)
	br := bufio.NewReaderSize(body, 1<<20)
	head := make([]byte, fixed)
	if _, err := io.ReadFull(br, head); err != nil || string(head[:len(flatMagic)]) != flatMagic {
		return nil, meta, ErrCorrupt
	}
	p := head[len(flatMagic):]
	if le.Uint32(p) != flatVersion {
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
	rowSize := 8 + 4*dim
	if dim <= 0 || uint64(size-4) != uint64(fixed+len(model)+8)+n*uint64(rowSize) {
		return nil, meta, ErrCorrupt
	}
	a := NewAuto(cfg)
	a.Reserve(int(n), dim)
	row := make([]byte, rowSize)
	vec := make([]float32, dim) // Add copies it
	for i := uint64(0); i < n; i++ {
		if _, err := io.ReadFull(br, row); err != nil {
			return nil, meta, ErrCorrupt
		}
		for j := range vec {
			vec[j] = math.Float32frombits(le.Uint32(row[8+4*j:]))
		}
		a.Add(le.Uint64(row), vec)
	}
	var tail [4]byte
	if _, err := f.ReadAt(tail[:], size-4); err != nil || le.Uint32(tail[:]) != crc.Sum32() {
		a.Close()
		return nil, meta, ErrCorrupt
	}
	return a, meta, nil
}
