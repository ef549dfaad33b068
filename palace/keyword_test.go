package palace_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// Searches on warm indexes run while another registry (another process,
// in effect) writes, edits and forgets: nothing races (go test -race), and
// afterwards both indexes have caught up with every change.
func TestWarmIndexesUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	reader, writer := openShared(t, dir, "busy"), openShared(t, dir, "busy")
	if err := reader.WarmIndex(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				f := palace.Filter{}
				if i%3 == 1 {
					f.Room = "Backend"
				}
				if _, err := reader.Search(ctx, palace.SearchRequest{Query: fmt.Sprintf("note %d zebra", i%50), Filter: f}); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	var ids []string
	for i := 0; i < 150; i++ {
		d := &palace.Drawer{Content: fmt.Sprintf("note %d about zebra number %d", i, i), Room: palace.Rooms[i%3]}
		if err := writer.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
		if i%10 == 9 {
			if _, err := writer.Forget(ctx, ids[i-5]); err != nil {
				t.Fatal(err)
			}
			if _, err := writer.Update(ctx, ids[i-3], func(d *palace.Drawer) error {
				d.Content = "quagga " + d.Content
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	forgotten := map[string]bool{}
	for i := 9; i < 150; i += 10 {
		forgotten[ids[i-5]] = true
	}
	for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeVector} {
		hits, err := reader.Search(ctx, palace.SearchRequest{Query: "quagga", K: 100, Mode: mode, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if forgotten[h.Drawer.ID] {
				t.Fatalf("%s search returned a forgotten drawer", mode)
			}
		}
		if mode == palace.ModeKeyword && len(hits) != 15 {
			t.Fatalf("keyword search for the edited word found %d drawers, want 15", len(hits))
		}
	}
	in, err := reader.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if in.KeywordIndex.Drawers != 150 || in.KeywordIndex.MemorySearches == 0 || in.Index.Vectors != 150-15 {
		t.Fatalf("indexes did not catch up: keyword %+v, vectors %+v", in.KeywordIndex, in.Index)
	}
}

// In a long-running process the first search of a palace starts the
// keyword index build and is answered by FTS5; later searches use the
// index. A short-lived process never builds it.
func TestLongLivedBuildsKeywordIndexAfterFirstSearch(t *testing.T) {
	ctx := context.Background()
	for _, long := range []bool{true, false} {
		reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir(), LongLived: long})
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Close()
		p, err := reg.OpenOrCreate(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		if err := p.AddMany(ctx, []*palace.Drawer{{Content: "the zebra crossed the road"}, {Content: "a quiet afternoon"}}); err != nil {
			t.Fatal(err)
		}
		search := func() palace.KeywordIndexInfo {
			t.Helper()
			hits, err := p.Search(ctx, palace.SearchRequest{Query: "zebra", Mode: palace.ModeKeyword})
			if err != nil || len(hits) != 1 {
				t.Fatalf("long-lived=%v: %d hits, %v", long, len(hits), err)
			}
			in, err := p.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return in.KeywordIndex
		}
		if ki := search(); ki.FTS5Searches != 1 || ki.MemorySearches != 0 {
			t.Fatalf("long-lived=%v: first search %+v, want it answered by FTS5", long, ki)
		}
		deadline := time.Now().Add(10 * time.Second)
		for long {
			in, _ := p.Info(ctx)
			if in.KeywordIndex.Loaded {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the keyword index was never built")
			}
			time.Sleep(5 * time.Millisecond)
		}
		ki := search()
		if long && ki.MemorySearches != 1 {
			t.Fatalf("after the build: %+v, want the second search in memory", ki)
		}
		if !long && (ki.Loaded || ki.MemorySearches != 0) {
			t.Fatalf("short-lived process built the index: %+v", ki)
		}
	}
}
