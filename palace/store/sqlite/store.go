package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlstore"
)

// Store is one palace's SQLite database. Write transactions start
// IMMEDIATE (the DSN's _txlock), so writers of the palace, in this process
// and in others, queue on the busy timeout instead of failing when they
// upgrade a read lock.
type Store struct {
	sqlstore.Reader // reads on the pool
	db              *sql.DB
	name            string
	path            string
	readOnly        bool
}

var (
	_ store.Store = (*Store)(nil)
	_ kg.Storage  = (*Store)(nil)
)

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Begin starts an immediate write transaction.
func (s *Store) Begin(ctx context.Context) (store.Tx, error) {
	if s.readOnly {
		return nil, fmt.Errorf("palace %q: %w", s.name, store.ErrReadOnly)
	}
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin write: %w", err)
	}
	return sqlstore.NewTx(t, dialect{}, nil), nil
}

// BeginTriples is Begin for the knowledge graph.
func (s *Store) BeginTriples(ctx context.Context) (kg.Tx, error) {
	if s.readOnly {
		return nil, fmt.Errorf("palace %q: %w", s.name, store.ErrReadOnly)
	}
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin write: %w", err)
	}
	return sqlstore.NewTripleTx(t, dialect{}, nil), nil
}

// Snapshot runs fn inside a deferred read transaction on a connection of
// its own: one consistent view that, in WAL mode, never blocks writers.
func (s *Store) Snapshot(ctx context.Context, fn func(store.Reader) error) error {
	return s.ReadTables(ctx, func(q sqlstore.Querier, d sqlstore.Dialect) error {
		return fn(sqlstore.NewReader(q, d))
	})
}

// Check runs SQLite's quick_check and counts the applied migrations.
func (s *Store) Check(ctx context.Context) (store.Integrity, error) {
	var in store.Integrity
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return in, fmt.Errorf("quick_check: %w", err)
	}
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			rows.Close()
			return in, fmt.Errorf("quick_check: %w", err)
		}
		msgs = append(msgs, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return in, fmt.Errorf("quick_check: %w", err)
	}
	in.Engine = "ok"
	if len(msgs) != 1 || msgs[0] != "ok" {
		in.Engine = fmt.Sprint(msgs)
	}
	err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&in.Migrations)
	return in, err
}

// Reclaim checkpoints the write-ahead log into the database and truncates
// it. The database's freed space is zeroed as it is freed (the DSN's
// secure_delete), so afterwards no page of the palace holds an erased row
// any more. It reports false when a reader kept the log from being
// truncated (another process in the middle of a read).
func (s *Store) Reclaim(ctx context.Context) (bool, error) {
	if s.readOnly {
		return false, fmt.Errorf("palace %q: %w", s.name, store.ErrReadOnly)
	}
	var busy, logged, moved int
	if err := s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved); err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	return busy == 0, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

var _ sqlstore.Tables = (*Store)(nil)

// ReadTables runs fn inside a deferred read transaction (as Snapshot).
func (s *Store) ReadTables(ctx context.Context, fn func(sqlstore.Querier, sqlstore.Dialect) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("read snapshot: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		return fmt.Errorf("read snapshot: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	return fn(conn, dialect{})
}

// WriteTables runs fn in an immediate write transaction.
func (s *Store) WriteTables(ctx context.Context, fn func(sqlstore.Querier, sqlstore.Dialect) error) error {
	if s.readOnly {
		return fmt.Errorf("palace %q: %w", s.name, store.ErrReadOnly)
	}
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if err := fn(t, dialect{}); err != nil {
		return err
	}
	return t.Commit()
}
