package bm25

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// twin applies the same edits to an index and to the reference documents.
type twin struct {
	r    *rand.Rand
	ref  map[int64]refDoc
	puts int // documents put with new text
}

// rareWords grow the dictionary past the common vocabulary, so that edits
// after a load add terms to a mapped dictionary.
func (tw *twin) text(n int) string {
	s := randomText(tw.r, n)
	if tw.r.Intn(3) == 0 {
		s += fmt.Sprintf(" rare%dword", tw.r.Intn(5000))
	}
	return s
}

func (tw *twin) put(key int64, xs ...*Index) {
	d := refDoc{fields: []string{tw.text(1 + tw.r.Intn(12)), tw.text(tw.r.Intn(4))}, active: tw.r.Intn(5) > 0}
	tw.ref[key] = d
	tw.puts++
	for _, x := range xs {
		x.Put(key, d.active, d.fields...)
	}
}

func (tw *twin) remove(key int64, xs ...*Index) {
	delete(tw.ref, key)
	for _, x := range xs {
		x.Remove(key)
	}
}

func (tw *twin) setActive(key int64, xs ...*Index) {
	d, ok := tw.ref[key]
	if !ok {
		return
	}
	d.active = !d.active
	tw.ref[key] = d
	for _, x := range xs {
		x.SetActive(key, d.active)
	}
}

// edit makes n random edits: new documents, replacements, unchanged
// re-puts, activity changes and removals.
func (tw *twin) edit(n int, maxKey int64, xs ...*Index) {
	for range n {
		key := 1 + tw.r.Int63n(maxKey)
		switch tw.r.Intn(10) {
		case 0, 1:
			tw.remove(key, xs...)
		case 2:
			tw.setActive(key, xs...)
		case 3:
			if d, ok := tw.ref[key]; ok {
				for _, x := range xs {
					x.Put(key, d.active, d.fields...)
				}
			}
		default:
			tw.put(key, xs...)
		}
	}
}

// sameRanking checks that every index ranks random queries exactly as the
// reference does.
func (tw *twin) sameRanking(t *testing.T, label string, xs ...*Index) {
	t.Helper()
	ref := newRefCorpus(tw.ref)
	for q := 0; q < 60; q++ {
		query := randomQuery(tw.r)
		active := q%2 == 0
		want := ref.search([]float64{1, 0.5}, query, 20, active)
		for i, x := range xs {
			if x.Len() != len(tw.ref) {
				t.Fatalf("%s: index %d holds %d documents, want %d", label, i, x.Len(), len(tw.ref))
			}
			sameHits(t, fmt.Sprintf("%s: index %d, %q active=%v", label, i, query, active), x.Search(query, 20, active, nil), want)
		}
	}
}

// withMapping runs fn with snapshots mapped and with them read.
func withMapping(t *testing.T, fn func(t *testing.T, mapped bool)) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			old := mapSnapshots
			mapSnapshots = mapped
			t.Cleanup(func() { mapSnapshots = old })
			fn(t, mapped)
		})
	}
}

// TestSnapshotThenEdits saves an index in each state it can be in (trimmed,
// with tails, with dead slots), loads it, edits the loaded index and one
// that never left memory alike, and requires both to rank every query as
// the reference does: keys, order and scores. Enough edits follow the
// load to compact the lists that came from the file.
func TestSnapshotThenEdits(t *testing.T) {
	withMapping(t, func(t *testing.T, mapped bool) {
		for _, state := range []string{"trimmed", "tails", "dead slots"} {
			t.Run(state, func(t *testing.T) {
				tw := &twin{r: rand.New(rand.NewSource(11)), ref: map[int64]refDoc{}}
				scratch := New(1, 0.5)
				const n = 3000
				for key := int64(1); key <= n; key++ {
					tw.put(key, scratch)
				}
				switch state {
				case "trimmed":
					scratch.Trim()
				case "tails":
					scratch.Trim()
					tw.edit(300, n+200, scratch)
				case "dead slots":
					tw.edit(600, n, scratch)
					if scratch.dead == 0 {
						t.Fatal("no dead slot to save")
					}
				}
				path := filepath.Join(t.TempDir(), "kw.bm25")
				if err := scratch.SaveFile(path, 42); err != nil {
					t.Fatal(err)
				}
				loaded, seq, err := LoadFile(path, 1, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				if seq != 42 {
					t.Fatalf("seq %d, want 42", seq)
				}
				wantMap := mapped && runtime.GOOS != "windows" && littleEndian
				if (loaded.snap != nil) != wantMap {
					t.Fatalf("mapped: %v, want %v", loaded.snap != nil, wantMap)
				}
				if loaded.dead != 0 {
					t.Fatalf("a loaded index has %d dead slots", loaded.dead)
				}
				tw.sameRanking(t, "loaded", loaded, scratch)

				tw.edit(400, n+400, loaded, scratch)
				tw.sameRanking(t, "after a few edits", loaded, scratch)
				slots, puts := len(loaded.keys), tw.puts
				tw.edit(4000, n+400, loaded, scratch)
				if len(loaded.keys) >= slots+tw.puts-puts {
					t.Fatal("the edits did not compact the loaded index")
				}
				// Every array has moved to memory (new terms and keys,
				// compaction): the snapshot is unmapped, and what follows
				// would crash if anything still pointed into it.
				if loaded.snap != nil {
					t.Fatal("the snapshot is still mapped after every array moved")
				}
				tw.sameRanking(t, "after compaction", loaded, scratch)
				loaded.Trim()
				tw.sameRanking(t, "after Trim", loaded, scratch)

				// The edited index saves and loads again.
				if err := loaded.SaveFile(path, 43); err != nil {
					t.Fatal(err)
				}
				again, seq, err := LoadFile(path, 1, 0.5)
				if err != nil || seq != 43 {
					t.Fatalf("second load: seq %d, %v", seq, err)
				}
				tw.sameRanking(t, "loaded twice", again, loaded)
			})
		}
	})
}

func TestSnapshotEmpty(t *testing.T) {
	withMapping(t, func(t *testing.T, _ bool) {
		path := filepath.Join(t.TempDir(), "empty.bm25")
		if err := New(1, 0.5).SaveFile(path, 0); err != nil {
			t.Fatal(err)
		}
		x, _, err := LoadFile(path, 1, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if hits := x.Search([]string{"anything"}, 5, false, nil); hits != nil {
			t.Fatalf("empty index returned %v", hits)
		}
		x.Put(7, true, "now something")
		if hits := x.Search([]string{"something"}, 5, false, nil); len(hits) != 1 || hits[0].Key != 7 {
			t.Fatalf("after a put: %v", hits)
		}
	})
}

// savedIndex returns the bytes of a small snapshot.
func savedIndex(t *testing.T) []byte {
	t.Helper()
	tw := &twin{r: rand.New(rand.NewSource(5)), ref: map[int64]refDoc{}}
	x := New(1, 0.5)
	for key := int64(1); key <= 30; key++ {
		tw.put(key, x)
	}
	path := filepath.Join(t.TempDir(), "small.bm25")
	if err := x.SaveFile(path, 9); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// loader loads snapshots written from bytes, in one directory.
type loader struct {
	t   *testing.T
	dir string
}

func newLoader(t *testing.T) *loader { return &loader{t: t, dir: t.TempDir()} }

// load writes data to a file (renamed over the last, as SaveFile does: a
// file that may be mapped is never rewritten in place) and loads it.
func (l *loader) load(data []byte, weights ...float64) error {
	l.t.Helper()
	tmp, path := filepath.Join(l.dir, "tmp"), filepath.Join(l.dir, "x.bm25")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		l.t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		l.t.Fatal(err)
	}
	_, _, err := LoadFile(path, weights...)
	return err
}

// TestSnapshotDamage requires every truncation, every flipped byte and any
// trailing garbage to be reported as ErrCorrupt, and other versions as
// ErrVersion, on both loading paths.
func TestSnapshotDamage(t *testing.T) {
	data := savedIndex(t)
	if err := newLoader(t).load(data, 1, 0.5); err != nil {
		t.Fatalf("intact snapshot: %v", err)
	}
	withMapping(t, func(t *testing.T, _ bool) {
		l := newLoader(t)
		for n := 0; n < len(data); n++ {
			if err := l.load(data[:n], 1, 0.5); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("truncated to %d of %d bytes: %v", n, len(data), err)
			}
		}
		for i := range data {
			bad := append([]byte(nil), data...)
			bad[i] ^= 1 << (i % 8)
			if err := l.load(bad, 1, 0.5); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d of %d flipped: %v", i, len(data), err)
			}
		}
		for _, tail := range [][]byte{{0}, []byte("garbage"), make([]byte, 4096)} {
			if err := l.load(append(append([]byte(nil), data...), tail...), 1, 0.5); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%d trailing bytes: %v", len(tail), err)
			}
		}
	})

	// Well-formed files of another version, tokenizer or field count.
	l := newLoader(t)
	resum := func(b []byte) []byte {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
		return b
	}
	for _, c := range []struct {
		name    string
		at      int
		weights []float64
	}{
		{"format", 8, []float64{1, 0.5}},
		{"tokenizer", 12, []float64{1, 0.5}},
		{"fields", -1, []float64{1}},
	} {
		bad := append([]byte(nil), data...)
		if c.at >= 0 {
			binary.LittleEndian.PutUint32(bad[c.at:], binary.LittleEndian.Uint32(bad[c.at:])+1)
		}
		if err := l.load(resum(bad), c.weights...); !errors.Is(err, ErrVersion) {
			t.Errorf("another %s: %v", c.name, err)
		}
	}
	// A well-formed checksum over arrays that disagree with the header.
	bad := append([]byte(nil), data...)
	binary.LittleEndian.PutUint64(bad[32:], binary.LittleEndian.Uint64(bad[32:])+1) // docs
	if err := l.load(resum(bad), 1, 0.5); !errors.Is(err, ErrCorrupt) {
		t.Errorf("document count off by one: %v", err)
	}
	if _, _, err := LoadFile(filepath.Join(t.TempDir(), "missing.bm25"), 1, 0.5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestSaveWhileWriting saves while other goroutines put, remove and search
// (run with -race): every snapshot loads, and holds a consistent index.
func TestSaveWhileWriting(t *testing.T) {
	t.Parallel()
	x := New(1, 0.5)
	r := rand.New(rand.NewSource(8))
	for key := int64(1); key <= 500; key++ {
		x.Put(key, true, randomText(r, 8))
	}
	path := filepath.Join(t.TempDir(), "busy.bm25")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := 1 + r.Int63n(800)
				switch {
				case g == 0 && i%5 == 0:
					x.Remove(key)
				case g == 0:
					x.Put(key, true, randomText(r, 8))
				default:
					x.Search(randomQuery(r), 10, true, nil)
				}
			}
		}()
	}
	for seq := int64(1); seq <= 20; seq++ {
		if err := x.SaveFile(path, seq); err != nil {
			t.Fatal(err)
		}
		y, got, err := LoadFile(path, 1, 0.5)
		if err != nil || got != seq {
			t.Fatalf("snapshot %d: seq %d, %v", seq, got, err)
		}
		if n := y.Len(); n < 400 || n > 800 {
			t.Fatalf("snapshot %d holds %d documents", seq, n)
		}
		y.Put(1000, true, "after the load")
	}
	close(stop)
	wg.Wait()
}
