package kg_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
)

// insertRaw writes a row behind kg's back, the way an import or an outside
// tool could, to create states Assert never produces.
func insertRaw(tb testing.TB, db *sql.DB, subject, predicate, object string, from time.Time, conf float64, prov string) {
	tb.Helper()
	var p any
	if prov != "" {
		p = prov
	}
	ts := from.UTC().Format("2006-01-02T15:04:05.000000000Z")
	if _, err := db.Exec(`INSERT INTO kg_triples (subject, predicate, object, valid_from, confidence, provenance, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, subject, predicate, object, ts, conf, p, ts); err != nil {
		tb.Fatal(err)
	}
}

func TestMergeDuplicates(t *testing.T) {
	t.Parallel()
	s, clock, db := MustOpenStore(t)
	ctx := context.Background()

	// Nothing to merge in a clean graph.
	mustAssert(t, s, "svc", "owner", "ana")
	if n, err := s.MergeDuplicates(ctx); err != nil || n != 0 {
		t.Fatalf("MergeDuplicates on clean graph = %d, %v", n, err)
	}

	// Three copies of svc.lang=go; the earliest has no provenance and a low
	// confidence.
	insertRaw(t, db, "svc", "lang", "go", t0.Add(2*time.Hour), 0.9, "late")
	insertRaw(t, db, "svc", "lang", "go", t0, 0.4, "")
	insertRaw(t, db, "svc", "lang", "go", t0.Add(time.Hour), 0.7, "middle")
	// Two copies of db.engine=sqlite.
	insertRaw(t, db, "db", "engine", "sqlite", t0, 1, "a")
	insertRaw(t, db, "db", "engine", "sqlite", t0, 0.5, "b")
	// A closed copy is history, not a duplicate.
	clock.Advance(time.Hour)
	mustAssert(t, s, "svc", "owner", "bob")
	clock.Advance(time.Hour)
	mustAssert(t, s, "svc", "owner", "ana")

	n, err := s.MergeDuplicates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n, 3; got != want {
		t.Errorf("merged %d, want %d", got, want)
	}

	active, err := s.Query(ctx, "svc")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := objects(active), []string{"go", "ana"}; !slices.Equal(got, want) {
		t.Fatalf("active = %q, want %q", got, want)
	}
	lang := active[0]
	if !lang.ValidFrom.Equal(t0) || lang.Confidence != 0.9 || lang.Provenance != "middle" {
		t.Errorf("merged triple = %+v, want valid_from %v, confidence 0.9, provenance middle", lang, t0)
	}
	engine, _ := s.Query(ctx, "db")
	if len(engine) != 1 || engine[0].Provenance != "a" || engine[0].Confidence != 1 {
		t.Errorf("db.engine = %+v, want one triple with provenance a, confidence 1", engine)
	}
	hist, _ := s.History(ctx, "svc")
	if got, want := objects(hist), []string{"ana", "go", "bob", "ana"}; !slices.Equal(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}

	// Idempotent.
	if n, err := s.MergeDuplicates(ctx); err != nil || n != 0 {
		t.Errorf("second MergeDuplicates = %d, %v", n, err)
	}
}

func TestAssertRepairsSeveralActive(t *testing.T) {
	t.Parallel()
	s, clock, db := MustOpenStore(t)
	ctx := context.Background()
	insertRaw(t, db, "svc", "lang", "go", t0, 1, "")
	insertRaw(t, db, "svc", "lang", "rust", t0, 1, "")
	clock.Advance(time.Hour)

	// Asserting one of them keeps it and closes the other.
	got := mustAssert(t, s, "svc", "lang", "go")
	if !got.ValidFrom.Equal(t0) {
		t.Errorf("kept triple valid_from = %v, want %v", got.ValidFrom, t0)
	}
	active, _ := s.Query(ctx, "svc")
	if got, want := objects(active), []string{"go"}; !slices.Equal(got, want) {
		t.Errorf("active = %q, want %q", got, want)
	}

	// Asserting a third object closes both.
	insertRaw(t, db, "svc", "os", "linux", t0, 1, "")
	insertRaw(t, db, "svc", "os", "bsd", t0, 1, "")
	clock.Advance(time.Hour)
	mustAssert(t, s, "svc", "os", "plan9")
	active, _ = s.Query(ctx, "svc")
	if got, want := objects(active), []string{"go", "plan9"}; !slices.Equal(got, want) {
		t.Errorf("active = %q, want %q", got, want)
	}
}

func TestChurn(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	assertAt := func(subject, predicate, object string) {
		t.Helper()
		mustAssert(t, s, subject, predicate, object)
		clock.Advance(time.Minute)
	}
	// Before the window: flapping that is old news.
	assertAt("old", "status", "a")
	assertAt("old", "status", "b")
	assertAt("old", "status", "a")
	assertAt("svc", "status", "up") // the window's first flip counts against this
	clock.Advance(time.Hour)
	since := clock.Now()

	assertAt("svc", "status", "down") // change 1
	assertAt("svc", "status", "up")   // change 2
	assertAt("svc", "status", "down") // change 3
	assertAt("svc", "status", "down") // no-op, not stored
	assertAt("svc", "owner", "ana")   // first ever: not a change
	assertAt("svc", "owner", "bob")   // change 1
	assertAt("new", "color", "red")   // first ever
	if _, err := s.Retract(ctx, "new", "color"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	assertAt("new", "color", "red")  // back after retraction: not a change
	assertAt("new", "color", "blue") // change 1

	got, err := s.Churn(ctx, since, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []kg.ChurnReport{
		{Subject: "svc", Predicate: "status", Changes: 3, Objects: 2, First: since, Last: since.Add(2 * time.Minute), Active: "down"},
		{Subject: "new", Predicate: "color", Changes: 1, Objects: 1, First: since.Add(9 * time.Minute), Last: since.Add(9 * time.Minute), Active: "blue"},
		{Subject: "svc", Predicate: "owner", Changes: 1, Objects: 1, First: since.Add(5 * time.Minute), Last: since.Add(5 * time.Minute), Active: "bob"},
	}
	if !slices.EqualFunc(got, want, churnEqual) {
		t.Errorf("Churn =\n%+v\nwant\n%+v", got, want)
	}

	got, err = s.Churn(ctx, since, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Predicate != "status" {
		t.Errorf("Churn(min 2) = %+v, want svc.status only", got)
	}

	// All time: old.status flipped twice.
	got, err = s.Churn(ctx, time.Time{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, r := range got {
		pairs = append(pairs, r.Subject+"."+r.Predicate)
	}
	if want := []string{"svc.status", "old.status"}; !slices.Equal(pairs, want) {
		t.Errorf("Churn(all time) = %q, want %q", pairs, want)
	}

	// A retracted churning pair reports no active object.
	if _, err := s.Retract(ctx, "svc", "status"); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Churn(ctx, since, 3)
	if len(got) != 1 || got[0].Active != "" {
		t.Errorf("Churn after retract = %+v, want Active empty", got)
	}
}

func churnEqual(a, b kg.ChurnReport) bool {
	return a.Subject == b.Subject && a.Predicate == b.Predicate && a.Changes == b.Changes &&
		a.Objects == b.Objects && a.First.Equal(b.First) && a.Last.Equal(b.Last) && a.Active == b.Active
}
