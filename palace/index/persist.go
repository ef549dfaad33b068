package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/coder/hnsw"
)

// Snapshot file layout (little endian), version 1:
//
//	magic    "LOCIHNSW"
//	version  uint32
//	dim      uint32
//	metric   uint8
//	seq      uint64   change-log high-water mark the snapshot covers
//	model    uint16 length + bytes (embedder model id)
//	rows     uint32
//	keys     rows × uint64   row -> caller key
//	dead     ceil(rows/8) bytes, bit set = tombstoned
//	graph    uint8 present flag, then coder/hnsw Export (keys are rows)
//	crc      uint32 CRC-32C of every byte before it
const (
	snapshotMagic   = "LOCIHNSW"
	snapshotVersion = 1
)

var (
	// ErrCorrupt reports a snapshot that is truncated, fails its checksum
	// or does not parse. The caller rebuilds the index from SQLite.
	ErrCorrupt = errors.New("index snapshot corrupt")
	// ErrVersion reports a snapshot written by an unknown format version.
	ErrVersion = errors.New("index snapshot version unsupported")
	// ErrDegraded is returned by SaveFile while the graph is degraded by a
	// recovered panic; Rebuild first.
	ErrDegraded = errors.New("index degraded: rebuild before saving")
)

// SnapshotMeta is what a snapshot records beyond the graph itself.
type SnapshotMeta struct {
	// Model is the embedder model id the vectors came from.
	Model string
	// Seq is the change-log high-water mark the snapshot covers: every
	// change up to and including Seq is in it, none after.
	Seq uint64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SaveFile writes the index to path atomically: a temporary file in the
// same directory is written, fsynced and renamed over path, and the
// directory is fsynced. The caller guarantees that every change up to
// meta.Seq, and none after, has been applied.
func (h *HNSW) SaveFile(path string, meta SnapshotMeta) error {
	if len(meta.Model) > 0xffff {
		return fmt.Errorf("save index %q: model id too long", path)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save index %q: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := h.writeSnapshot(tmp, meta); err != nil {
		tmp.Close()
		return fmt.Errorf("save index %q: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save index %q: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save index %q: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save index %q: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every platform can sync a directory
		d.Close()
	}
	return nil
}

func (h *HNSW) writeSnapshot(f io.Writer, meta SnapshotMeta) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.broken {
		return ErrDegraded
	}
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(f, crc), 1<<20)
	le := binary.LittleEndian
	var hdr []byte
	hdr = append(hdr, snapshotMagic...)
	hdr = le.AppendUint32(hdr, snapshotVersion)
	hdr = le.AppendUint32(hdr, uint32(h.dim))
	hdr = append(hdr, byte(h.cfg.Metric))
	hdr = le.AppendUint64(hdr, meta.Seq)
	hdr = le.AppendUint16(hdr, uint16(len(meta.Model)))
	hdr = append(hdr, meta.Model...)
	hdr = le.AppendUint32(hdr, uint32(len(h.keys)))
	bw.Write(hdr)
	var b [8]byte
	for _, k := range h.keys {
		le.PutUint64(b[:], k)
		bw.Write(b[:])
	}
	bits := make([]byte, (len(h.dead)+7)/8)
	for row, d := range h.dead {
		if d {
			bits[row/8] |= 1 << (row % 8)
		}
	}
	bw.Write(bits)
	if h.g == nil {
		bw.WriteByte(0)
	} else {
		bw.WriteByte(1)
		var err error
		if perr := h.guard("export", func() { err = h.g.Export(bw) }); perr != nil {
			return perr
		}
		if err != nil {
			return fmt.Errorf("export graph: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := f.Write(le.AppendUint32(nil, crc.Sum32()))
	return err
}

// LoadHNSWFile reads a snapshot written by SaveFile. The checksum is
// verified before anything is parsed. M, Ml and the metric come from the
// file; cfg supplies the rest (EfSearch, OnPanic, ...). A missing file is
// reported as an error wrapping fs.ErrNotExist; a damaged one wraps
// ErrCorrupt.
func LoadHNSWFile(path string, cfg HNSWConfig) (*HNSW, SnapshotMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, SnapshotMeta{}, fmt.Errorf("load index: %w", err)
	}
	defer f.Close()
	h, meta, err := loadSnapshot(f, cfg)
	if err != nil {
		return nil, SnapshotMeta{}, fmt.Errorf("load index %q: %w", path, err)
	}
	return h, meta, nil
}

func loadSnapshot(f *os.File, cfg HNSWConfig) (*HNSW, SnapshotMeta, error) {
	var meta SnapshotMeta
	st, err := f.Stat()
	if err != nil {
		return nil, meta, err
	}
	body := st.Size() - 4
	if body < int64(len(snapshotMagic)) {
		return nil, meta, fmt.Errorf("%w: %d bytes", ErrCorrupt, st.Size())
	}
	// Pass 1: checksum, streaming.
	crc := crc32.New(castagnoli)
	if _, err := io.Copy(crc, io.NewSectionReader(f, 0, body)); err != nil {
		return nil, meta, err
	}
	var tail [4]byte
	if _, err := f.ReadAt(tail[:], body); err != nil {
		return nil, meta, err
	}
	if got, want := crc.Sum32(), binary.LittleEndian.Uint32(tail[:]); got != want {
		return nil, meta, fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, want)
	}
	// Pass 2: parse.
	sec := io.NewSectionReader(f, 0, body)
	br := bufio.NewReaderSize(sec, 1<<20)
	h, meta, err := parseSnapshot(br, cfg)
	if err != nil {
		return nil, meta, err
	}
	if pos, _ := sec.Seek(0, io.SeekCurrent); pos-int64(br.Buffered()) != body {
		return nil, meta, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, body-pos+int64(br.Buffered()))
	}
	return h, meta, nil
}

func parseSnapshot(br *bufio.Reader, cfg HNSWConfig) (*HNSW, SnapshotMeta, error) {
	var meta SnapshotMeta
	le := binary.LittleEndian
	fixed := make([]byte, len(snapshotMagic)+4+4+1+8+2)
	if _, err := io.ReadFull(br, fixed); err != nil {
		return nil, meta, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if string(fixed[:8]) != snapshotMagic {
		return nil, meta, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	if v := le.Uint32(fixed[8:]); v != snapshotVersion {
		return nil, meta, fmt.Errorf("%w: %d", ErrVersion, v)
	}
	dim := int(le.Uint32(fixed[12:]))
	metric := Metric(fixed[16])
	meta.Seq = le.Uint64(fixed[17:])
	model := make([]byte, le.Uint16(fixed[25:]))
	var nrows uint32
	if _, err := io.ReadFull(br, model); err != nil {
		return nil, meta, fmt.Errorf("%w: model id: %v", ErrCorrupt, err)
	}
	meta.Model = string(model)
	if err := binary.Read(br, le, &nrows); err != nil {
		return nil, meta, fmt.Errorf("%w: rows: %v", ErrCorrupt, err)
	}
	if !metric.valid() || (dim == 0) != (nrows == 0) {
		return nil, meta, fmt.Errorf("%w: metric %d dim %d rows %d", ErrCorrupt, metric, dim, nrows)
	}
	cfg.Metric = metric
	h := NewHNSW(cfg)
	h.dim, h.arena.dim = dim, dim
	h.keys = make([]uint64, nrows)
	if err := binary.Read(br, le, h.keys); err != nil {
		return nil, meta, fmt.Errorf("%w: keys: %v", ErrCorrupt, err)
	}
	bits := make([]byte, (nrows+7)/8)
	if _, err := io.ReadFull(br, bits); err != nil {
		return nil, meta, fmt.Errorf("%w: tombstones: %v", ErrCorrupt, err)
	}
	h.dead = make([]bool, nrows)
	for row := range h.dead {
		if bits[row/8]&(1<<(row%8)) != 0 {
			h.dead[row] = true
			h.ndead++
		} else {
			h.rowOf[h.keys[row]] = uint32(row)
		}
	}
	if len(h.rowOf) != int(nrows)-h.ndead {
		return nil, meta, fmt.Errorf("%w: duplicate live keys", ErrCorrupt)
	}
	present, err := br.ReadByte()
	if err != nil || present > 1 || (present == 0) != (nrows == 0) {
		return nil, meta, fmt.Errorf("%w: graph flag", ErrCorrupt)
	}
	if present == 0 {
		return h, meta, nil
	}
	g := hnsw.NewGraph[uint32]()
	var ierr error
	if perr := h.guard("import", func() { ierr = g.Import(br) }); perr != nil {
		return nil, meta, fmt.Errorf("%w: %v", ErrCorrupt, perr)
	}
	if ierr != nil {
		return nil, meta, fmt.Errorf("%w: graph: %v", ErrCorrupt, ierr)
	}
	if g.Len() != int(nrows) || g.Dims() != dim {
		return nil, meta, fmt.Errorf("%w: graph has %d nodes of dim %d, want %d of %d", ErrCorrupt, g.Len(), g.Dims(), nrows, dim)
	}
	h.vecs = make([][]float32, nrows)
	for row := range h.vecs {
		v, ok := g.Lookup(uint32(row))
		if !ok || len(v) != dim {
			return nil, meta, fmt.Errorf("%w: row %d missing from graph", ErrCorrupt, row)
		}
		h.vecs[row] = v
	}
	// The file's M and Ml built the graph; EfSearch is the caller's.
	h.cfg.M, h.cfg.Ml = g.M, g.Ml
	fresh := h.newGraph()
	g.EfSearch, g.Rng, g.Distance = fresh.EfSearch, fresh.Rng, fresh.Distance
	h.g = g
	return h, meta, nil
}
