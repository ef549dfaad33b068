package palace_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A purged memory leaves the disk: its text, tags and meta, the words its
// text gave the keyword index, the atomic facts extracted from it, and
// its history, in every file of the data dir, though another process had
// the palace open with both indexes built from snapshots holding them.
// Forgotten first, it can no longer be brought back; the memories around
// it are still found by both rankers.
func TestPurgeErasesFromDisk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	reg := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir})
	p := palacetest.MustCreate(t, reg, "p")
	// Enough drawers that both indexes write snapshots.
	var ds []*palace.Drawer
	for i := range 1100 {
		ds = append(ds, &palace.Drawer{Content: fmt.Sprintf("garden note %d about tomatoes and basil row %d", i, i%37)})
	}
	if err := p.AddMany(ctx, ds); err != nil {
		t.Fatal(err)
	}
	const secret, tagged, told = "quokkazanzibar", "tagquokka", "kestrelmarmot"
	x := palacetest.MustAdd(t, p, &palace.Drawer{Content: "the cabin wifi key is " + secret + " written on the fridge",
		Kind: palace.KindEpisode, Tags: []string{tagged}, Meta: map[string]any{"note": "from " + secret}})
	fact := palacetest.MustAdd(t, p, &palace.Drawer{Content: "the cabin wifi key is " + told, Kind: palace.KindAtomicFact,
		ParentID: x.ID})
	hits := func(p *palace.Palace, q string, mode palace.Mode) []*palace.Drawer {
		t.Helper()
		hs, err := p.Search(ctx, palace.SearchRequest{Query: q, K: 5, Mode: mode, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []*palace.Drawer
		for _, h := range hs {
			out = append(out, h.Drawer)
		}
		return out
	}
	if got := hits(p, secret, palace.ModeHybrid); len(got) == 0 || got[0].ID != x.ID {
		t.Fatalf("the memory is not found before the purge: %v", got)
	}
	// A process whose indexes were built before any snapshot existed, so
	// that its own are due; it saves them after the purge without having
	// searched since.
	reg4 := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir})
	p4, err := reg4.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got := hits(p4, secret, palace.ModeHybrid); len(got) == 0 {
		t.Fatal("a late saver does not find the memory")
	}
	if err := p.SaveIndex(ctx); err != nil {
		t.Fatal(err)
	}
	// Another process, its indexes loaded from the snapshots.
	reg2 := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir})
	p2, err := reg2.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got := hits(p2, secret, palace.ModeHybrid); len(got) == 0 || got[0].ID != x.ID {
		t.Fatalf("the other process does not find the memory: %v", got)
	}
	onDisk := func() []string { return palacetest.FilesHolding(t, dir, secret, tagged, told) }
	if held := onDisk(); len(held) == 0 {
		t.Fatal("no file holds the memory before the purge: the check below could not fail")
	}
	vectorsFile := filepath.Join(dir, "palaces", "p", "vectors.idx")
	oldVectors, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	keywordFiles, _ := filepath.Glob(filepath.Join(dir, "palaces", "p", "keywords*.bm25"))
	if len(keywordFiles) != 1 {
		t.Fatalf("keyword snapshots: %q", keywordFiles)
	}
	oldKeywords, err := os.ReadFile(keywordFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	indexed := func(p *palace.Palace, what string) {
		t.Helper()
		keys, err := palace.IndexedVectorKeys(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) < 1000 {
			t.Fatalf("%s: %d vectors indexed", what, len(keys))
		}
		for _, d := range []*palace.Drawer{x, fact} {
			if keys[d.VecKey] {
				t.Errorf("%s: the vector index holds a purged memory's vector", what)
			}
		}
	}
	if keys, err := palace.IndexedVectorKeys(ctx, p2); err != nil || !keys[x.VecKey] || x.VecKey == 0 {
		t.Fatalf("the memory's vector is not indexed before the purge (key %d): %v", x.VecKey, err)
	}

	_, undo, err := p.Forget(ctx, x.ID)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Purge(ctx, x.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Drawers) != 2 || out.Drawers[0].ID != x.ID || out.Drawers[1].ID != fact.ID || out.History == 0 || !out.Reclaimed {
		t.Fatalf("purge: %+v", out)
	}
	// A fact purged on its own names the episode it came from, which
	// keeps its text.
	y := palacetest.MustAdd(t, p, &palace.Drawer{Content: "the shed key hangs by the door", Kind: palace.KindEpisode})
	yf := palacetest.MustAdd(t, p, &palace.Drawer{Content: "the shed key hangs by the door", Kind: palace.KindAtomicFact, ParentID: y.ID})
	if out, err := p.Purge(ctx, yf.ID); err != nil || len(out.Drawers) != 1 || len(out.Related) != 1 || out.Related[0] != y.ID {
		t.Errorf("a fact's purge: %+v %v", out, err)
	}
	if got, err := p.Get(ctx, y.ID); err != nil || got.Content == "" {
		t.Errorf("the episode of a purged fact changed: %+v %v", got, err)
	}
	if _, err := p.Purge(ctx, x.ID); !errors.Is(err, palace.ErrNotFound) {
		t.Errorf("a second purge: %v, want not found", err)
	}
	if _, _, err := p.Undo(ctx, undo); err == nil {
		t.Error("the forget's undo token still restores a purged memory")
	}
	for _, q := range []string{secret, told, "cabin wifi key fridge"} {
		for _, pp := range []*palace.Palace{p, p2} {
			for _, h := range hits(pp, q, palace.ModeHybrid) {
				if h.ID == x.ID || h.ID == fact.ID {
					t.Errorf("%q still finds a purged memory", q)
				}
			}
		}
	}
	indexed(p, "the purging process")
	indexed(p2, "another process")
	for _, pp := range []*palace.Palace{p, p2} {
		for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeVector} {
			if got := hits(pp, "garden note 17 about tomatoes", mode); len(got) == 0 {
				t.Errorf("%s search finds nothing after the purge", mode)
			}
		}
	}
	for _, pp := range []*palace.Palace{p2, p4} {
		if err := pp.SaveIndex(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := reg4.Close(); err != nil {
		t.Fatal(err)
	}
	if err := reg2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	if held := onDisk(); len(held) > 0 {
		t.Errorf("files still hold the purged memory: %q", held)
	}
	restoreOld := func() {
		t.Helper()
		if err := os.WriteFile(vectorsFile, oldVectors, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keywordFiles[0], oldKeywords, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A purge killed after its transaction committed leaves the snapshots
	// as they were (restored here). Asked again, the purge is not found,
	// and has written both anew though its process never searched; a
	// scrub, which finds nothing to redact, does the same.
	for _, again := range []struct {
		name string
		run  func(p *palace.Palace) error
	}{
		{"a second purge", func(p *palace.Palace) error {
			if _, err := p.Purge(ctx, x.ID); !errors.Is(err, palace.ErrNotFound) {
				return fmt.Errorf("got %v, want not found", err)
			}
			return nil
		}},
		{"a scrub", func(p *palace.Palace) error {
			out, err := p.Rescrub(ctx, false, nil)
			if err == nil && out.Changed != 0 {
				err = fmt.Errorf("it changed %d drawers", out.Changed)
			}
			return err
		}},
	} {
		restoreOld()
		if held := onDisk(); len(held) == 0 {
			t.Fatal("the restored snapshots hold nothing: the check below could not fail")
		}
		regK := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir})
		pK, err := regK.Open(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		if err := again.run(pK); err != nil {
			t.Errorf("%s after a killed purge: %v", again.name, err)
		}
		if held := onDisk(); len(held) > 0 {
			t.Errorf("%s after a killed purge left files holding the memory: %q", again.name, held)
		}
		if now, err := os.ReadFile(vectorsFile); err != nil || bytes.Equal(now, oldVectors) {
			t.Errorf("%s after a killed purge left the vector snapshot as it was (%v)", again.name, err)
		}
		if err := regK.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// A process that finds snapshots written before the purge (a copy
	// restored, a node that saved late) erases the vectors' rows on
	// loading and the words as it catches its keyword index up, and
	// writes both snapshots again.
	restoreOld()
	reg3 := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir})
	p3, err := reg3.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	indexed(p3, "a process loading an older snapshot")
	if got := hits(p3, secret, palace.ModeKeyword); len(got) != 0 {
		t.Errorf("a process loading an older keyword snapshot finds the purged memory: %v", got)
	}
	if err := p3.SaveIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if now, err := os.ReadFile(vectorsFile); err != nil || bytes.Equal(now, oldVectors) {
		t.Errorf("the snapshot older than the purge was not written again (%v)", err)
	}
	if err := reg3.Close(); err != nil {
		t.Fatal(err)
	}
	if held := onDisk(); len(held) > 0 {
		t.Errorf("files still hold the purged memory after a process loaded older snapshots: %q", held)
	}
}

// In a palace large enough for a graph, a memory forgotten and then
// purged is a removed row the graph keeps as a waypoint: the purge has
// every process mark such rows erased, so that no snapshot they write
// holds their vectors (index.Flat.Erase; the snapshot's contents are
// checked in package index).
func TestPurgeErasesGraphWaypoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cfg := palace.Config{DataDir: dir, Graph: index.GraphConfig{Min: 500, M: 12, EfConstruction: 64}}
	reg := palacetest.MustOpenRegistry(t, cfg)
	p := palacetest.MustCreate(t, reg, "p")
	var ds []*palace.Drawer
	for i := range 800 {
		ds = append(ds, &palace.Drawer{Content: fmt.Sprintf("harbour log %d: the ferry left pier %d at dawn", i, i%23)})
	}
	if err := p.AddMany(ctx, ds); err != nil {
		t.Fatal(err)
	}
	x := ds[123]
	reg2 := palacetest.MustOpenRegistry(t, cfg)
	p2, err := reg2.Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range []*palace.Palace{p, p2} {
		if _, err := pp.Search(ctx, palace.SearchRequest{Query: "ferry pier dawn", Mode: palace.ModeVector}); err != nil {
			t.Fatal(err)
		}
		if st := pp.VectorIndexStats(); st.Graph == 0 {
			t.Fatalf("no graph over %d rows: the test needs one", st.Live)
		}
	}
	if _, _, err := p.Forget(ctx, x.ID); err != nil {
		t.Fatal(err)
	}
	for _, pp := range []*palace.Palace{p, p2} { // the forget reaches both: a waypoint, not erased
		if _, err := pp.Search(ctx, palace.SearchRequest{Query: "ferry pier dawn", Mode: palace.ModeVector}); err != nil {
			t.Fatal(err)
		}
		if st := pp.VectorIndexStats(); st.Erased != 0 || st.Rows != st.Live+1 {
			t.Fatalf("after the forget: %+v", st)
		}
	}
	if _, err := p.Purge(ctx, x.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Search(ctx, palace.SearchRequest{Query: "ferry pier dawn", Mode: palace.ModeVector}); err != nil {
		t.Fatal(err)
	}
	for i, pp := range []*palace.Palace{p, p2} {
		if st := pp.VectorIndexStats(); st.Erased != 1 {
			t.Errorf("process %d after the purge: %d waypoints erased, want the forgotten one (%+v)", i+1, st.Erased, st)
		}
	}
}

// Purging a knowledge-graph fact erases its whole timeline (the triple
// retracted before it too), with the change log's details that named it,
// from every file of the data dir; the subject's other facts, and their
// log entries, stay.
func TestPurgeFactsErasesTheTimeline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	reg := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir})
	p := palacetest.MustCreate(t, reg, "p")
	const subject, predicate, old, now = "fern-cabin", "wifi_passphrase", "quokkamarlin", "quokkaswordfish"
	assert := func(pred, obj string) {
		t.Helper()
		tr, err := p.KG().Assert(ctx, kg.Assertion{Subject: subject, Predicate: pred, Object: obj, Provenance: "chat about " + obj})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.LogEvent(ctx, "kg.asserted", map[string]any{"subject": tr.Subject, "predicate": tr.Predicate}); err != nil {
			t.Fatal(err)
		}
	}
	assert(predicate, old)
	assert(predicate, now) // closes the first
	assert("caretaker", "ana")
	onDisk := func(words ...string) []string { return palacetest.FilesHolding(t, dir, words...) }
	if held := onDisk(old, now, predicate); len(held) == 0 {
		t.Fatal("no file holds the facts before the purge: the check below could not fail")
	}

	if _, err := p.PurgeFacts(ctx, subject, "alarm_code"); !errors.Is(err, kg.ErrNotFound) {
		t.Errorf("purging a predicate the subject lacks: %v, want not found", err)
	}
	out, err := p.PurgeFacts(ctx, subject, predicate)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Triples) != 2 || out.Triples[0].Object != old || out.Triples[1].Object != now || out.Events != 2 || !out.Reclaimed {
		t.Fatalf("purge: %+v", out)
	}
	if hist, err := p.KG().History(ctx, subject); err != nil || len(hist) != 1 || hist[0].Object != "ana" {
		t.Errorf("the subject's history after the purge: %+v, %v; want its other fact", hist, err)
	}
	if _, err := p.PurgeFacts(ctx, subject, predicate); !errors.Is(err, kg.ErrNotFound) {
		t.Errorf("a second purge: %v, want not found", err)
	}
	if held := onDisk(old, now, predicate); len(held) > 0 {
		t.Errorf("files still hold the purged facts: %q", held)
	}
	// A purge killed after the graph's erasure committed, before it
	// reclaimed the space (the graph's own purge stands for it here),
	// while a process keeps the palace open, leaves the old triple in
	// SQLite's log; asked again, the purge finds nothing and reclaims it.
	const later = "quokkatapir"
	assert("alarm_code", later)
	if _, err := p.KG().Purge(ctx, subject, "alarm_code"); err != nil {
		t.Fatal(err)
	}
	if held := onDisk(later); len(held) == 0 {
		t.Fatal("no file holds the fact whose purge was killed: the check below could not fail")
	}
	if _, err := p.PurgeFacts(ctx, subject, "alarm_code"); !errors.Is(err, kg.ErrNotFound) {
		t.Errorf("the purge asked again: %v, want not found", err)
	}
	if held := onDisk(later); len(held) > 0 {
		t.Errorf("the purge asked again left files holding the fact: %q", held)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	if held := onDisk("caretaker"); len(held) == 0 {
		t.Error("the subject's other fact left the disk too")
	}
}

// An episode's purge names its user's profile among the drawers that may
// still say what it said (extraction merges what a conversation taught
// into it), while the profile is there to name.
func TestPurgeNamesTheUsersProfile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{DataDir: t.TempDir()}), "p")
	prof := palacetest.MustAdd(t, p, &palace.Drawer{ID: palace.ProfileID("ann"), Kind: palace.KindProfile, UserID: "ann",
		Content: "ann: lives in Lisbon; has a cabin"})
	episode := func(text string) *palace.Drawer {
		return palacetest.MustAdd(t, p, &palace.Drawer{Content: text, Kind: palace.KindEpisode, UserID: "ann"})
	}
	first, second := episode("ann said the cabin's alarm code is 4417"), episode("ann moved to Porto")
	note := palacetest.MustAdd(t, p, &palace.Drawer{Content: "a note of ann's", UserID: "ann"})
	out, err := p.Purge(ctx, first.ID)
	if err != nil || len(out.Related) != 1 || out.Related[0] != prof.ID {
		t.Fatalf("an episode's purge: related %v, %v; want the user's profile", out.Related, err)
	}
	if out, err := p.Purge(ctx, note.ID); err != nil || len(out.Related) != 0 {
		t.Errorf("a note's purge: related %v, %v; want none", out.Related, err)
	}
	if _, err := p.Purge(ctx, prof.ID); err != nil {
		t.Fatal(err)
	}
	if out, err := p.Purge(ctx, second.ID); err != nil || len(out.Related) != 0 {
		t.Errorf("an episode's purge after its profile's: related %v, %v; want none", out.Related, err)
	}
}
