//go:build linux

package index_test

import (
	"path/filepath"
	"testing"

	"github.com/loci-mem/loci/palace/index"
)

// A snapshot loaded with its projection answering keeps the codes out of
// the process (they are read from the file), and rows added afterwards,
// one at a time or in a batch, leave them out too: linking a new row into
// the graph reads its neighbours' codes through the mapping, and those
// pages are released again, so a palace that has taken writes since its
// last snapshot does not hold the codes in memory (at a million drawers,
// 1.4 GB more resident memory before this). The graph's lists, which a
// new row's links move to the heap, leave the mapping's memory as well.
func TestAddsLeaveColdCodesOut(t *testing.T) {
	t.Parallel()
	const n, d = 12000, 256
	vecs := topicVecs(41, n+500, d, 60, 0.8)
	f := projFlat(32)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	f.AddBatch(keys, vecs[:n])
	f.Calibrate(vecs[n+400:], 10, index.CalibrationTarget) // builds the projection
	if !index.UseProjection(f, 200) {
		t.Fatal("no projection")
	}
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, f, index.SnapshotMeta{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	b, _, err := index.LoadFlatFile(path, index.FlatConfig{Int8: true, Project: 32, Graph: index.GraphConfig{Min: 1000, M: 12, EfConstruction: 64}})
	if err != nil {
		t.Fatal(err)
	}
	if !index.Mapped(b) || !index.ColdCodes(b) {
		t.Fatalf("mapped %v, cold codes %v: Linux maps a snapshot and reads a projection's candidates from the file", index.Mapped(b), index.ColdCodes(b))
	}
	// None of the codes, nor of the graph's section once its lists have
	// moved to the heap, is in the process's memory, but for the pages at
	// the ends of a range (a tenth, to spare).
	resident := func(when string) {
		t.Helper()
		for _, r := range []struct {
			what string
			read func(*index.Flat) (int, int)
		}{{"codes", index.ResidentCodesKB}, {"graph", index.ResidentGraphKB}} {
			kb, size := r.read(b)
			if kb < 0 || size == 0 {
				t.Fatalf("%s: the %s' resident size cannot be read (%d KB of %d)", when, r.what, kb, size)
			}
			if kb > size/10 {
				t.Errorf("%s: %d KB of the %d KB of the %s resident", when, kb, size, r.what)
			}
		}
	}
	resident("loaded")
	for i, v := range vecs[n : n+100] {
		b.Add(uint64(n+i), v)
	}
	resident("after 100 adds")
	var bk []uint64
	for i := range 300 {
		bk = append(bk, uint64(n+100+i))
	}
	b.AddBatch(bk, vecs[n+100:n+400])
	resident("after a batch of 300")
	for i, v := range vecs[n : n+400] {
		if got := b.Search(v, 1, nil); len(got) != 1 || got[0].Key != uint64(n+i) {
			t.Fatalf("row %d added after loading not found by its vector: %v", n+i, got)
		}
	}
}
