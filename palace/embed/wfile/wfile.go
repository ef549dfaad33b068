// Package wfile reads and writes loci's weight container: a flat,
// deterministic list of named arrays, used for the embedded model weights
// of palace/embed/use and palace/embed/glove and written by
// cmd/lociweights.
//
// Layout (all integers little-endian):
//
//	magic   [8]byte  "LOCIWT01"
//	count   uint32   number of entries
//	entries count times:
//	  nameLen uint16, name [nameLen]byte
//	  dtype   uint8   (F32, F16, I8, Bytes, F64)
//	  ndim    uint8, dims [ndim]uint32
//	  pad     zero bytes up to a multiple of 8 from the start of the file
//	  data    product(dims) elements of dtype
//
// The data is stored in the order the entries were added, so the same
// input always gives byte-identical output. It imports nothing from loci.
package wfile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Magic starts every container.
const Magic = "LOCIWT01"

// DType is an element type.
type DType uint8

// Element types.
const (
	F32   DType = 1 // IEEE 754 binary32
	F16   DType = 2 // IEEE 754 binary16
	I8    DType = 3 // signed byte
	Bytes DType = 4 // raw bytes (text, blobs)
	F64   DType = 5 // IEEE 754 binary64
)

// Size is the byte size of one element.
func (d DType) Size() int {
	switch d {
	case F64:
		return 8
	case F32:
		return 4
	case F16:
		return 2
	case I8, Bytes:
		return 1
	}
	return 0
}

func (d DType) String() string {
	switch d {
	case F32:
		return "f32"
	case F16:
		return "f16"
	case I8:
		return "i8"
	case Bytes:
		return "bytes"
	case F64:
		return "f64"
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Entry is one named array. Data holds the raw little-endian bytes.
type Entry struct {
	Name  string
	DType DType
	Dims  []int
	Data  []byte
}

// Len is the number of elements.
func (e *Entry) Len() int {
	n := 1
	for _, d := range e.Dims {
		n *= d
	}
	return n
}

// Float32s decodes an F32 or F16 entry into a new slice.
func (e *Entry) Float32s() ([]float32, error) {
	n := e.Len()
	out := make([]float32, n)
	switch e.DType {
	case F32:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(e.Data[4*i:]))
		}
	case F16:
		DecodeF16(out, e.Data)
	default:
		return nil, fmt.Errorf("entry %q: %v is not a float type", e.Name, e.DType)
	}
	return out, nil
}

// Float64s decodes an F64 entry into a new slice.
func (e *Entry) Float64s() ([]float64, error) {
	if e.DType != F64 {
		return nil, fmt.Errorf("entry %q: %v is not f64", e.Name, e.DType)
	}
	out := make([]float64, e.Len())
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(e.Data[8*i:]))
	}
	return out, nil
}

// File is a parsed container. Entries alias the bytes it was parsed from.
type File struct {
	Entries []Entry
	byName  map[string]int
}

// Get returns the named entry or an error naming it.
func (f *File) Get(name string) (*Entry, error) {
	i, ok := f.byName[name]
	if !ok {
		return nil, fmt.Errorf("weights: no entry %q", name)
	}
	return &f.Entries[i], nil
}

// ErrFormat reports a malformed container.
var ErrFormat = errors.New("weights: malformed container")

// Parse reads a container without copying its data.
func Parse(b []byte) (*File, error) {
	if len(b) < 12 || string(b[:8]) != Magic {
		return nil, fmt.Errorf("%w: bad magic", ErrFormat)
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	off := 12
	f := &File{byName: make(map[string]int, n)}
	need := func(k int) error {
		if k < 0 || off+k > len(b) {
			return fmt.Errorf("%w: truncated at byte %d", ErrFormat, off)
		}
		return nil
	}
	for i := 0; i < n; i++ {
		if err := need(2); err != nil {
			return nil, err
		}
		nl := int(binary.LittleEndian.Uint16(b[off:]))
		off += 2
		if err := need(nl + 2); err != nil {
			return nil, err
		}
		e := Entry{Name: string(b[off : off+nl])}
		off += nl
		e.DType = DType(b[off])
		nd := int(b[off+1])
		off += 2
		if e.DType.Size() == 0 {
			return nil, fmt.Errorf("%w: entry %q has unknown dtype %d", ErrFormat, e.Name, e.DType)
		}
		if err := need(4 * nd); err != nil {
			return nil, err
		}
		e.Dims = make([]int, nd)
		for j := range e.Dims {
			e.Dims[j] = int(binary.LittleEndian.Uint32(b[off:]))
			off += 4
		}
		off = align8(off)
		size := e.Len() * e.DType.Size()
		if err := need(size); err != nil {
			return nil, err
		}
		e.Data = b[off : off+size : off+size]
		off += size
		if _, dup := f.byName[e.Name]; dup {
			return nil, fmt.Errorf("%w: duplicate entry %q", ErrFormat, e.Name)
		}
		f.byName[e.Name] = len(f.Entries)
		f.Entries = append(f.Entries, e)
	}
	if off != len(b) {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrFormat, len(b)-off)
	}
	return f, nil
}

func align8(n int) int { return (n + 7) &^ 7 }

// Writer builds a container in memory.
type Writer struct {
	entries []Entry
}

// Add appends an entry with raw data.
func (w *Writer) Add(name string, dt DType, dims []int, data []byte) {
	w.entries = append(w.entries, Entry{Name: name, DType: dt, Dims: append([]int(nil), dims...), Data: data})
}

// AddF32 appends float32 data stored as F32.
func (w *Writer) AddF32(name string, dims []int, v []float32) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	w.Add(name, F32, dims, b)
}

// AddF64 appends float64 data stored as F64.
func (w *Writer) AddF64(name string, dims []int, v []float64) {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	w.Add(name, F64, dims, b)
}

// AddF16 appends float32 data rounded to F16 (round to nearest even).
func (w *Writer) AddF16(name string, dims []int, v []float32) {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], F32ToF16(x))
	}
	w.Add(name, F16, dims, b)
}

// Bytes serialises the container.
func (w *Writer) Bytes() ([]byte, error) {
	out := []byte(Magic)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(w.entries)))
	for _, e := range w.entries {
		if len(e.Name) > math.MaxUint16 || len(e.Dims) > 255 {
			return nil, fmt.Errorf("weights: entry %q: name or rank too large", e.Name)
		}
		if got, want := len(e.Data), e.Len()*e.DType.Size(); got != want {
			return nil, fmt.Errorf("weights: entry %q: %d data bytes, want %d", e.Name, got, want)
		}
		out = binary.LittleEndian.AppendUint16(out, uint16(len(e.Name)))
		out = append(out, e.Name...)
		out = append(out, byte(e.DType), byte(len(e.Dims)))
		for _, d := range e.Dims {
			out = binary.LittleEndian.AppendUint32(out, uint32(d))
		}
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		out = append(out, e.Data...)
	}
	return out, nil
}

// Verify checks that the SHA-256 of data is the one listed for name in
// sums, a file in the format of sha256sum ("<hex>  <name>" per line).
func Verify(data []byte, sums, name string) error {
	h := sha256.Sum256(data)
	want := ""
	for _, line := range strings.Split(sums, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == name {
			want = f[0]
		}
	}
	if got := hex.EncodeToString(h[:]); got != want {
		return fmt.Errorf("weights %s: sha256 %s, SHA256SUMS says %q", name, got, want)
	}
	return nil
}
