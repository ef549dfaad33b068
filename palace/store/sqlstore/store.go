// Package sqlstore is the SQL behind every reader and writer of
// palace/store, written once over database/sql for the engines loci keeps
// palaces in. A backend package (store/sqlite, store/postgres) owns the
// connections, the schema and its migrations, transactions and locking,
// and hands this package a Querier and its Dialect; everything between
// a store method and its SQL lives here, so the two backends cannot drift
// apart in what they mean.
package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
)

// Reader is store.Reader over a Querier: the pool for reads that each see
// one consistent state, or a connection inside a read transaction for a
// snapshot.
type Reader struct{ c conn }

var _ store.Reader = Reader{}

// NewReader reads through q in dialect d.
func NewReader(q Querier, d Dialect) Reader { return Reader{conn{q, d}} }

func (r Reader) Meta() store.MetaReader        { return meta{r.c} }
func (r Reader) Log() store.LogReader          { return eventLog{r.c} }
func (r Reader) Drawers() store.DrawerReader   { return drawers{r.c} }
func (r Reader) Facts() store.FactReader       { return facts{r.c} }
func (r Reader) Sessions() store.SessionReader { return sessions{r.c} }
func (r Reader) Dream() store.DreamReader      { return dream{r.c} }
func (r Reader) Triples() kg.Reader            { return triples{r.c} }

// Tx is store.Tx over a database/sql transaction the backend began (and
// locked as it must).
type Tx struct {
	tx *sql.Tx
	c  conn
	// beforeCommit runs inside the transaction just before it commits
	// (PostgreSQL's NOTIFY to the other nodes).
	beforeCommit func(*sql.Tx) error
	done         bool
}

var _ store.Tx = (*Tx)(nil)

// NewTx wraps t. beforeCommit, when not nil, runs in t before Commit.
func NewTx(t *sql.Tx, d Dialect, beforeCommit func(*sql.Tx) error) *Tx {
	return &Tx{tx: t, c: conn{t, d}, beforeCommit: beforeCommit}
}

func (t *Tx) Meta() store.MetaWriter        { return meta{t.c} }
func (t *Tx) Log() store.LogWriter          { return eventLog{t.c} }
func (t *Tx) Drawers() store.DrawerWriter   { return drawers{t.c} }
func (t *Tx) Facts() store.FactWriter       { return facts{t.c} }
func (t *Tx) Sessions() store.SessionWriter { return sessions{t.c} }
func (t *Tx) Dream() store.DreamWriter      { return dream{t.c} }
func (t *Tx) Triples() kg.Writer            { return triples{t.c} }
func (t *Tx) Text() store.TextWriter        { return texts{t.c} }

// Commit commits, after the backend's hook.
func (t *Tx) Commit() error {
	if t.done {
		return fmt.Errorf("commit: %w", sql.ErrTxDone)
	}
	t.done = true
	if t.beforeCommit != nil {
		if err := t.beforeCommit(t.tx); err != nil {
			_ = t.tx.Rollback()
			return fmt.Errorf("commit: %w", t.c.mark(err))
		}
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", t.c.mark(err))
	}
	return nil
}

// Rollback rolls back; after Commit or Rollback it does nothing.
func (t *Tx) Rollback() error {
	if t.done {
		return nil
	}
	t.done = true
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// TripleTx is kg.Tx: a write transaction of the knowledge graph.
type TripleTx struct {
	triples
	t *Tx
}

var _ kg.Tx = (*TripleTx)(nil)

// NewTripleTx wraps t for the knowledge graph.
func NewTripleTx(t *sql.Tx, d Dialect, beforeCommit func(*sql.Tx) error) *TripleTx {
	x := NewTx(t, d, beforeCommit)
	return &TripleTx{triples: triples{x.c}, t: x}
}

func (t *TripleTx) Commit() error   { return t.t.Commit() }
func (t *TripleTx) Rollback() error { return t.t.Rollback() }
