package kg_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store/sqlite"
)

// TestConcurrentWriters plays two processes (two *sql.DB handles on one
// file, each with its own Store and real clock) asserting the same pairs at
// once, and checks the invariants afterwards: one active triple per pair,
// and each pair's history a gap-free chain of intervals.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	first, _ := MustOpenDB(t)
	ctx := context.Background()
	stores := []*kg.Graph{kg.New(first)}
	b, err := sqlite.Open(filepath.Dir(filepath.Dir(filepath.Dir(first.Path()))), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Open(ctx, "p") // a second handle on the file: another process, in effect
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	stores = append(stores, kg.New(second))

	const (
		writers = 8
		rounds  = 40
	)
	// svc is only asserted; db is also retracted now and then.
	subjects := []string{"svc", "db"}
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		s := stores[w%len(stores)]
		wg.Go(func() {
			for r := range rounds {
				subject := subjects[r%len(subjects)]
				// Some writers repeat the same object to exercise the no-op path.
				obj := fmt.Sprintf("w%d-r%d", w, r)
				if w%4 == 3 {
					obj = "same"
				}
				if _, err := s.Assert(ctx, kg.Assertion{Subject: subject, Predicate: "state", Object: obj}); err != nil {
					errs <- err
					return
				}
				if subject == "db" && r%10 == 9 {
					if _, err := s.Retract(ctx, subject, "state"); err != nil && !errors.Is(err, kg.ErrNotFound) {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	for _, subject := range subjects {
		hist, err := stores[0].History(ctx, subject)
		if err != nil {
			t.Fatal(err)
		}
		active := 0
		for i, tr := range hist {
			if tr.Active() {
				active++
				if i != len(hist)-1 {
					t.Errorf("%s: active triple %d is not the last of its history", subject, tr.ID)
				}
				continue
			}
			if tr.ValidTo.Before(tr.ValidFrom) {
				t.Errorf("%s: triple %d closes before it starts", subject, tr.ID)
			}
			// A closed triple ends where the next begins; a retracted one
			// (db only) ends at or before it.
			if i+1 < len(hist) {
				next := hist[i+1]
				if next.ValidFrom.Before(tr.ValidTo) || subject == "svc" && !next.ValidFrom.Equal(tr.ValidTo) {
					t.Errorf("%s: triple %d ends at %v, next starts at %v", subject, tr.ID, tr.ValidTo, next.ValidFrom)
				}
			} else if subject == "svc" {
				t.Errorf("svc: the last triple %d is closed", tr.ID)
			}
			if subject == "svc" && i+1 < len(hist) && hist[i+1].Object == tr.Object {
				t.Errorf("%s: triple %d repeats the object of the triple it replaced", subject, tr.ID)
			}
		}
		if active > 1 || subject == "svc" && active != 1 {
			t.Errorf("%s: %d active triples", subject, active)
		}
		q, _ := stores[1].Query(ctx, subject)
		if len(q) > 1 {
			t.Errorf("%s: Query returned %d triples", subject, len(q))
		}
	}
	if n, err := stores[1].MergeDuplicates(ctx); err != nil || n != 0 {
		t.Errorf("MergeDuplicates after concurrent writes = %d, %v; want 0", n, err)
	}
}
