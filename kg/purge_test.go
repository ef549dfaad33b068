package kg_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
)

// Purge erases a pair's whole timeline (or a subject's), active and
// closed, and nothing else; a purge that finds nothing, or is given bad
// input, changes nothing.
func TestPurge(t *testing.T) {
	t.Parallel()
	s, clock, db := MustOpenStore(t)
	ctx := context.Background()
	mustAssert(t, s, "cabin", "wifi", "swordfish")
	clock.Advance(time.Hour)
	mustAssert(t, s, "cabin", "wifi", "marlinfish") // closes the first
	mustAssert(t, s, "cabin", "owner", "ana")
	mustAssert(t, s, "boat", "wifi", "tunafish")

	before := dump(t, db)
	for _, bad := range []struct{ subject, predicate string }{{"", "wifi"}, {"cabin", " "}} {
		if _, err := s.Purge(ctx, bad.subject, bad.predicate); !errors.Is(err, kg.ErrInvalid) {
			t.Errorf("Purge(%q, %q) err = %v, want ErrInvalid", bad.subject, bad.predicate, err)
		}
	}
	for _, none := range []struct{ subject, predicate string }{{"nobody", ""}, {"cabin", "alarm"}} {
		if _, err := s.Purge(ctx, none.subject, none.predicate); !errors.Is(err, kg.ErrNotFound) {
			t.Errorf("Purge(%q, %q) err = %v, want ErrNotFound", none.subject, none.predicate, err)
		}
		if _, err := s.Timeline(ctx, none.subject, none.predicate); !errors.Is(err, kg.ErrNotFound) {
			t.Errorf("Timeline(%q, %q) err = %v, want ErrNotFound", none.subject, none.predicate, err)
		}
	}
	if after := dump(t, db); !slices.Equal(before, after) {
		t.Fatal("failed purges changed the table")
	}

	timeline, err := s.Timeline(ctx, "cabin ", " wifi")
	if err != nil {
		t.Fatal(err)
	}
	gone, err := s.Purge(ctx, " cabin", "wifi ")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := objects(gone), []string{"swordfish", "marlinfish"}; !slices.Equal(got, want) || !slices.Equal(objects(timeline), want) {
		t.Errorf("purged %q (the timeline read before: %q), want the pair's whole timeline %q", got, objects(timeline), want)
	}
	hist, _ := s.History(ctx, "cabin")
	if got, want := objects(hist), []string{"ana"}; !slices.Equal(got, want) {
		t.Errorf("cabin's history after the purge: %q, want %q", got, want)
	}
	if ts, _ := s.QueryObject(ctx, "marlinfish"); len(ts) != 0 {
		t.Errorf("the purged object is still found: %+v", ts)
	}
	for _, row := range dump(t, db) {
		for _, word := range []string{"swordfish", "marlinfish"} {
			if strings.Contains(row, word) {
				t.Errorf("a row still holds %q: %s", word, row)
			}
		}
	}
	// The pair can be asserted again, as new.
	if tr := mustAssert(t, s, "cabin", "wifi", "guest"); !tr.Active() {
		t.Errorf("asserted after the purge: %+v", tr)
	}

	// A subject alone: every predicate.
	gone, err = s.Purge(ctx, "cabin", "")
	if err != nil || len(gone) != 2 {
		t.Fatalf("purging a subject: %d triples, %v; want 2", len(gone), err)
	}
	if hist, _ := s.History(ctx, "cabin"); len(hist) != 0 {
		t.Errorf("cabin's history after purging it: %+v", hist)
	}
	if hist, _ := s.History(ctx, "boat"); len(hist) != 1 {
		t.Errorf("another subject's triples were touched: %+v", hist)
	}
}
