package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/loci-mem/loci/palace/store"
)

// Querier is what readers and writers run statements on: a pool, a
// transaction, or a connection holding a read transaction.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// conn runs this package's queries on a Querier in a dialect: it binds
// their placeholders and marks the errors that mean the server is gone
// as store.ErrUnavailable.
type conn struct {
	q Querier
	d Dialect
}

func (c conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := c.q.ExecContext(ctx, c.d.Bind(query), args...)
	return res, c.mark(err)
}

func (c conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := c.q.QueryContext(ctx, c.d.Bind(query), args...)
	return rows, c.mark(err)
}

// QueryRowContext returns a row whose Scan marks errors as the others do.
func (c conn) QueryRowContext(ctx context.Context, query string, args ...any) row {
	return row{c.q.QueryRowContext(ctx, c.d.Bind(query), args...), c}
}

type row struct {
	r *sql.Row
	c conn
}

func (r row) Scan(dest ...any) error { return r.c.mark(r.r.Scan(dest...)) }

// queryAll runs a query on c and scans each of its rows with scan, in
// order. The errors are the query's, the scan's and the iteration's, as
// they come.
func queryAll[T any](ctx context.Context, c conn, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// mark wraps an error that means the server cannot be reached so that it
// also matches store.ErrUnavailable.
func (c conn) mark(err error) error {
	if err == nil || errors.Is(err, sql.ErrNoRows) || !c.d.Unavailable(err) {
		return err
	}
	return unavailable{err}
}

type unavailable struct{ err error }

func (u unavailable) Error() string        { return fmt.Sprintf("%v (%v)", u.err, store.ErrUnavailable) }
func (u unavailable) Unwrap() error        { return u.err }
func (u unavailable) Is(target error) bool { return target == store.ErrUnavailable }

// notFound wraps store.ErrNotFound with what was missing.
func notFound(what string) error { return fmt.Errorf("%s: %w", what, store.ErrNotFound) }

// conflict turns a unique violation into store.ErrConflict.
func (c conn) conflict(what string, err error) error {
	if c.d.IsUnique(err) {
		return fmt.Errorf("%s: %w", what, store.ErrConflict)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Mark returns err, marked to also match store.ErrUnavailable when d
// says it means the server cannot be reached (for a backend's own
// statements: Begin, its locks).
func Mark(d Dialect, err error) error { return conn{d: d}.mark(err) }
