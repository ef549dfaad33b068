package bm25

import (
	"bufio"
	"encoding/binary"
	"unsafe"
)

// Snapshots are little endian. On a little-endian machine (amd64, arm64)
// the index's arrays are written as their bytes and loaded by pointing at
// the file's; elsewhere each value is converted.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// word is a value type the snapshot holds arrays of.
type word interface {
	uint8 | uint32 | uint64 | int64
}

// view returns the count values of T at data[off:]. On a little-endian
// machine they are data's bytes themselves (data is 8-byte aligned, off a
// multiple of 8): capacity equals length, so an append copies them and
// nothing is ever written into data. Elsewhere it is a decoded copy.
func view[T word](data []byte, off, count int) []T {
	if count == 0 {
		return nil
	}
	size := int(unsafe.Sizeof(*new(T)))
	b := data[off : off+size*count]
	if littleEndian {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), count)
	}
	out := make([]T, count)
	le := binary.LittleEndian
	for i := range out {
		p := b[i*size:]
		switch v := any(&out[i]).(type) {
		case *uint8:
			*v = p[0]
		case *uint32:
			*v = le.Uint32(p)
		case *uint64:
			*v = le.Uint64(p)
		case *int64:
			*v = int64(le.Uint64(p))
		}
	}
	return out
}

// writeLE writes v in little-endian order, then zero bytes up to a multiple
// of 8. It returns the bytes written.
func writeLE[T word](w *bufio.Writer, v []T) int {
	size := int(unsafe.Sizeof(*new(T)))
	n := size * len(v)
	if littleEndian || size == 1 {
		if n > 0 {
			w.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), n))
		}
	} else {
		var b [8]byte
		le := binary.LittleEndian
		for _, x := range v {
			switch size {
			case 4:
				le.PutUint32(b[:], uint32(x))
			case 8:
				le.PutUint64(b[:], uint64(x))
			}
			w.Write(b[:size])
		}
	}
	return n + pad(w, n)
}

// pad writes the zero bytes that bring n up to a multiple of 8.
func pad(w *bufio.Writer, n int) int {
	p := pad8(n)
	for range p {
		w.WriteByte(0)
	}
	return p
}

func pad8(n int) int { return (8 - n%8) % 8 }

// unsafeBytes views words as bytes (8-byte aligned memory).
func unsafeBytes(words []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 8*len(words))
}
