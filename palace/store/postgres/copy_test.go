package postgres_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlite"
	"github.com/loci-mem/loci/palace/store/sqlstore"
	"github.com/loci-mem/loci/palace/store/storetest"
)

// A palace copied SQLite → PostgreSQL → SQLite comes back row for row,
// and each copy's key counters continue past the original's.
func TestCopyBothWays(t *testing.T) {
	ctx := context.Background()
	lite := func() store.Backend {
		b, err := sqlite.Open(t.TempDir(), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	create := func(b store.Backend) store.Store {
		s, err := b.Create(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	orig := create(lite())
	storetest.Fill(t, orig)
	pg := create(open(t))
	back := create(lite())
	for _, step := range []struct{ dst, src store.Store }{{pg, orig}, {back, pg}} {
		stats, err := sqlstore.Copy(ctx, step.dst, step.src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if stats["drawers"] != 5 || stats["events"] != 5 || stats["kg_triples"] != 2 || stats["dream_changes"] != 1 {
			t.Fatalf("copied %v", stats)
		}
	}
	want := storetest.Dump(t, orig)
	for table, rows := range want {
		if len(rows) == 0 && table != "request_keys" {
			// Fill writes every table but the lock, which it holds.
			t.Errorf("Fill left %s empty", table)
		}
	}
	for name, s := range map[string]store.Store{"postgres": pg, "sqlite again": back} {
		if got := storetest.Dump(t, s); !reflect.DeepEqual(got, want) {
			for table := range want {
				if !reflect.DeepEqual(got[table], want[table]) {
					t.Errorf("%s: table %s\n got %q\nwant %q", name, table, got[table], want[table])
				}
			}
		}
	}
	// The counters continue: no fact number or seq is handed out twice.
	for name, s := range map[string]store.Store{"postgres": pg, "sqlite again": back} {
		err := store.Write(ctx, s, func(tx store.Tx) error {
			n, err := tx.Facts().Allocate(ctx, "new")
			if err != nil || n != 10 {
				t.Errorf("%s: next fact number %d (%v), want 10", name, n, err)
			}
			seq, err := tx.Log().Append(ctx, store.Event{At: time.Now(), Type: "x"})
			if err != nil || seq != 6 {
				t.Errorf("%s: next seq %d (%v), want 6", name, seq, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A copy into a palace that holds rows is refused and changes nothing.
	before := storetest.Dump(t, pg)
	if _, err := sqlstore.Copy(ctx, pg, orig, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("copy into a full palace: %v", err)
	}
	if !reflect.DeepEqual(storetest.Dump(t, pg), before) {
		t.Fatal("a refused copy changed the destination")
	}
}
