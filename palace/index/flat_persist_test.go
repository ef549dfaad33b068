package index_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/loci-mem/loci/palace/index"
)

func TestFlatSnapshotRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	a := index.NewFlat(oldDefault)
	vecs := map[uint64][]float32{}
	for k := uint64(1); k <= 300; k++ {
		v := make([]float32, 24)
		var n float32
		for i := range v {
			v[i] = float32(r.NormFloat64())
			n += v[i] * v[i]
		}
		vecs[k] = v
		a.Add(k, v)
	}
	for k := uint64(1); k <= 300; k += 3 {
		a.Remove(k)
		delete(vecs, k)
	}
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, a, index.SnapshotMeta{Model: "m-1", Seq: 42}); err != nil {
		t.Fatal(err)
	}
	b, meta, err := index.LoadFlatFile(path, oldDefault)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Model != "m-1" || meta.Seq != 42 || b.Len() != len(vecs) || b.Dim() != 24 {
		t.Fatalf("loaded %+v len %d dim %d, want m-1/42/%d/24", meta, b.Len(), b.Dim(), len(vecs))
	}
	for k, v := range vecs {
		res := b.SearchExact(v, 1, nil)
		if len(res) != 1 || res[0].Key != k {
			t.Fatalf("key %d: nearest is %+v", k, res)
		}
	}
	// Every single-byte corruption or truncation is detected.
	raw, _ := os.ReadFile(path)
	for _, cut := range []int{len(raw) - 1, len(raw) / 2, 10} {
		os.WriteFile(path, raw[:cut], 0o600)
		if _, _, err := index.LoadFlatFile(path, oldDefault); !errors.Is(err, index.ErrCorrupt) {
			t.Fatalf("truncated to %d: err = %v, want ErrCorrupt", cut, err)
		}
	}
	bad := append([]byte(nil), raw...)
	bad[len(bad)/2] ^= 0x40
	os.WriteFile(path, bad, 0o600)
	if _, _, err := index.LoadFlatFile(path, oldDefault); !errors.Is(err, index.ErrCorrupt) {
		t.Fatalf("flipped bit: err = %v, want ErrCorrupt", err)
	}
}

// randomVecs returns n random unit vectors of dim floats under keys 1..n.
func randomVecs(seed int64, n, dim int) map[uint64][]float32 {
	r := rand.New(rand.NewSource(seed))
	out := map[uint64][]float32{}
	for k := 1; k <= n; k++ {
		v := make([]float32, dim)
		var n float64
		for i := range v {
			v[i] = float32(r.NormFloat64())
			n += float64(v[i]) * float64(v[i])
		}
		for i := range v { // unit length: the default metric is cosine
			v[i] /= float32(math.Sqrt(n))
		}
		out[uint64(k)] = v
	}
	return out
}

// A loaded snapshot answers exactly as the index that wrote it, keeps
// accepting writes, and loads whatever configuration wrote it as long as
// float32 rows are in the file.
func TestFlatSnapshotV2AnswersAsTheOriginal(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(map[bool]string{true: "mapped", false: "read"}[mapped], func(t *testing.T) {
			defer index.SetMapSnapshots(index.SetMapSnapshots(mapped))
			testSnapshotV2(t, mapped)
		})
	}
}

func testSnapshotV2(t *testing.T, mapped bool) {
	const dim = 40
	vecs := randomVecs(3, 9000, dim) // more than two 4096-row blocks
	a := index.NewFlat(oldDefault)
	for k := uint64(1); k <= 9000; k++ {
		a.Add(k, vecs[k])
	}
	for k := uint64(5); k <= 9000; k += 7 {
		a.Remove(k)
	}
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, a, index.SnapshotMeta{Model: "m", Seq: 9}); err != nil {
		t.Fatal(err)
	}
	b, _, err := index.LoadFlatFile(path, oldDefault)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != a.Len() {
		t.Fatalf("loaded %d vectors, saved %d", b.Len(), a.Len())
	}
	if index.Mapped(b) != (mapped && runtime.GOOS != "windows") {
		t.Fatalf("mapped = %v, want %v", index.Mapped(b), mapped)
	}
	queries := randomVecs(4, 20, dim)
	same := func(x, y *index.Flat) {
		t.Helper()
		for _, q := range queries {
			rx, ry := x.Search(q, 15, nil), y.Search(q, 15, nil)
			if len(rx) != len(ry) {
				t.Fatalf("%d results, want %d", len(ry), len(rx))
			}
			for i := range rx {
				if rx[i] != ry[i] {
					t.Fatalf("result %d: %+v, want %+v", i, ry[i], rx[i])
				}
			}
		}
	}
	same(a, b)
	// Writes after a load: new keys in the last block and beyond it.
	more := randomVecs(5, 5000, dim)
	for k := uint64(1); k <= 5000; k++ {
		a.Add(100000+k, more[k])
		b.Add(100000+k, more[k])
	}
	b.Remove(2)
	a.Remove(2)
	same(a, b)
	// Rows rewritten in place (free-list reuse) and a save of the loaded
	// index: the mapped file is never written, the new one is complete.
	for k := uint64(100001); k <= 100300; k++ {
		a.Remove(k)
		b.Remove(k)
	}
	for k := uint64(1); k <= 300; k++ {
		a.Add(200000+k, more[k])
		b.Add(200000+k, more[k])
	}
	same(a, b)
	before, _ := os.ReadFile(path)
	path2 := filepath.Join(t.TempDir(), "again.idx")
	if err := index.SaveFlatFile(path2, b, index.SnapshotMeta{Model: "m", Seq: 10}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("writing to a loaded index changed its snapshot file")
	}
	c2, _, err := index.LoadFlatFile(path2, oldDefault)
	if err != nil {
		t.Fatal(err)
	}
	same(a, c2)
	// Compaction moves every row off the mapping.
	for k := uint64(1); k <= 9000; k++ {
		a.Remove(k)
		b.Remove(k)
	}
	same(a, b)

	// A float32-only index wrote it: loaded into the default (int8 +
	// float32) configuration row by row.
	fl := index.NewFlat(index.FlatConfig{})
	for k := uint64(1); k <= 500; k++ {
		fl.Add(k, vecs[k])
	}
	if err := index.SaveFlatFile(path, fl, index.SnapshotMeta{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	c, _, err := index.LoadFlatFile(path, oldDefault)
	if err != nil || c.Len() != 500 {
		t.Fatalf("float32-only snapshot: %v, %d vectors", err, c.Len())
	}
	if res := c.SearchExact(vecs[77], 1, nil); len(res) != 1 || res[0].Key != 77 {
		t.Fatalf("float32-only snapshot: nearest of key 77 is %+v", res)
	}
	// An int8-only index wrote it: no float32 rows to rebuild from.
	i8 := index.NewFlat(index.FlatConfig{Int8: true})
	i8.Add(1, vecs[1])
	if err := index.SaveFlatFile(path, i8, index.SnapshotMeta{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := index.LoadFlatFile(path, oldDefault); !errors.Is(err, index.ErrVersion) {
		t.Fatalf("int8-only snapshot into the default configuration: err = %v, want ErrVersion", err)
	}
}

// Version 1 files (rows of key and float32 vector) written before version
// 2 still load; an unknown version does not.
func TestFlatSnapshotReadsVersion1(t *testing.T) {
	const dim = 8
	vecs := randomVecs(6, 50, dim)
	le := binary.LittleEndian
	file := func(version uint32, keys []uint64) []byte {
		b := []byte("LOCIFLAT")
		b = le.AppendUint32(b, version)
		b = le.AppendUint32(b, dim)
		b = le.AppendUint64(b, 77)
		b = le.AppendUint16(b, 2)
		b = append(b, "m1"...)
		b = le.AppendUint64(b, uint64(len(keys)))
		for _, k := range keys {
			b = le.AppendUint64(b, k)
			for _, x := range vecs[k] {
				b = le.AppendUint32(b, math.Float32bits(x))
			}
		}
		return le.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	}
	keys := make([]uint64, 0, 50)
	for k := uint64(1); k <= 50; k++ {
		keys = append(keys, k)
	}
	path := filepath.Join(t.TempDir(), "v1.idx")
	os.WriteFile(path, file(1, keys), 0o600)
	a, meta, err := index.LoadFlatFile(path, oldDefault)
	if err != nil || meta.Seq != 77 || meta.Model != "m1" || a.Len() != 50 {
		t.Fatalf("version 1: %v %+v %d vectors", err, meta, a.Len())
	}
	for k, v := range vecs {
		if res := a.SearchExact(v, 1, nil); len(res) != 1 || res[0].Key != k {
			t.Fatalf("version 1: nearest of key %d is %+v", k, res)
		}
	}
	os.WriteFile(path, file(3, keys), 0o600)
	if _, _, err := index.LoadFlatFile(path, oldDefault); !errors.Is(err, index.ErrVersion) {
		t.Fatalf("version 3: err = %v, want ErrVersion", err)
	}
}

// oldDefault is the configuration the palace used before it re-ranked
// from the store: int8 codes and float32 rows.
var oldDefault = index.FlatConfig{Int8: true, Rerank: true}
