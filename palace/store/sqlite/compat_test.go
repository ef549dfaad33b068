package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlite"
)

// copyCompat puts the palace an earlier release wrote into a fresh data
// dir and returns the dir.
func copyCompat(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../testdata/compat/palace-6273b3e.db")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "palaces", "compat"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "palaces", "compat", "palace.db"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A palace written by the release that kept an FTS5 index opens, loses its
// FTS5 tables (whether or not this build has the fts5 module) and keeps
// every row.
func TestOpensPalaceOfPreviousRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := copyCompat(t)
	b, err := sqlite.Open(dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := b.Names(ctx)
	if err != nil || len(names) != 1 || names[0] != "compat" {
		t.Fatalf("Names = %v, %v", names, err)
	}
	st, err := b.Open(ctx, "compat")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Drawers().Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.ByStatus[store.StatusActive] != 3 || c.ByStatus[store.StatusPending] != 1 {
		t.Fatalf("counts after the upgrade: %+v", c.ByStatus)
	}
	n := 0
	if err := st.Drawers().Changes(ctx, 0, store.ChangeFields{Text: true, Vector: true}, func(ch store.Change) error {
		if ch.Content == "" || len(ch.Vector) == 0 {
			t.Errorf("drawer %d lost its text or vector", ch.RID)
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("%d drawers replayed, want 4", n)
	}
	if d, ok, err := st.Facts().DrawerOf(ctx, 1); err != nil || !ok || d == "" {
		t.Fatalf("fact mem-0001: %q %v %v", d, ok, err)
	}
	if ts, err := st.Triples().Active(ctx, "auth-service"); err != nil || len(ts) != 1 || ts[0].Object != "2.4.0" {
		t.Fatalf("triples: %+v %v", ts, err)
	}
	for _, f := range []string{"palace.db", "palace.db-wal", "palace.db-shm"} {
		fi, err := os.Stat(filepath.Join(dir, "palaces", "compat", f))
		if err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v after the upgrade, want owner-only", f, fi.Mode().Perm())
		}
	}
	in, err := st.Check(ctx)
	if err != nil || in.Engine != "ok" {
		t.Fatalf("integrity after the upgrade: %+v %v", in, err)
	}
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "palaces", "compat", "palace.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var left int
	if err := raw.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'drawers_fts%'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("FTS5 objects left: %d (%v)", left, err)
	}
	if err := store.Write(ctx, st, func(tx store.Tx) error {
		d := &store.Drawer{ID: "new", Kind: store.KindNote, Content: "written after the upgrade", Room: "General",
			Status: store.StatusActive, Tags: []string{}, SenderIDs: []string{}}
		return tx.Drawers().Insert(ctx, d, nil)
	}); err != nil {
		t.Fatalf("write after the upgrade: %v", err)
	}
}

// A new palace's files are readable by their owner only; a leftover of a
// create that died halfway (its temporary database) is not a palace; a
// second create of the same name conflicts.
func TestNewPalaceFilesAreOwnerOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := sqlite.Open(t.TempDir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(b.CacheDir("crashed"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.CacheDir("crashed"), ".create-1.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := b.Create(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if names, err := b.Names(ctx); err != nil || len(names) != 1 || names[0] != "p" {
		t.Fatalf("Names = %v, %v; the half-created palace must not be listed", names, err)
	}
	if err := store.Write(ctx, st, func(tx store.Tx) error { return tx.Meta().Set(ctx, "k", "v") }); err != nil {
		t.Fatal(err)
	}
	dir := b.CacheDir("p")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v", e.Name(), fi.Mode().Perm())
		}
	}
	if _, err := b.Create(ctx, "p"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second create: %v", err)
	}
}
