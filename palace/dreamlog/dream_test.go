package dreamlog_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"database/sql"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/palacetest"
)

var (
	MustOpenPalace = palacetest.MustOpenPalace
	mustAdd        = palacetest.MustAdd
)

func beginRun(tb testing.TB, p *palace.Palace, id string) {
	tb.Helper()
	if err := dreamlog.Of(p).BeginRun(context.Background(), &dreamlog.Run{ID: id, Owner: "test", Trigger: "test",
		StartedAt: time.Now()}); err != nil {
		tb.Fatal(err)
	}
}

func lastSeq(tb testing.TB, p *palace.Palace) int64 {
	tb.Helper()
	in, err := p.Info(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return in.LastSeq
}

func TestDreamTxIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	p := MustOpenPalace(t)
	a := mustAdd(t, p, &palace.Drawer{Content: "the staging database is postgres"})
	b := mustAdd(t, p, &palace.Drawer{Content: "the staging database is postgres!"})
	beginRun(t, p, "dr_1")
	seq := lastSeq(t, p)

	tx, err := dreamlog.Of(p).Begin(ctx, "dr_1", "dedup", "")
	if err != nil {
		t.Fatal(err)
	}
	sup, by := palace.StatusSuperseded, a.ID
	if ok, err := tx.Patch(dreamlog.OpSupersede, b, dreamlog.Patch{Status: &sup, SupersededBy: &by}); !ok || err != nil {
		t.Fatalf("patch: %v %v", ok, err)
	}
	tx.Rollback()
	if d, _ := p.Get(ctx, b.ID); d.Status != palace.StatusActive || lastSeq(t, p) != seq {
		t.Fatalf("a rolled-back pass left %s, seq %d->%d", d.Status, seq, lastSeq(t, p))
	}
	if cs, _ := dreamlog.Of(p).Changes(ctx, "dr_1"); len(cs) != 0 {
		t.Fatalf("a rolled-back pass recorded %d changes", len(cs))
	}

	// A drawer changed after the planner read it is left alone.
	stale := *b
	if _, err := p.Update(ctx, b.ID, func(d *palace.Drawer) error { d.Tags = []string{"x"}; return nil }); err != nil {
		t.Fatal(err)
	}
	tx, _ = dreamlog.Of(p).Begin(ctx, "dr_1", "dedup", "")
	if ok, err := tx.Patch(dreamlog.OpSupersede, &stale, dreamlog.Patch{Status: &sup, SupersededBy: &by}); ok || err != nil {
		t.Fatalf("patch of a changed drawer: %v %v", ok, err)
	}
	tx.Rollback()

	// A committed loud change: new seq, change-log event, recorded for undo,
	// out of recall.
	cur, _ := p.Get(ctx, b.ID)
	tx, _ = dreamlog.Of(p).Begin(ctx, "dr_1", "dedup", "")
	if ok, err := tx.Patch(dreamlog.OpSupersede, cur, dreamlog.Patch{Status: &sup, SupersededBy: &by}); !ok || err != nil {
		t.Fatalf("patch: %v %v", ok, err)
	}
	imp := 0.25
	if ok, err := tx.Patch(dreamlog.OpDecay, a, dreamlog.Patch{Importance: &imp}); !ok || err != nil {
		t.Fatalf("quiet patch: %v %v", ok, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, _ := p.Get(ctx, b.ID)
	if got.Status != palace.StatusSuperseded || got.SupersededBy != a.ID || got.Seq == cur.Seq {
		t.Fatalf("after commit: %+v", got)
	}
	if ga, _ := p.Get(ctx, a.ID); ga.Importance != 0.25 || ga.Seq != a.Seq {
		t.Fatalf("quiet change: importance %v seq %d->%d", ga.Importance, a.Seq, ga.Seq)
	}
	for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeVector} {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "staging database postgres", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Drawer.ID == b.ID {
				t.Fatalf("%s search returned the superseded drawer", mode)
			}
		}
	}
	cs, _ := dreamlog.Of(p).Changes(ctx, "dr_1")
	if len(cs) != 2 || cs[0].Before["status"] != "active" || cs[0].After["superseded_by"] != a.ID {
		t.Fatalf("recorded changes %+v", cs)
	}

	// Undo puts it back, in recall again with a fresh index key.
	rep, err := dreamlog.Of(p).Undo(ctx, "dr_1", "")
	if err != nil || rep.Restored != 2 {
		t.Fatalf("undo %+v %v", rep, err)
	}
	hits, _ := p.Search(ctx, palace.SearchRequest{Query: "staging database postgres", Mode: palace.ModeVector})
	found := false
	for _, h := range hits {
		found = found || h.Drawer.ID == b.ID
	}
	if !found {
		t.Fatal("undone drawer not found by vector search")
	}
	if ga, _ := p.Get(ctx, a.ID); ga.Importance != a.Importance {
		t.Fatalf("importance after undo %v", ga.Importance)
	}
}

func TestBeginDreamChecksTheLock(t *testing.T) {
	ctx := context.Background()
	p := MustOpenPalace(t)
	beginRun(t, p, "dr_1")
	now := time.Now()
	if ok, _, err := dreamlog.Of(p).Acquire(ctx, "me", time.Minute, now); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := dreamlog.Of(p).Begin(ctx, "dr_1", "x", "someone-else"); !errors.Is(err, dreamlog.ErrLeaseLost) {
		t.Fatalf("without the lock: %v", err)
	}
	tx, err := dreamlog.Of(p).Begin(ctx, "dr_1", "x", "me")
	if err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	if err := dreamlog.Of(p).Release(ctx, "me"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := dreamlog.Of(p).Holder(ctx); ok {
		t.Fatal("lock still held after release")
	}
}

func TestClosetBoostOnlyBreaksNearTies(t *testing.T) {
	ctx := context.Background()
	p := MustOpenPalace(t)
	text := "rotate the signing keys for the payment webhooks"
	back := mustAdd(t, p, &palace.Drawer{Content: text, Room: "Backend"})
	front := mustAdd(t, p, &palace.Drawer{Content: text, Room: "Frontend"}) // newer: wins the tie
	strong := mustAdd(t, p, &palace.Drawer{Content: "the checkout page shows payment webhooks status; rotate signing keys from the admin page",
		Room: "Frontend"})
	weak := mustAdd(t, p, &palace.Drawer{Content: "the backend team owns billing", Room: "Backend"})
	order := func() []string {
		hits, err := p.Recall(ctx, palace.RecallRequest{Query: "rotate signing keys payment webhooks", K: 4})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Drawer.ID)
		}
		return ids
	}
	before := order()
	if before[0] != front.ID || before[1] != back.ID {
		t.Fatalf("without closets: %v, want the newer of two equal drawers first", before)
	}
	beginRun(t, p, "dr_c")
	tx, err := dreamlog.Of(p).Begin(ctx, "dr_c", "closets", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceClosets([]palace.Closet{
		{Room: "Backend", Keywords: []string{"signing", "keys", "webhooks", "payment", "rotate"}, Summary: "keys", Drawers: 2},
		{Room: "Frontend", Keywords: []string{"checkout", "page", "css"}, Summary: "ui", Drawers: 2},
	}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	after := order()
	if after[0] != back.ID || after[1] != front.ID {
		t.Fatalf("with closets: %v, want the Backend drawer to win the tie", after)
	}
	// The boost never reorders hits whose relevance differs by more than
	// its bound: compare with the unboosted search order and scores.
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "rotate signing keys payment webhooks", K: 4, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, id := range after {
		pos[id] = i
	}
	for i := range hits {
		for j := i + 1; j < len(hits); j++ {
			if hits[i].Score-hits[j].Score > 0.004 && pos[hits[i].Drawer.ID] > pos[hits[j].Drawer.ID] {
				t.Fatalf("boost lifted %s (%.4f) over %s (%.4f)", hits[j].Drawer.ID, hits[j].Score,
					hits[i].Drawer.ID, hits[i].Score)
			}
		}
	}
	if len(hits) < 3 || !containsID(hits, strong.ID) || !containsID(hits, weak.ID) {
		t.Fatalf("the check needs the other drawers among the hits: %d hits", len(hits))
	}
	in, _ := p.Info(ctx)
	if len(in.Closets) != 2 {
		t.Fatalf("palace info closets %v", in.Closets)
	}
}

func TestReembedWithProgress(t *testing.T) {
	ctx := context.Background()
	p := MustOpenPalace(t)
	for _, s := range []string{"one", "two", "three", "four", "five"} {
		mustAdd(t, p, &palace.Drawer{Content: "memory number " + s})
	}
	// Nothing to do with the same embedder.
	if n, err := p.Reembed(ctx, 2); n != 0 || err != nil {
		t.Fatalf("reembed with the current model: %d %v", n, err)
	}
	if _, err := p.Reembed(ctx, 5000); !errors.Is(err, palace.ErrInvalid) {
		t.Fatalf("oversized batch: %v", err)
	}
	// Drop a vector behind the palace's back: it is re-embedded.
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(p.Dir(), "palace.db")+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE drawers SET vector = NULL, model = '' WHERE rid IN (SELECT rid FROM drawers LIMIT 3)`); err != nil {
		t.Fatal(err)
	}
	var calls [][2]int
	n, err := p.ReembedWithProgress(ctx, 2, func(done, total int) { calls = append(calls, [2]int{done, total}) })
	if err != nil || n != 3 {
		t.Fatalf("reembed: %d %v", n, err)
	}
	if len(calls) != 3 || calls[0] != [2]int{0, 3} || calls[2] != [2]int{3, 3} {
		t.Fatalf("progress calls %v", calls)
	}
	if h, _ := p.IndexHealth(ctx); h.StaleVectors != 0 {
		t.Fatalf("stale vectors left: %d", h.StaleVectors)
	}
}

func containsID(hits []palace.Hit, id string) bool {
	for _, h := range hits {
		if h.Drawer.ID == id {
			return true
		}
	}
	return false
}
