package store

import (
	"context"
	"encoding/json"
	"time"
)

// The dreamer's journal: its runs, every drawer change a run made (for
// undo), the lease that lets one process at a time run passes on a
// palace, importance-decay bases, and the per-room closets.

// Lease is the holder of a palace's dreamer lease. It expires unless
// renewed, so a killed holder blocks others for at most one lease.
type Lease struct {
	Owner      string    `json:"owner"`
	AcquiredAt time.Time `json:"acquired_at"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// DreamRun is one recorded run of dreamer passes over a palace.
type DreamRun struct {
	ID         string          `json:"id"`
	Owner      string          `json:"owner"`
	Trigger    string          `json:"trigger"`
	Passes     []string        `json:"passes"`
	Status     string          `json:"status"`
	StartedAt  time.Time       `json:"started_at"`
	FinishedAt time.Time       `json:"finished_at,omitzero"`
	SeqBefore  int64           `json:"seq_before"`
	SeqAfter   int64           `json:"seq_after"`
	Changes    int             `json:"changes"`
	Report     json.RawMessage `json:"report,omitempty"`
	UndoneAt   time.Time       `json:"undone_at,omitzero"`
}

// DreamChange is one recorded drawer change of a run: Before and After
// hold only the fields the change touched.
type DreamChange struct {
	ID       int64          `json:"id"`
	RunID    string         `json:"run_id"`
	Pass     string         `json:"pass"`
	Op       string         `json:"op"`
	DrawerID string         `json:"drawer_id"`
	Before   map[string]any `json:"before"`
	After    map[string]any `json:"after"`
	At       time.Time      `json:"at"`
	Undone   bool           `json:"undone"`
}

// DecayBase is the decay state of one drawer.
type DecayBase struct {
	Base    float64 // the importance decay starts from
	Applied float64 // the importance the dreamer last wrote
}

// Closet is a room's keyword and summary index, refreshed by the dreamer.
type Closet struct {
	Room        string    `json:"room"`
	Keywords    []string  `json:"keywords"` // most distinctive first
	Summary     string    `json:"summary"`
	Drawers     int       `json:"drawers"` // active drawers in the room when refreshed
	RefreshedAt time.Time `json:"refreshed_at"`
	Seq         int64     `json:"seq"` // change-log seq the closet reflects
}

// DreamReader reads the dreamer's journal.
type DreamReader interface {
	// Lease returns the lease row, expired or not (ok false: none).
	Lease(ctx context.Context) (Lease, bool, error)
	// Runs returns the newest runs first, up to limit.
	Runs(ctx context.Context, limit int) ([]DreamRun, error)
	// Run returns one run (ErrNotFound when unknown).
	Run(ctx context.Context, id string) (DreamRun, error)
	// Changes returns a run's changes in the order they were made.
	Changes(ctx context.Context, runID string) ([]DreamChange, error)
	// Reverted returns the drawers that a change of op moved to a status
	// they no longer have.
	Reverted(ctx context.Context, op string) (map[string]bool, error)
	// DecayBases returns the decay state of every decayed drawer, keyed
	// by drawer id.
	DecayBases(ctx context.Context) (map[string]DecayBase, error)
	// Closets returns every closet, by room.
	Closets(ctx context.Context) ([]Closet, error)
}

// DreamWriter writes the dreamer's journal.
type DreamWriter interface {
	DreamReader
	// PutLease stores l as the palace's lease (replacing any).
	PutLease(ctx context.Context, l Lease) error
	// RenewLease moves owner's lease to expire at until; false when owner
	// does not hold it.
	RenewLease(ctx context.Context, owner string, until time.Time) (bool, error)
	// ReleaseLease removes owner's lease, if owner holds it.
	ReleaseLease(ctx context.Context, owner string) error
	// InsertRun records the start of a run.
	InsertRun(ctx context.Context, r DreamRun) error
	// FinishRun records a run's end: status, report, the number of changes
	// it recorded and the change log's high-water mark now.
	FinishRun(ctx context.Context, id, status string, finished time.Time, report []byte) error
	// CloseAbandoned marks owner's runs still "running" as status at at
	// and returns how many.
	CloseAbandoned(ctx context.Context, owner, status string, at time.Time) (int, error)
	// MarkRunUndone records that a run was undone at at.
	MarkRunUndone(ctx context.Context, id string, at time.Time) error
	// InsertChange records a drawer change of a run.
	InsertChange(ctx context.Context, c DreamChange) error
	// MarkChangeUndone records that a change was reverted.
	MarkChangeUndone(ctx context.Context, id int64) error
	// PutDecay records the decay state of the drawer with row id rid.
	PutDecay(ctx context.Context, rid int64, b DecayBase) error
	// SetDecayApplied changes only the applied importance.
	SetDecayApplied(ctx context.Context, rid int64, applied float64) error
	// ReplaceClosets replaces every closet.
	ReplaceClosets(ctx context.Context, cs []Closet) error
}
