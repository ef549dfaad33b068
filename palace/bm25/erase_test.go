package bm25

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestEraseDropsTheWordsOfRemovedDocuments removes and replaces documents
// (in an index that never left memory, and in one loaded from its
// snapshot), erases, and requires that the dictionary and a snapshot
// written afterwards hold exactly the words of the documents left, that
// both rank every query as the reference does, and that they go on doing
// so through further edits (which add terms to the rebuilt dictionary)
// and another save and load.
func TestEraseDropsTheWordsOfRemovedDocuments(t *testing.T) {
	withMapping(t, func(t *testing.T, mapped bool) {
		dir := t.TempDir()
		tw := &twin{r: rand.New(rand.NewSource(5)), ref: map[int64]refDoc{}}
		mem := New(1, 0.5)
		const n = 2000
		for key := int64(1); key <= n; key++ {
			tw.put(key, mem)
		}
		path := filepath.Join(dir, "kw.bm25")
		if err := mem.SaveFile(path, 1); err != nil {
			t.Fatal(err)
		}
		loaded, _, err := LoadFile(path, 1, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		// A word only the removed documents said, and one a kept
		// document says too.
		mem.Put(n+1, true, "the swordfishsecret is here", "")
		loaded.Put(n+1, true, "the swordfishsecret is here", "")
		mem.Put(n+2, true, "keptword stays", "")
		loaded.Put(n+2, true, "keptword stays", "")
		mem.Put(n+3, true, "keptword again", "")
		loaded.Put(n+3, true, "keptword again", "")
		tw.ref[n+2] = refDoc{fields: []string{"keptword stays", ""}, active: true}
		tw.edit(1500, n, mem, loaded)
		mem.Remove(n + 1)
		loaded.Remove(n + 1)
		mem.Remove(n + 3)
		loaded.Remove(n + 3)

		for i, x := range []*Index{mem, loaded} {
			before := x.Terms()
			dropped := x.Erase()
			if dropped == 0 || x.Terms() != before-dropped {
				t.Fatalf("index %d: Erase dropped %d terms, %d → %d", i, dropped, before, x.Terms())
			}
			if x.dead != 0 || len(x.keys) != len(tw.ref) {
				t.Fatalf("index %d: %d dead slots and %d slots after Erase, want 0 and %d", i, x.dead, len(x.keys), len(tw.ref))
			}
			want := tw.terms(x)
			if x.Terms() != len(want) {
				t.Fatalf("index %d: %d terms after Erase, the documents left hold %d", i, x.Terms(), len(want))
			}
			for term := range want {
				if _, _, ok := x.termID(term); !ok {
					t.Fatalf("index %d: %q, a word of a document left, is gone", i, term)
				}
			}
			if _, _, ok := x.termID("swordfishsecret"); ok {
				t.Fatalf("index %d: a removed document's word kept after Erase", i)
			}
			if x.Erase() != 0 {
				t.Fatalf("index %d: a second Erase dropped terms", i)
			}
		}
		tw.sameRanking(t, "after Erase", mem, loaded)

		saved := filepath.Join(dir, "erased.bm25")
		if err := loaded.SaveFile(saved, 2); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(saved)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("swordfishsecret")) {
			t.Fatal("the snapshot written after Erase holds a removed document's word")
		}
		if !bytes.Contains(raw, []byte("keptword")) {
			t.Fatal("the snapshot written after Erase lost a word a document left still says")
		}
		reloaded, _, err := LoadFile(saved, 1, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		tw.edit(1500, n+500, mem, loaded, reloaded)
		tw.sameRanking(t, "edited after Erase", mem, loaded, reloaded)
	})
}

// terms returns the analysed terms of the reference's documents, as x
// analyses them.
func (tw *twin) terms(x *Index) map[string]bool {
	out := map[string]bool{}
	for _, d := range tw.ref {
		for _, term := range x.Analyze(d.fields...).terms {
			out[term] = true
		}
	}
	return out
}

// BenchmarkErase measures Erase on an index of 200,000 documents of which
// one was removed: the cost a purge adds to each process's next search.
func BenchmarkErase(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x := New(1, 0.5)
	for key := int64(1); key <= 200_000; key++ {
		x.Put(key, true, randomText(r, 20)+fmt.Sprintf(" w%d", key), randomText(r, 5))
	}
	x.Trim()
	b.ResetTimer()
	for i := range b.N {
		x.Remove(int64(1 + i%200_000))
		x.Erase()
	}
}
