package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlstore"
)

// Store is one palace: a connection pool on its schema.
type Store struct {
	sqlstore.Reader // reads on the pool
	db              *sql.DB
	b               *Backend
	name, schema    string
	lock            int64 // the advisory lock of the palace's writers
}

var (
	_ store.Store    = (*Store)(nil)
	_ store.Notifier = (*Store)(nil)
	_ kg.Storage     = (*Store)(nil)
)

// begin starts a write transaction holding the palace's writer lock. It
// waits for the palace's writers on every node to finish.
func (s *Store) begin(ctx context.Context) (*sql.Tx, error) {
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin write: %w", sqlstore.Mark(dialect{}, err))
	}
	if _, err := t.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, s.lock); err != nil {
		t.Rollback()
		return nil, fmt.Errorf("begin write: %w", sqlstore.Mark(dialect{}, err))
	}
	return t, nil
}

// notify tells the other nodes, as the transaction commits, that the
// palace changed (NOTIFY is delivered on commit, and not at all on
// rollback).
func (s *Store) notify(t *sql.Tx) error {
	_, err := t.Exec(`SELECT pg_notify($1, '')`, s.schema)
	return err
}

// Begin starts a write transaction.
func (s *Store) Begin(ctx context.Context) (store.Tx, error) {
	t, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	return sqlstore.NewTx(t, dialect{}, s.notify), nil
}

// BeginTriples is Begin for the knowledge graph: kg_assert's
// close-then-insert runs under the same lock, so two nodes cannot
// interleave it.
func (s *Store) BeginTriples(ctx context.Context) (kg.Tx, error) {
	t, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	return sqlstore.NewTripleTx(t, dialect{}, s.notify), nil
}

// Snapshot runs fn in a read-only REPEATABLE READ transaction: every read
// sees the palace as it was when the first one ran.
func (s *Store) Snapshot(ctx context.Context, fn func(store.Reader) error) error {
	return s.ReadTables(ctx, func(q sqlstore.Querier, d sqlstore.Dialect) error {
		return fn(sqlstore.NewReader(q, d))
	})
}

// Check asks the server for the palace's schema and counts the applied
// migrations. (PostgreSQL checks its own pages as it reads them; a full
// verification is pg_amcheck's job, run by the database's owner.)
func (s *Store) Check(ctx context.Context) (store.Integrity, error) {
	var in store.Integrity
	var schemas int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, s.schema).Scan(&schemas)
	if err != nil {
		return in, fmt.Errorf("check: %w", sqlstore.Mark(dialect{}, err))
	}
	in.Engine = "ok"
	if schemas != 1 {
		in.Engine = fmt.Sprintf("schema %s is missing", s.schema)
		return in, nil
	}
	err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&in.Migrations)
	return in, err
}

// Reclaim does nothing and reports false: PostgreSQL keeps the old
// versions of rewritten and deleted rows until VACUUM reclaims their space
// (and a later write overwrites it), which is the database owner's to run
// on a shared server (docs/team.md).
func (s *Store) Reclaim(ctx context.Context) (bool, error) { return false, nil }

// Close closes the palace's pool.
func (s *Store) Close() error { return s.db.Close() }

// Changes delivers a value soon after any node commits a write to the
// palace, and once after every reconnection (notifications sent while
// the listener was away are lost, so the caller should look). It holds
// one connection of its own, LISTENing on the palace's channel, and
// reconnects with a growing pause (up to 5 s) when the server goes away.
// The channel is closed when ctx ends.
func (s *Store) Changes(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	signal := func() {
		select {
		case out <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(out)
		pause := 50 * time.Millisecond
		for ctx.Err() == nil {
			err := s.listen(ctx, signal, func() { pause = 50 * time.Millisecond })
			if ctx.Err() != nil {
				return
			}
			_ = err // the server went away or refused: try again
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, 5*time.Second)
		}
	}()
	return out
}

// listen connects, LISTENs, signals once (anything may have been missed)
// and then once per notification, until the connection fails or ctx ends.
func (s *Store) listen(ctx context.Context, signal, connected func()) error {
	c, err := pgx.ConnectConfig(ctx, s.b.cfg.Copy())
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	if _, err := c.Exec(ctx, `LISTEN `+s.schema); err != nil {
		return err
	}
	connected()
	signal()
	for {
		if _, err := c.WaitForNotification(ctx); err != nil {
			return err
		}
		signal()
	}
}

var _ sqlstore.Tables = (*Store)(nil)

// ReadTables runs fn in a read-only REPEATABLE READ transaction.
func (s *Store) ReadTables(ctx context.Context, fn func(sqlstore.Querier, sqlstore.Dialect) error) error {
	t, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("read snapshot: %w", sqlstore.Mark(dialect{}, err))
	}
	defer t.Rollback()
	return fn(t, dialect{})
}

// WriteTables runs fn in a write transaction holding the palace's lock.
func (s *Store) WriteTables(ctx context.Context, fn func(sqlstore.Querier, sqlstore.Dialect) error) error {
	t, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if err := fn(t, dialect{}); err != nil {
		return err
	}
	if err := s.notify(t); err != nil {
		return err
	}
	return sqlstore.Mark(dialect{}, t.Commit())
}

var _ store.Sizer = (*Store)(nil)

// Size is the bytes of the palace's tables in the server, with their
// indexes and TOAST.
func (s *Store) Size(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
		WHERE ns.nspname = $1 AND c.relkind = 'r'`, s.schema).Scan(&n)
	return n, sqlstore.Mark(dialect{}, err)
}
