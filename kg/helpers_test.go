package kg_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/loci-mem/loci/kg"
)

// dsn opens path the way the palace does.
func dsn(path string) string {
	return "file:" + path + "?_journal_mode=WAL&_busy_timeout=5000&_txlock=immediate&_foreign_keys=on"
}

// MustOpenDB opens a fresh SQLite file in a temp dir, closed at cleanup.
func MustOpenDB(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "palace.db")
	return MustOpenDBAt(tb, path), path
}

// MustOpenDBAt opens another handle on path, closed at cleanup.
func MustOpenDBAt(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite3", dsn(path))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		tb.Fatal(err)
	}
	return db
}

// MustOpenStore opens a Store on a fresh file with a fake clock.
func MustOpenStore(tb testing.TB) (*kg.Store, *fakeClock, *sql.DB) {
	tb.Helper()
	db, _ := MustOpenDB(tb)
	clock := newFakeClock()
	s, err := kg.Open(context.Background(), db, kg.WithNow(clock.Now))
	if err != nil {
		tb.Fatal(err)
	}
	return s, clock, db
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
func mustAssert(tb testing.TB, s *kg.Store, subject, predicate, object string) kg.Triple {
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
