package index

import (
	"encoding/binary"
	"io"
	"math"
	"unsafe"
)

// Snapshots are little endian. On a little-endian machine (amd64, arm64)
// the index's arrays are read and written as bytes in place; elsewhere
// each value is converted.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func int8Bytes(v []int8) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

func appendFloats(dst []byte, v []float32) []byte {
	if littleEndian {
		return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))...)
	}
	for _, x := range v {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return dst
}

// readFloat32s fills dst from r; a short read is ErrCorrupt.
func readFloat32s(r io.Reader, dst []float32) error { return readLE(r, dst) }

// readUint64s fills dst from r; a short read is ErrCorrupt.
func readUint64s(r io.Reader, dst []uint64) error { return readLE(r, dst) }

// readLE fills dst with little-endian values from r: as raw bytes in
// place on a little-endian machine, else one value at a time.
func readLE[T float32 | uint64](r io.Reader, dst []T) error {
	size := int(unsafe.Sizeof(*new(T)))
	if littleEndian {
		if _, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), size*len(dst))); err != nil {
			return ErrCorrupt
		}
		return nil
	}
	b := make([]byte, size)
	for i := range dst {
		if _, err := io.ReadFull(r, b); err != nil {
			return ErrCorrupt
		}
		switch p := any(&dst[i]).(type) {
		case *float32:
			*p = math.Float32frombits(binary.LittleEndian.Uint32(b))
		case *uint64:
			*p = binary.LittleEndian.Uint64(b)
		}
	}
	return nil
}
