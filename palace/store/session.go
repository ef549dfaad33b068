package store

import (
	"context"
	"time"
)

// Session buffers hold conversation messages accepted by a face (seed
// 001's /add, seed 000's mem_save_turn, the hooks) until they are
// extracted into drawers. Boundary detection numbers stretches; a stretch
// below the session's open stretch is closed and waits for extraction.

// Buffered is one buffered message. Message is the message as JSON.
type Buffered struct {
	ID        int64
	SessionID string
	Stretch   int64
	Role      string
	SenderID  string
	At        time.Time // message time
	Size      int       // text bytes, for the size cap
	Message   []byte
	UserID    string
	AgentID   string
	Agent     bool
	AddedAt   time.Time
}

// SessionReader reads session buffers.
type SessionReader interface {
	// Messages returns the session's buffered messages, oldest first.
	Messages(ctx context.Context, sessionID string) ([]Buffered, error)
	// Stretch returns the messages of one stretch, oldest first.
	Stretch(ctx context.Context, sessionID string, stretch int64) ([]Buffered, error)
	// OpenStretch is the number of the session's open stretch (0 for a
	// session never seen).
	OpenStretch(ctx context.Context, sessionID string) (int64, error)
	// ClosedStretches lists the closed stretches still buffered, oldest
	// first.
	ClosedStretches(ctx context.Context, sessionID string) ([]int64, error)
	// Counts returns how many messages each session has buffered.
	Counts(ctx context.Context) (map[string]int, error)
	// Count is how many messages the session has buffered.
	Count(ctx context.Context, sessionID string) (int, error)
	// Quiet lists, by id, the sessions with buffered messages of which
	// the latest arrived (AddedAt) before before.
	Quiet(ctx context.Context, before time.Time) ([]string, error)
	// Failures lists the sessions whose last extraction failed (attempts
	// since the last success above 0), by session id.
	Failures(ctx context.Context) ([]SessionFailure, error)
}

// SessionFailure is a session whose extraction keeps failing: how many
// attempts failed since its last success, and the last one's error.
type SessionFailure struct {
	SessionID string
	Attempts  int
	LastError string
}

// SessionWriter writes session buffers and seed 001's id counters.
type SessionWriter interface {
	SessionReader
	// Append buffers one message (its ID is ignored).
	Append(ctx context.Context, b Buffered) error
	// SetOpenStretch records the session's open stretch.
	SetOpenStretch(ctx context.Context, sessionID string, open int64, at time.Time) error
	// DeleteStretch removes a stretch's messages and returns how many.
	DeleteStretch(ctx context.Context, sessionID string, stretch int64) (int64, error)
	// NoteFailure counts a failed extraction of the session.
	NoteFailure(ctx context.Context, sessionID, message string) error
	// ClearFailures resets the session's failure count.
	ClearFailures(ctx context.Context, sessionID string) error
	// Reserve adds n to the counter named prefix and returns its new
	// value (the last of the n numbers reserved).
	Reserve(ctx context.Context, prefix string, n int) (int64, error)
	// Lease takes the session's extraction for holder until until, or
	// renews holder's lease, unless another holder's lease runs past at.
	// It reports whether holder has the lease. Several processes and nodes
	// share a palace's sessions, and an extraction may call a model for a
	// minute; the lease lets the others leave it to the one extracting. A
	// session that has no state (nothing ever buffered) is never leased.
	Lease(ctx context.Context, sessionID, holder string, at, until time.Time) (bool, error)
	// Release ends holder's lease on the session's extraction (nothing
	// when another holds it).
	Release(ctx context.Context, sessionID, holder string) error
	// Claim records a request key (a client's idempotency key) at at and
	// reports whether it is new; a key seen before is not recorded again.
	// Keys older than forget are dropped first, so the table stays small.
	Claim(ctx context.Context, key string, at time.Time, forget time.Duration) (bool, error)
}
