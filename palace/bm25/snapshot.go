package bm25

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"unsafe"
)

// Snapshot file layout (little endian):
//
//	magic      "LOCIBM25"
//	format     uint32   snapshotFormat
//	tokenizer  uint32   TokenizerVersion
//	fields     uint32   number of weighted fields
//	zero       uint32
//	seq        int64    the caller's high-water mark
//	docs       uint64   N documents (a snapshot has no dead slot)
//	terms      uint64   T terms
//	text       uint64   bytes of term text
//	slotTable  uint64   S entries of the key directory
//	termTable  uint64   M entries of the dictionary table
//	then, each section starting on a multiple of 8 (zero bytes between):
//	keys       N × int64
//	hashes     N × uint64
//	lens       N × uint32
//	flags      N × uint8
//	slotTable  S × uint32
//	termTable  M × uint32
//	termOff    (T+1) × uint64
//	termText   text bytes
//	blob       the frozen posting lists
//	postOff    (T+1) × uint64
//	postLast   T × uint32
//	postN      T × uint32
//	blobLen    uint64   bytes of the blob
//	crc        uint32   CRC-32C of every byte before it
//
// Each section is one of the index's arrays as it is in memory, so a load
// maps the file and points the arrays at it (on Unix; elsewhere it reads
// the file into memory and does the same): the cost of a load is the
// checksum and a few checks over the per-term arrays, with no decoding.
const (
	snapshotMagic  = "LOCIBM25"
	snapshotFormat = 1
	headerSize     = 72
	trailerSize    = 12
)

var (
	// ErrCorrupt reports a snapshot that is truncated, fails its checksum
	// or does not parse. The caller rebuilds the index from its source.
	ErrCorrupt = errors.New("bm25 snapshot corrupt")
	// ErrVersion reports a snapshot of another format or tokenizer version,
	// or of another number of fields. The caller rebuilds too.
	ErrVersion = errors.New("bm25 snapshot version unsupported")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// mapSnapshots lets tests force the reading path where mapping works.
var mapSnapshots = true

type snapHeader struct {
	format, tokenizer, fields uint32
	seq                       int64
	docs, terms, text         uint64
	slotTable, termTable      uint64
}

// sections holds the file offsets of a snapshot's sections.
type sections struct {
	keys, hashes, lens, flags, slotTable, termTable, termOff, termText int
	blob, postOff, postLast, postN, end                                int
}

// layout places the sections after the header, for a blob of blobLen
// bytes.
func (h *snapHeader) layout(blobLen int) sections {
	var s sections
	off := headerSize
	at := func(n int) int {
		start := off
		off += n + pad8(n)
		return start
	}
	n, t := int(h.docs), int(h.terms)
	s.keys = at(8 * n)
	s.hashes = at(8 * n)
	s.lens = at(4 * n)
	s.flags = at(n)
	s.slotTable = at(4 * int(h.slotTable))
	s.termTable = at(4 * int(h.termTable))
	s.termOff = at(8 * (t + 1))
	s.termText = at(int(h.text))
	s.blob = at(blobLen)
	s.postOff = at(8 * (t + 1))
	s.postLast = at(4 * t)
	s.postN = at(4 * t)
	s.end = off
	return s
}

// SaveFile writes the index to path with the caller's high-water mark seq
// (LoadFile returns it), atomically: a temporary file in the same directory
// is written, fsynced and renamed over path, then the directory is
// fsynced. It holds the read lock while it writes, so searches go on and
// writers wait; what it saves is the index as it was at one instant. Dead
// slots are dropped on the way (the file is compact, the index unchanged).
//
// A loaded index may be mapped from path; renaming a new file over it is
// safe (the mapping keeps the old file), writing into it in place is not.
func (x *Index) SaveFile(path string, seq int64) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".bm25-*")
	if err != nil {
		return fmt.Errorf("save bm25 snapshot: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = x.writeSnapshot(tmp, seq)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("save bm25 snapshot: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeSnapshot writes the file's bytes to w under the read lock.
func (x *Index) writeSnapshot(w io.Writer, seq int64) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<20)

	// The documents, without dead slots: remap renumbers the live ones.
	docs := docArrays{x.keys, x.lens, x.hashes, x.flags}
	slotTable := x.slotOf.e
	var remap []int32
	if x.dead > 0 {
		remap, docs = x.liveDocs()
		slotTable = keyTable(docs.keys).e
	}

	terms := x.terms.used
	h := snapHeader{format: snapshotFormat, tokenizer: TokenizerVersion, fields: uint32(len(x.weights)), seq: seq,
		docs: uint64(len(docs.keys)), terms: uint64(terms), text: uint64(len(x.termText)),
		slotTable: uint64(len(slotTable)), termTable: uint64(len(x.terms.e))}
	le := binary.LittleEndian
	hdr := []byte(snapshotMagic)
	hdr = le.AppendUint32(hdr, h.format)
	hdr = le.AppendUint32(hdr, h.tokenizer)
	hdr = le.AppendUint32(hdr, h.fields)
	hdr = le.AppendUint32(hdr, 0)
	for _, v := range []uint64{uint64(h.seq), h.docs, h.terms, h.text, h.slotTable, h.termTable} {
		hdr = le.AppendUint64(hdr, v)
	}
	bw.Write(hdr)
	n := len(hdr)
	n += writeLE(bw, docs.keys)
	n += writeLE(bw, docs.hashes)
	n += writeLE(bw, docs.lens)
	n += writeLE(bw, docs.flags)
	n += writeLE(bw, slotTable)
	n += writeLE(bw, x.terms.e)
	n += writeLE(bw, x.termOff)
	n += writeLE(bw, x.termText)

	// The lists, each frozen part and tail end to end (or re-encoded
	// without dead slots), and where each starts.
	off := make([]uint64, terms+1)
	last := make([]uint32, terms)
	count := make([]uint32, terms)
	var buf []byte
	blobLen := 0
	for id := range int32(terms) {
		var l int32
		buf, l, count[id] = x.appendList(buf[:0], id, remap)
		last[id] = uint32(l)
		bw.Write(buf)
		blobLen += len(buf)
		off[id+1] = uint64(blobLen)
	}
	n += blobLen + pad(bw, blobLen)
	n += writeLE(bw, off)
	n += writeLE(bw, last)
	n += writeLE(bw, count)
	bw.Write(le.AppendUint64(nil, uint64(blobLen)))
	if want := h.layout(blobLen).end; n != want {
		return fmt.Errorf("snapshot layout: wrote %d bytes, want %d", n, want)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(le.AppendUint32(nil, crc.Sum32()))
	return err
}

// LoadFile loads a snapshot SaveFile wrote, for documents of the given
// weights (as New takes them), and returns the index and the high-water
// mark it was saved with. The index accepts Put, Remove and Search as one
// built from scratch does, with the same results. On Unix the file is
// mapped read-only; the index's arrays point into the mapping, which lives
// as long as the index or as long as one of them does. A missing file is an error wrapping
// fs.ErrNotExist; a damaged one wraps ErrCorrupt; one of another version,
// tokenizer or number of fields wraps ErrVersion.
func LoadFile(path string, weights ...float64) (*Index, int64, error) {
	x, seq, err := loadFile(path, weights)
	if err != nil {
		return nil, 0, fmt.Errorf("load bm25 snapshot %s: %w", path, err)
	}
	return x, seq, nil
}

func loadFile(path string, weights []float64) (*Index, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := st.Size()
	if size < headerSize+trailerSize || size > math.MaxInt-8 {
		return nil, 0, fmt.Errorf("%w: %d bytes", ErrCorrupt, size)
	}
	var m *mapping
	var data []byte
	if mapSnapshots {
		m, data = mapFile(f, int(size))
	}
	if data == nil {
		// Read into 8-byte aligned memory, as a mapping would be.
		words := make([]uint64, (size+7)/8)
		data = unsafeBytes(words)[:size]
		if _, err := io.ReadFull(f, data); err != nil {
			return nil, 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	x := New(weights...)
	seq, err := x.adopt(data)
	if err != nil {
		m.release()
		return nil, 0, err
	}
	x.snap = m.keep()
	return x, seq, nil
}

// adopt checks a snapshot's bytes and points the empty index's arrays at
// them.
func (x *Index) adopt(data []byte) (int64, error) {
	le := binary.LittleEndian
	body := len(data) - 4
	if got, want := crc32.Checksum(data[:body], castagnoli), le.Uint32(data[body:]); got != want {
		return 0, fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, want)
	}
	if string(data[:len(snapshotMagic)]) != snapshotMagic {
		return 0, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	p := data[len(snapshotMagic):]
	h := snapHeader{format: le.Uint32(p), tokenizer: le.Uint32(p[4:]), fields: le.Uint32(p[8:])}
	p = p[16:]
	h.seq = int64(le.Uint64(p))
	h.docs, h.terms, h.text = le.Uint64(p[8:]), le.Uint64(p[16:]), le.Uint64(p[24:])
	h.slotTable, h.termTable = le.Uint64(p[32:]), le.Uint64(p[40:])
	switch {
	case h.format != snapshotFormat:
		return 0, fmt.Errorf("%w: format %d, this build reads %d", ErrVersion, h.format, snapshotFormat)
	case h.tokenizer != TokenizerVersion:
		return 0, fmt.Errorf("%w: tokenizer %d, this build's is %d", ErrVersion, h.tokenizer, TokenizerVersion)
	case int(h.fields) != len(x.weights):
		return 0, fmt.Errorf("%w: %d fields, the index has %d", ErrVersion, h.fields, len(x.weights))
	}
	// Sizes past the file's would overflow the layout's arithmetic.
	limit := uint64(len(data))
	blobLen := le.Uint64(data[body-8:])
	if h.docs > limit || h.terms > limit || h.text > limit || h.slotTable > limit || h.termTable > limit || blobLen > limit ||
		h.docs > math.MaxInt32-1 || h.terms > math.MaxInt32-1 {
		return 0, fmt.Errorf("%w: sizes exceed the file", ErrCorrupt)
	}
	s := h.layout(int(blobLen))
	if s.end != len(data)-trailerSize {
		return 0, fmt.Errorf("%w: %d bytes, the header says %d", ErrCorrupt, len(data), s.end+trailerSize)
	}
	n, t := int(h.docs), int(h.terms)
	x.keys = view[int64](data, s.keys, n)
	x.hashes = view[uint64](data, s.hashes, n)
	x.lens = view[uint32](data, s.lens, n)
	x.flags = append([]uint8(nil), data[s.flags:s.flags+n]...)
	x.termOff = view[uint64](data, s.termOff, t+1)
	x.termText = view[uint8](data, s.termText, int(h.text))
	x.blob = view[uint8](data, s.blob, int(blobLen))
	x.postOff = view[uint64](data, s.postOff, t+1)
	x.postLast = view[uint32](data, s.postLast, t)
	x.postN = view[uint32](data, s.postN, t)
	x.slotOf = table{e: view[uint32](data, s.slotTable, int(h.slotTable)), used: n, shared: true}
	x.terms = table{e: view[uint32](data, s.termTable, int(h.termTable)), used: t, shared: true}

	// The checksum rules out damage; these checks rule out a file whose
	// arrays disagree, which would make searches index out of range.
	if !validTable(x.slotOf, n) || !validTable(x.terms, t) ||
		!validOffsets(x.termOff, h.text) || !validOffsets(x.postOff, blobLen) {
		return 0, fmt.Errorf("%w: inconsistent arrays", ErrCorrupt)
	}
	for _, f := range x.flags {
		if f&^flagActive != 0 {
			return 0, fmt.Errorf("%w: bad document flags", ErrCorrupt)
		}
	}
	for id, c := range x.postN {
		if int(c) > n || (c > 0 && int(x.postLast[id]) >= n) || uint64(c) > x.postOff[id+1]-x.postOff[id] {
			return 0, fmt.Errorf("%w: posting list %d out of range", ErrCorrupt, id)
		}
	}
	for _, l := range x.lens {
		x.totalLen += int64(l)
	}
	x.live = n
	return h.seq, nil
}

// validTable reports whether t is a power of two in size, holds used
// values and no value past used.
func validTable(t table, used int) bool {
	if len(t.e) < minTable || bits.OnesCount(uint(len(t.e))) != 1 || t.used*4 > len(t.e)*3 {
		return false
	}
	n := 0
	for _, v := range t.e {
		if v != 0 {
			if int(v) > used {
				return false
			}
			n++
		}
	}
	return n == used
}

// validOffsets reports whether off starts at 0, never decreases and ends
// at total.
func validOffsets(off []uint64, total uint64) bool {
	if len(off) == 0 || off[0] != 0 || off[len(off)-1] != total {
		return false
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return false
		}
	}
	return true
}

// dropSnapshot unmaps the snapshot once none of the index's arrays points
// into it any more (after a rewrite, and edits that added terms and keys),
// so that its pages leave the process. Caller holds mu for writing.
func (x *Index) dropSnapshot() {
	if x.snap == nil {
		return
	}
	for _, p := range []unsafe.Pointer{
		data(x.termText), data(x.termOff), data(x.terms.e),
		data(x.blob), data(x.postOff), data(x.postLast), data(x.postN),
		data(x.keys), data(x.lens), data(x.hashes), data(x.flags), data(x.slotOf.e),
	} {
		if p != nil && x.snap.holds(p) {
			return
		}
	}
	x.snap.release()
	x.snap = nil
}

func data[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }
