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

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// docCorpus returns real English text to index: the paragraphs of the
// repository's own documentation (always present), plus LoCoMo turns when
// the data is on this machine.
func docCorpus(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"../README.md", "../INTEGRATION.md", "../server/FACES.md", "../dreamer/README.md",
		"../server/httpapi/README.md", "../palace/index/README.md", "../palace/embed/README.md", "RECALL.md"} {
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

// TestKeywordIndexCatchUpMatchesRebuild checks that a keyword index caught
// up from the change log ranks exactly as one built afresh from the store:
// the same drawers in the same order with the same scores, after inserts,
// edits and forgetting (so dead index slots and inactive drawers are
// exercised). (palace/bm25's own tests pin its scores to SQLite FTS5's.)
func TestKeywordIndexCatchUpMatchesRebuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	writer, mem := openShared(t, dir, "kw"), openShared(t, dir, "kw")
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
		if err := writer.AddMany(ctx, batch); err != nil {
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
			if _, _, err := writer.Forget(ctx, id); err != nil {
				t.Fatal(err)
			}
		} else if _, err := writer.Update(ctx, id, func(d *palace.Drawer) error {
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
	fresh := openShared(t, dir, "kw") // built from the store at its first search
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
		want, err := fresh.Search(ctx, palace.SearchRequest{Query: q, K: 30, Mode: palace.ModeKeyword, NoAccess: true, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		got, err := mem.Search(ctx, palace.SearchRequest{Query: q, K: 30, Mode: palace.ModeKeyword, NoAccess: true, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%q: %d hits caught up, %d rebuilt", q, len(got), len(want))
			continue
		}
		for i := range want {
			w, g := want[i], got[i]
			if math.Abs(w.BM25-g.BM25) > 1e-12*math.Abs(w.BM25) || w.KeywordRank != g.KeywordRank || w.Drawer.ID != g.Drawer.ID {
				t.Errorf("%q %+v #%d: caught up %s bm25 %v rank %d; rebuilt %s bm25 %v rank %d", q, f, i,
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
	if compared < 500 {
		t.Fatalf("only %d hits compared; the corpus is too small to mean anything", compared)
	}
	t.Logf("%d drawers, %d queries, %d ranked hits identical", len(ids), len(queries), compared)

}

// A keyword index loaded from its snapshot drops the passages a long
// drawer had when the snapshot was written, even when the drawer has since
// been edited short: the store no longer knows those passages, the
// snapshot does. (It once kept them: the edited drawer still matched words
// it had lost, and they skewed every score.)
func TestKeywordSnapshotForgetsPassagesOfEditedDrawers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	writer, first := openShared(t, dir, "kw"), openShared(t, dir, "kw")
	long := strings.Repeat("the zebrafinch migration runbook covers every step of the cutover ", 30)
	d := &palace.Drawer{Content: long}
	batch := []*palace.Drawer{d}
	for i := range 1000 { // enough drawers for the index to keep a snapshot
		batch = append(batch, &palace.Drawer{Content: fmt.Sprintf("note %d about the cutover window", i)})
	}
	if err := writer.AddMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if err := first.WarmIndex(ctx); err != nil { // writes the snapshot
		t.Fatal(err)
	}
	if _, err := writer.Update(ctx, d.ID, func(x *palace.Drawer) error { x.Content = "the runbook moved to the wiki"; return nil }); err != nil {
		t.Fatal(err)
	}
	loaded := openShared(t, dir, "kw") // the snapshot, then the change log
	hits, err := loaded.Search(ctx, palace.SearchRequest{Query: "zebrafinch", Mode: palace.ModeKeyword, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Fatalf("a word the drawer no longer holds still finds it: %s", hits[0].Drawer.ID)
	}
	if in, _ := loaded.Info(ctx); !in.KeywordIndex.FromSnapshot || in.KeywordIndex.Passages != 0 {
		t.Fatalf("keyword index %+v: want it loaded from the snapshot, with no passages left", in.KeywordIndex)
	}
}

// Searches on warm indexes run while another registry (another process,
// in effect) writes, edits and forgets: nothing races (go test -race), and
// afterwards both indexes have caught up with every change.
func TestWarmIndexesUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
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
			if _, _, err := writer.Forget(ctx, ids[i-5]); err != nil {
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

// A palace's keyword index is saved as a snapshot when a process closes
// it, and the next process loads it (instead of rebuilding) and catches up
// from the store: same answers, long drawers' passages included.
func TestKeywordSnapshotLoadsAndCatchesUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	first := openShared(t, dir, "snap")
	texts := docCorpus(t)
	batch := make([]*palace.Drawer, 0, len(texts))
	for _, txt := range texts {
		batch = append(batch, &palace.Drawer{Content: txt})
	}
	long := strings.Repeat("filler words about nothing in particular ", 200) + " the albatross migrates south"
	batch = append(batch, &palace.Drawer{Content: long})
	if err := first.AddMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if len(batch) < 1000 {
		t.Fatalf("%d drawers: too few for a snapshot to be due", len(batch))
	}
	if err := first.WarmIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	snaps, _ := filepath.Glob(filepath.Join(first.Dir(), "keywords-*.bm25"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots after close: %v", snaps)
	}
	second := openShared(t, dir, "snap")
	// A change made after the snapshot must be caught up.
	late := &palace.Drawer{Content: "a late note about the albatross"}
	if err := second.Add(ctx, late); err != nil {
		t.Fatal(err)
	}
	hits, err := second.Search(ctx, palace.SearchRequest{Query: "albatross", Mode: palace.ModeKeyword, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("albatross: %d hits, want the long drawer and the late note", len(hits))
	}
	in, _ := second.Info(ctx)
	if ki := in.KeywordIndex; !ki.Loaded || !ki.FromSnapshot || ki.Drawers != len(batch)+1 || ki.Passages == 0 {
		t.Fatalf("keyword index after loading the snapshot: %+v", ki)
	}
}

// An earlier release's keyword snapshot (another name: another passage
// window, documents without their date words, with day words where they
// now have their episode's, or without the words their misspellings are
// read as) is never read again; the index built in its place removes it.
func TestKeywordIndexRemovesAnEarlierReleasesSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lex := func(w []byte) bool { return string(w) == "albatross" }
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Lexicon: lex}), "stale")
	if err := p.Add(ctx, &palace.Drawer{Content: "a note about the albatros"}); err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, name := range []string{"keywords-p150-75.bm25", "keywords-p150-75-dated.bm25", "keywords-p150-75-dated-spelt.bm25", "keywords-p150-75-episodes-spelt-standard-idents.bm25", "keywords-p150-75-episodes-spelt-drawn-standard-verbs-idents.bm25", "keywords-p150-75-episodes-spelt-drawn-standard-verbs-idents-nicknames.bm25"} {
		stale = append(stale, filepath.Join(p.Dir(), name))
		if err := os.WriteFile(stale[len(stale)-1], []byte("an earlier release's snapshot"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.WarmIndex(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range stale {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("the earlier snapshot %s is still there (%v)", filepath.Base(f), err)
		}
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "albatross", Mode: palace.ModeKeyword, K: 5})
	if err != nil || len(hits) != 1 {
		t.Fatalf("albatross: %d hits, %v", len(hits), err)
	}
}
