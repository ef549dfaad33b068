package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/postgres"
	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
	"github.com/loci-mem/loci/palace/store/storetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// open is a backend on a new database of the test server.
func open(t *testing.T) *postgres.Backend {
	t.Helper()
	return openURL(t, pgtest.URL(t))
}

// openURL is a backend on the database at url (a second one is another
// node).
func openURL(t *testing.T, url string) *postgres.Backend {
	t.Helper()
	b, err := postgres.Open(context.Background(), url, postgres.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestConformance runs the store conformance suite on a real PostgreSQL
// server.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Backend { return open(t) })
}

// A palace's cache directory exists once it is open: the node writes its
// index snapshots there.
func TestCacheDirExists(t *testing.T) {
	b := open(t)
	s, err := b.Create(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, err := os.Stat(b.CacheDir("p")); err != nil || !fi.IsDir() {
		t.Fatalf("cache dir %s: %v", b.CacheDir("p"), err)
	}
}

// Size counts the palace's tables on the server, and grows with them.
func TestSizeCountsTheSchema(t *testing.T) {
	ctx := context.Background()
	b := open(t)
	s, err := b.Create(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	empty, err := s.(store.Sizer).Size(ctx)
	if err != nil || empty <= 0 {
		t.Fatalf("size of an empty palace: %d, %v", empty, err)
	}
	storetest.Fill(t, s)
	full, err := s.(store.Sizer).Size(ctx)
	if err != nil || full <= empty {
		t.Fatalf("size after filling: %d (empty %d), %v", full, empty, err)
	}
}

// Changes delivers a signal when another handle (another node) commits a
// write to the palace, nothing for a rolled-back one, and one after the
// server comes back from a restart (notifications sent meanwhile are lost).
func TestChangesFollowsOtherNodes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := pgtest.URL(t)
	s, err := openURL(t, url).Create(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := openURL(t, url).Open(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ch := s.(store.Notifier).Changes(ctx)
	wait := func(what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("no change signal %s", what)
		}
	}
	drain := func() {
		for {
			select {
			case <-ch:
			case <-time.After(300 * time.Millisecond):
				return
			}
		}
	}
	wait("on connecting") // one on every (re)connection
	drain()
	tx, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Meta().Set(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
		t.Fatal("a rolled-back write was announced")
	case <-time.After(500 * time.Millisecond):
	}
	if err := store.Write(ctx, other, func(tx store.Tx) error { return tx.Meta().Set(ctx, "k", "v") }); err != nil {
		t.Fatal(err)
	}
	wait("after another node's write")
	drain()
	pgtest.Restart(t, nil)
	wait("after the server restarted")
}
