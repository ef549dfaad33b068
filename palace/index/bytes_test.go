package index

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// Both ways of reading and writing snapshot arrays — in place on
// little-endian machines, value by value elsewhere — give the same values.
func TestLittleEndianBothWays(t *testing.T) {
	floats := []float32{0, 1.5, -2.25, math.MaxFloat32, float32(math.Inf(-1))}
	ints := []uint64{0, 1, 1 << 40, math.MaxUint64}
	var want []byte
	for _, x := range floats {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(x))
	}
	wantInts := []byte{}
	for _, x := range ints {
		wantInts = binary.LittleEndian.AppendUint64(wantInts, x)
	}
	defer func(old bool) { littleEndian = old }(littleEndian)
	for _, le := range []bool{true, false} {
		if le && !littleEndian {
			continue // in place needs a little-endian machine
		}
		littleEndian = le
		if got := appendFloats(nil, floats); !bytes.Equal(got, want) {
			t.Fatalf("littleEndian=%v: appendFloats = %x, want %x", le, got, want)
		}
		gotF := make([]float32, len(floats))
		if err := readFloat32s(bytes.NewReader(want), gotF); err != nil {
			t.Fatal(err)
		}
		for i := range floats {
			if gotF[i] != floats[i] {
				t.Fatalf("littleEndian=%v: float %d = %v, want %v", le, i, gotF[i], floats[i])
			}
		}
		gotI := make([]uint64, len(ints))
		if err := readUint64s(bytes.NewReader(wantInts), gotI); err != nil {
			t.Fatal(err)
		}
		for i := range ints {
			if gotI[i] != ints[i] {
				t.Fatalf("littleEndian=%v: uint64 %d = %v, want %v", le, i, gotI[i], ints[i])
			}
		}
		if err := readFloat32s(bytes.NewReader(want[:5]), gotF); err != ErrCorrupt {
			t.Fatalf("littleEndian=%v: short read err = %v, want ErrCorrupt", le, err)
		}
	}
}
