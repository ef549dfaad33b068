package postgres_test

import (
	"context"
	"os"
	"testing"

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
	b, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{CacheDir: t.TempDir()})
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
