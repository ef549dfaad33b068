package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
)

// Store is one palace's SQLite database. Write transactions start
// IMMEDIATE (the DSN's _txlock), so writers of the palace, in this process
// and in others, queue on the busy timeout instead of failing when they
// upgrade a read lock.
type Store struct {
	db       *sql.DB
	name     string
	path     string
	readOnly bool
}

var (
	_ store.Store = (*Store)(nil)
	_ kg.Storage  = (*Store)(nil)
)

// querier is what readers and writers run statements on: the pool, a
// transaction or a connection holding a read transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

func (s *Store) Meta() store.MetaReader        { return meta{s.db} }
func (s *Store) Log() store.LogReader          { return eventLog{s.db} }
func (s *Store) Drawers() store.DrawerReader   { return drawers{s.db} }
func (s *Store) Facts() store.FactReader       { return facts{s.db} }
func (s *Store) Sessions() store.SessionReader { return sessions{s.db} }
func (s *Store) Dream() store.DreamReader      { return dream{s.db} }
func (s *Store) Triples() kg.Reader            { return triples{s.db} }

// Begin starts an immediate write transaction.
func (s *Store) Begin(ctx context.Context) (store.Tx, error) {
	if s.readOnly {
		return nil, fmt.Errorf("palace %q: %w", s.name, store.ErrReadOnly)
	}
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin write: %w", err)
	}
	return &tx{tx: t}, nil
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
	return &tripleTx{triples: triples{t}, tx: t}, nil
}

// Snapshot runs fn inside a deferred read transaction on a connection of
// its own: one consistent view that, in WAL mode, never blocks writers.
func (s *Store) Snapshot(ctx context.Context, fn func(store.Reader) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("read snapshot: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		return fmt.Errorf("read snapshot: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	return fn(reader{conn})
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

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// reader is Reader over a querier (a snapshot's connection).
type reader struct{ q querier }

func (r reader) Meta() store.MetaReader        { return meta{r.q} }
func (r reader) Log() store.LogReader          { return eventLog{r.q} }
func (r reader) Drawers() store.DrawerReader   { return drawers{r.q} }
func (r reader) Facts() store.FactReader       { return facts{r.q} }
func (r reader) Sessions() store.SessionReader { return sessions{r.q} }
func (r reader) Dream() store.DreamReader      { return dream{r.q} }
func (r reader) Triples() kg.Reader            { return triples{r.q} }

// tx is a write transaction.
type tx struct {
	tx   *sql.Tx
	done bool
}

func (t *tx) Meta() store.MetaWriter        { return meta{t.tx} }
func (t *tx) Log() store.LogWriter          { return eventLog{t.tx} }
func (t *tx) Drawers() store.DrawerWriter   { return drawers{t.tx} }
func (t *tx) Facts() store.FactWriter       { return facts{t.tx} }
func (t *tx) Sessions() store.SessionWriter { return sessions{t.tx} }
func (t *tx) Dream() store.DreamWriter      { return dream{t.tx} }
func (t *tx) Triples() kg.Writer            { return triples{t.tx} }

func (t *tx) Commit() error {
	t.done = true
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (t *tx) Rollback() error {
	if t.done {
		return nil
	}
	t.done = true
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// tripleTx is a write transaction of the knowledge graph.
type tripleTx struct {
	triples
	tx *sql.Tx
}

func (t *tripleTx) Commit() error { return t.tx.Commit() }

func (t *tripleTx) Rollback() error {
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// notFound wraps store.ErrNotFound with what was missing.
func notFound(what string) error { return fmt.Errorf("%s: %w", what, store.ErrNotFound) }

// conflict turns a UNIQUE violation into store.ErrConflict.
func conflict(what string, err error) error {
	if isUnique(err) {
		return fmt.Errorf("%s: %w", what, store.ErrConflict)
	}
	return fmt.Errorf("%s: %w", what, err)
}
