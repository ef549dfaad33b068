package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/loci-mem/loci/kg"
)

// Sentinel errors a backend returns (wrapped with the operation).
var (
	// ErrNotFound: the palace, drawer or row does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a row with that key exists already (a drawer id, a
	// fact number, a palace name).
	ErrConflict = errors.New("already exists")
	// ErrReadOnly: the store can be read but not written (a SQLite data
	// dir on a read-only mount, say).
	ErrReadOnly = errors.New("read-only")
	// ErrUnavailable: the backend cannot be reached (a PostgreSQL server
	// restarting). The operation may be retried.
	ErrUnavailable = errors.New("store unavailable")
)

// InvalidError is bad input a backend found (an unknown filter field, an
// unknown order). Its message is meant for the user.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

// Invalidf returns an *InvalidError.
func Invalidf(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// Backend is where palaces are kept.
type Backend interface {
	// Kind names the backend: "sqlite" or "postgres".
	Kind() string
	// Location describes where the palaces live (a directory, or a
	// database URL without its password), for diagnostics.
	Location() string
	// Names lists the palaces, sorted.
	Names(ctx context.Context) ([]string, error)
	// Exists reports whether a palace of that name exists.
	Exists(ctx context.Context, name string) (bool, error)
	// Create makes a new, empty palace. It fails with ErrConflict when
	// one of that name exists.
	Create(ctx context.Context, name string) (Store, error)
	// Open opens an existing palace. It fails with ErrNotFound when there
	// is none of that name.
	Open(ctx context.Context, name string) (Store, error)
	// CacheDir is the directory on this machine where the palace's
	// derived caches (index snapshots) live. Losing it loses nothing.
	CacheDir(name string) string
	// Tokens is where the backend keeps its users' access tokens.
	Tokens(ctx context.Context) (TokenStore, error)
	// Close releases the backend's resources. Stores it opened must be
	// closed first.
	Close() error
}

// Store is one open palace's source of truth. It is safe for concurrent
// use. Its reader methods each see one consistent state; Snapshot runs
// several reads against the same one.
type Store interface {
	Reader
	// BeginTriples starts a write transaction of the knowledge graph
	// (kg.Storage, with Triples).
	BeginTriples(ctx context.Context) (kg.Tx, error)
	// Begin starts a write transaction. It waits for the palace's other
	// writers (in this process and in others) to finish.
	Begin(ctx context.Context) (Tx, error)
	// Snapshot runs fn with a reader that sees one consistent state of
	// the whole palace (an export).
	Snapshot(ctx context.Context, fn func(Reader) error) error
	// Check verifies the store's own integrity (SQLite's quick_check;
	// schema versions).
	Check(ctx context.Context) (Integrity, error)
	// Reclaim makes the space that erased rows held unreadable where the
	// engine can: SQLite zeroes the space of deleted and rewritten rows
	// as it frees it (secure_delete), and Reclaim checkpoints the
	// write-ahead log and truncates it, so no older copy of a page is
	// left in it. It reports false when other connections still read
	// the log and it could not be truncated. PostgreSQL keeps old row
	// versions until VACUUM: Reclaim cannot do that inside a shared
	// database and reports false.
	Reclaim(ctx context.Context) (bool, error)
	// Close releases the palace.
	Close() error
}

// Reader reads a palace, grouped by what the rows hold.
type Reader interface {
	Meta() MetaReader
	Log() LogReader
	Drawers() DrawerReader
	Facts() FactReader
	Sessions() SessionReader
	Dream() DreamReader
	Triples() kg.Reader
}

// Tx is one write transaction. Reads through it see its own writes. It
// must end with Commit or Rollback; Rollback after Commit is a no-op.
type Tx interface {
	Meta() MetaWriter
	Log() LogWriter
	Drawers() DrawerWriter
	Facts() FactWriter
	Sessions() SessionWriter
	Dream() DreamWriter
	Triples() kg.Writer
	Text() TextWriter
	Commit() error
	Rollback() error
}

// Notifier is implemented by stores that several machines share: Changes
// delivers a value soon after another node commits a change to the
// palace, so a node can catch its indexes up without polling. The channel
// is closed when ctx ends.
type Notifier interface {
	Changes(ctx context.Context) <-chan struct{}
}

// Sizer is implemented by stores whose records live on a server rather
// than in the palace's cache directory (PostgreSQL): Size is the bytes
// they take there, indexes included.
type Sizer interface {
	Size(ctx context.Context) (int64, error)
}

// Integrity is the outcome of Store.Check.
type Integrity struct {
	// Engine is the database's own verdict: "ok", or what it found.
	Engine string `json:"engine"`
	// Migrations is the number of schema migrations applied.
	Migrations int `json:"migrations"`
}

// Write runs fn in one transaction of s, committing when fn returns nil and
// rolling back otherwise.
func Write(ctx context.Context, s Store, fn func(Tx) error) error {
	tx, err := s.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
