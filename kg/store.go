package kg

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is the knowledge graph of one palace. It is safe for concurrent use
// by many goroutines, and many processes may hold a Store on the same file.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithNow replaces the clock (time.Now by default). Tests use it to pin
// valid_from and created_at.
func WithNow(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.now = now
		}
	}
}

// Open migrates kg's tables in db and returns a Store over them.
//
// db is the palace's handle: SQLite in WAL mode, opened with
// _txlock=immediate and a busy timeout so that every transaction kg starts
// takes the write lock up front. (Without it writes stay correct, since
// SQLite refuses to upgrade a stale read, but concurrent writers fail with
// "database is locked" instead of queueing.) Open is idempotent and safe to call from
// several processes at once; migrations run in one transaction and are
// recorded in kg_schema. Open fails if the file was migrated by a newer kg.
// The caller keeps ownership of db and closes it.
func Open(ctx context.Context, db *sql.DB, opts ...Option) (*Store, error) {
	if db == nil {
		return nil, errors.New("kg open: nil database")
	}
	s := &Store{db: db, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if err := s.migrate(ctx); err != nil {
		return nil, fmt.Errorf("kg open: %w", err)
	}
	return s, nil
}

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order. File names
// are NNNN_description.sql.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name must start with a positive version", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %q and %q share version %d", ms[i-1].name, ms[i].name, ms[i].version)
		}
	}
	return ms, nil
}

// SchemaVersion is the kg_schema version this build migrates to.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback()

	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kg_schema (
		version    INTEGER PRIMARY KEY,
		applied_at TEXT NOT NULL
	)`); err != nil {
		return fmt.Errorf("create kg_schema: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM kg_schema`).Scan(&current); err != nil {
		return fmt.Errorf("read kg_schema: %w", err)
	}
	if latest := ms[len(ms)-1].version; current > latest {
		return fmt.Errorf("kg schema version %d is newer than this build supports (%d)", current, latest)
	}
	applied := formatTime(s.now())
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO kg_schema (version, applied_at) VALUES (?, ?)`, m.version, applied); err != nil {
			return fmt.Errorf("record migration %s: %w", m.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	return nil
}

// clock returns the store's current time in UTC without a monotonic
// reading.
func (s *Store) clock() time.Time {
	return s.now().UTC().Round(0)
}
