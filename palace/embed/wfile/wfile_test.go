package wfile_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/loci-mem/loci/palace/embed/wfile"
)

func TestRoundTrip(t *testing.T) {
	var w wfile.Writer
	w.AddF32("a", []int{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	w.AddF16("b", []int{3}, []float32{0.5, -2, 65504})
	w.Add("c", wfile.Bytes, []int{5}, []byte("hello"))
	w.Add("d", wfile.I8, []int{2}, []byte{0x80, 0x7f})
	b, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := w.Bytes()
	if !bytes.Equal(b, b2) {
		t.Fatal("serialisation not deterministic")
	}
	f, err := wfile.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Get("a")
	av, _ := a.Float32s()
	if av[5] != 6 || len(av) != 6 {
		t.Fatalf("a = %v", av)
	}
	bb, _ := f.Get("b")
	bv, _ := bb.Float32s()
	if bv[0] != 0.5 || bv[1] != -2 || bv[2] != 65504 {
		t.Fatalf("b = %v", bv)
	}
	c, _ := f.Get("c")
	if string(c.Data) != "hello" {
		t.Fatalf("c = %q", c.Data)
	}
	if _, err := f.Get("zz"); err == nil {
		t.Fatal("missing entry: want error")
	}
	if _, err := wfile.Parse(b[:len(b)-1]); !errors.Is(err, wfile.ErrFormat) {
		t.Fatalf("truncated: err = %v", err)
	}
}

func TestF16(t *testing.T) {
	// Every binary16 value survives widening and narrowing.
	for h := 0; h < 1<<16; h++ {
		f := wfile.F16ToF32(uint16(h))
		if f != f { // NaN
			continue
		}
		if back := wfile.F32ToF16(f); back != uint16(h) {
			t.Fatalf("h=%#04x -> %v -> %#04x", h, f, back)
		}
	}
	cases := []struct {
		in   float32
		want uint16
	}{
		{1, 0x3c00},
		{1 + 1.0/2048, 0x3c00},              // tie, rounds to even (down)
		{1 + 3.0/2048, 0x3c02},              // tie, rounds to even (up)
		{65520, 0x7c00},                     // rounds to Inf
		{float32(math.Pow(2, -25)), 0x0000}, // tie to even zero
		{float32(math.Pow(2, -24)), 0x0001}, // smallest subnormal
	}
	for _, c := range cases {
		if got := wfile.F32ToF16(c.in); got != c.want {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
}

func TestVerify(t *testing.T) {
	sums := "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  a.txt\n"
	if err := wfile.Verify([]byte("hello\n"), sums, "a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := wfile.Verify([]byte("hello!\n"), sums, "a.txt"); err == nil {
		t.Fatal("changed data: want an error")
	}
	if err := wfile.Verify([]byte("hello\n"), sums, "b.txt"); err == nil {
		t.Fatal("unlisted file: want an error")
	}
}
