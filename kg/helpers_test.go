package kg_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store/sqlite"
)

// MustOpenDB creates a palace store (the SQLite backend, in a temporary
// directory) and returns it with a raw handle on its file, for tests that
// look at or break the rows behind kg's back.
func MustOpenDB(tb testing.TB) (*sqlite.Store, *sql.DB) {
	tb.Helper()
	b, err := sqlite.Open(tb.TempDir(), sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	st, err := b.Create(context.Background(), "p")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	s := st.(*sqlite.Store)
	return s, MustOpenRaw(tb, s.Path())
}

// MustOpenRaw opens a raw handle on a palace file, closed at cleanup.
func MustOpenRaw(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_busy_timeout=5000&_txlock=immediate")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// MustOpenStore opens a Graph on a fresh store with a fake clock.
func MustOpenStore(tb testing.TB) (*kg.Graph, *fakeClock, *sql.DB) {
	tb.Helper()
	st, db := MustOpenDB(tb)
	clock := newFakeClock()
	return kg.New(st, kg.WithNow(clock.Now)), clock, db
}

// fakeClock starts at t0 and moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

var t0 = time.Date(2026, 5, 10, 14, 32, 0, 0, time.UTC)

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func ptr[T any](v T) *T { return &v }

// mustAssert asserts or fails the test.
func mustAssert(tb testing.TB, s *kg.Graph, subject, predicate, object string) kg.Triple {
	tb.Helper()
	tr, err := s.Assert(context.Background(), kg.Assertion{Subject: subject, Predicate: predicate, Object: object})
	if err != nil {
		tb.Fatalf("assert %s %s %s: %v", subject, predicate, object, err)
	}
	return tr
}

// dump returns every row of kg_triples, in id order, for before/after
// comparisons.
func dump(tb testing.TB, db *sql.DB) []string {
	tb.Helper()
	rows, err := db.Query(`SELECT id, subject, predicate, object, valid_from, COALESCE(valid_to, 'NULL'),
		confidence, COALESCE(provenance, 'NULL'), created_at FROM kg_triples ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var (
			id                               int64
			s, p, o, from, to, prov, created string
			conf                             float64
		)
		if err := rows.Scan(&id, &s, &p, &o, &from, &to, &conf, &prov, &created); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d|%s|%s|%s|%s|%s|%v|%s|%s", id, s, p, o, from, to, conf, prov, created))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// objects lists the objects of ts, in order.
func objects(ts []kg.Triple) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Object
	}
	return out
}
