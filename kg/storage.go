package kg

import (
	"context"
	"time"
)

// Storage is where a graph's triples are kept: the palace's store, which
// implements it for every backend (SQLite, PostgreSQL). kg decides what
// the triples are; Storage only reads and writes them.
type Storage interface {
	// Triples reads outside any transaction.
	Triples() Reader
	// BeginTriples starts a write transaction. Writers of one graph are
	// serialised: a transaction sees no other writer's uncommitted rows
	// and none can interleave with it.
	BeginTriples(ctx context.Context) (Tx, error)
}

// Tx is a write transaction over the triples.
type Tx interface {
	Writer
	Commit() error
	Rollback() error
}

// Reader reads stored triples. Lists come back in the order named.
type Reader interface {
	// Active returns the active triples of subject, by predicate, then
	// valid_from, then id.
	Active(ctx context.Context, subject string) ([]Triple, error)
	// ActivePair returns the active triples of (subject, predicate), by
	// valid_from, then id.
	ActivePair(ctx context.Context, subject, predicate string) ([]Triple, error)
	// ValidAt returns the triples of subject valid at t, by predicate,
	// then valid_from, then id.
	ValidAt(ctx context.Context, subject string, t time.Time) ([]Triple, error)
	// History returns every triple of subject, by valid_from, then id.
	History(ctx context.Context, subject string) ([]Triple, error)
	// ActiveWithObject returns the active triples whose object is object,
	// by subject, predicate, valid_from, then id.
	ActiveWithObject(ctx context.Context, object string) ([]Triple, error)
	// All returns every triple, by id.
	All(ctx context.Context) ([]Triple, error)
	// Duplicates returns the active triples that share their (subject,
	// predicate, object) with another active triple, by subject,
	// predicate, object, valid_from, then id.
	Duplicates(ctx context.Context) ([]Triple, error)
	// Subjects summarises subjects s with lower <= s < upper (byte-wise),
	// in subject order, up to limit.
	Subjects(ctx context.Context, lower, upper string, limit int) ([]SubjectSummary, error)
	// Stats counts the triples.
	Stats(ctx context.Context) (Stats, error)
	// Churn reports pairs whose object changed at least minChanges times
	// with valid_from at or after since (zero: all time); see Graph.Churn.
	Churn(ctx context.Context, since time.Time, minChanges int) ([]ChurnReport, error)
}

// Writer writes triples inside a transaction.
type Writer interface {
	Reader
	// Insert stores t (its ID is ignored; a zero ValidTo is stored as
	// active) and returns the new id.
	Insert(ctx context.Context, t Triple) (int64, error)
	// Close sets the valid_to of the triple with that id to at, if it is
	// still active.
	Close(ctx context.Context, id int64, at time.Time) error
	// Delete removes the triple with that id.
	Delete(ctx context.Context, id int64) error
	// SetConfidence changes a triple's confidence and provenance.
	SetConfidence(ctx context.Context, id int64, confidence float64, provenance string) error
}

// StoredTime is the text form a backend stores a triple time in: fixed
// width (years 0001–9999, nine fractional digits, always "Z"), so that
// string order is time order.
func StoredTime(t time.Time) string { return formatTime(t) }

// ParseStoredTime reads a time written by StoredTime (or any RFC 3339
// time), in UTC.
func ParseStoredTime(s string) (time.Time, error) { return parseTime(s) }
