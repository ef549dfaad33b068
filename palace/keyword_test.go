package palace_test

import (
	"context"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// docCorpus returns real English text to index: the paragraphs of the
// repository's own documentation (always present), plus LoCoMo turns when
// the data is on this machine.
func docCorpus(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"../README.md", "../INTEGRATION.md", "../server/FACES.md", "../dreamer/README.md",
		"../server/httpapi/README.md", "../palace/index/README.md", "../palace/embed/README.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, para := range strings.Split(string(b), "\n\n") {
			if para = strings.TrimSpace(para); len(para) > 20 {
				out = append(out, para)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "locomo10.json")); err == nil {
		// Crude but enough: every "text" value of the file.
		for _, part := range strings.Split(string(b), `"text": "`)[1:] {
			if i := strings.Index(part, `"`); i > 0 && len(out) < 4000 {
				out = append(out, part[:i])
			}
		}
	}
	return out
}

// TestKeywordIndexMatchesFTS5 checks that the in-memory keyword index ranks
// exactly as FTS5's bm25() does: the same drawers in the same order with the
// same scores (to within an ulp or two: Go's math.Log and the C library's
// may round differently), after inserts, edits and forgetting (so dead index slots and
// inactive drawers are exercised).
func TestKeywordIndexMatchesFTS5(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fts, mem := openShared(t, dir, "kw"), openShared(t, dir, "kw")
	texts := docCorpus(t)
	r := rand.New(rand.NewSource(7))
	var ids []string
	add := func(lo, hi int) {
		batch := make([]*palace.Drawer, 0, hi-lo)
		for _, txt := range texts[lo:hi] {
			d := &palace.Drawer{Content: txt, Room: palace.Rooms[r.Intn(3)]}
			if r.Intn(4) == 0 { // some drawers carry keywords (weight 0.5)
				d.Keywords = texts[r.Intn(len(texts))]
			}
			batch = append(batch, d)
		}
		if err := fts.AddMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
		for _, d := range batch {
			ids = append(ids, d.ID)
		}
	}
	half := len(texts) / 2
	add(0, half)
	if err := mem.WarmIndex(ctx); err != nil { // built from the store...
		t.Fatal(err)
	}
	add(half, len(texts)) // ...then caught up
	gone := map[string]bool{}
	for i := 0; i < len(ids)/10; i++ {
		id := ids[r.Intn(len(ids))]
		if gone[id] {
			continue
		}
		if i%2 == 0 {
			gone[id] = true
			if _, err := fts.Forget(ctx, id); err != nil {
				t.Fatal(err)
			}
		} else if _, err := fts.Update(ctx, id, func(d *palace.Drawer) error {
			d.Content = texts[r.Intn(len(texts))] + " edited"
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	queries := []string{"how do I configure the embedder", "Caroline's support group", "don't forget the SQLite WAL",
		"palace drawers rooms", "kill -9 snapshot", "what did Melanie paint last May?", "x"}
	for i := 0; i < 150; i++ {
		words := strings.Fields(texts[r.Intn(len(texts))])
		if len(words) == 0 {
			continue
		}
		from := r.Intn(len(words))
		queries = append(queries, strings.Join(words[from:min(len(words), from+1+r.Intn(8))], " "))
	}
	compared := 0
	for i, q := range queries {
		// Every third query is filtered: to a room, or to every status.
		var f palace.Filter
		switch i % 6 {
		case 1:
			f.Room = palace.Rooms[i%3]
		case 4:
			f.Statuses = []string{"*"}
		}
		want, err := fts.Search(ctx, palace.SearchRequest{Query: q, K: 30, Mode: palace.ModeKeyword, NoAccess: true, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		got, err := mem.Search(ctx, palace.SearchRequest{Query: q, K: 30, Mode: palace.ModeKeyword, NoAccess: true, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%q: %d hits in memory, %d from FTS5", q, len(got), len(want))
			continue
		}
		for i := range want {
			w, g := want[i], got[i]
			if math.Abs(w.BM25-g.BM25) > 1e-12*math.Abs(w.BM25) || w.KeywordRank != g.KeywordRank || w.Drawer.ID != g.Drawer.ID {
				t.Errorf("%q %+v #%d: memory %s bm25 %v rank %d; FTS5 %s bm25 %v rank %d", q, f, i,
					g.Drawer.ID, g.BM25, g.KeywordRank, w.Drawer.ID, w.BM25, w.KeywordRank)
				break
			}
		}
		compared += len(want)
	}
	in, err := mem.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ki := in.KeywordIndex; !ki.Loaded || ki.Drawers != len(ids) || ki.MemorySearches < int64(len(queries))*8/10 {
		t.Fatalf("the in-memory index served too few searches to compare: %+v", ki)
	}
	if in, _ := fts.Info(ctx); in.KeywordIndex.Loaded || in.KeywordIndex.MemorySearches != 0 {
		t.Fatalf("the unwarmed palace used an in-memory index: %+v", in.KeywordIndex)
	}
	if compared < 500 {
		t.Fatalf("only %d hits compared; the corpus is too small to mean anything", compared)
	}
	t.Logf("%d drawers, %d queries, %d ranked hits identical", len(ids), len(queries), compared)
}
