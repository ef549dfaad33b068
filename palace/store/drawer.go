package store

import (
	"context"
	"time"
)

// Kinds of drawer. A palace stores every kind of memory in one table; the
// kind decides which face shows it and how.
const (
	KindNote       = "note"        // memory_remember
	KindTurn       = "turn"        // a saved conversation turn
	KindEpisode    = "episode"     // an extracted conversation episode
	KindAtomicFact = "atomic_fact" // a single-sentence fact from an episode
	KindFact       = "fact"        // an Engram / mem_save_fact fact (review queue)
	KindProfile    = "profile"     // a user profile document
	KindAgentCase  = "agent_case"  // agent track: one run
	KindAgentSkill = "agent_skill" // agent track: a skill clustered from cases
	KindSession    = "session"     // a Claude Code session summary
)

// Statuses of a drawer. Only active drawers are recalled.
const (
	StatusActive     = "active"
	StatusPending    = "pending"
	StatusRejected   = "rejected"
	StatusStale      = "stale"
	StatusSuperseded = "superseded"
	StatusDeleted    = "deleted"
)

// ValidStatus reports whether s is one of the statuses above.
func ValidStatus(s string) bool {
	switch s {
	case StatusActive, StatusPending, StatusRejected, StatusStale, StatusSuperseded, StatusDeleted:
		return true
	}
	return false
}

// Drawer is one memory.
type Drawer struct {
	ID         string   `json:"id"`
	Seq        int64    `json:"seq"`
	Kind       string   `json:"kind"`
	Content    string   `json:"content"`
	Keywords   string   `json:"keywords,omitempty"` // extra searchable text at half weight (see palace/restated.go for its parts)
	Room       string   `json:"room"`
	Tags       []string `json:"tags"`
	Importance float64  `json:"importance"`
	Confidence float64  `json:"confidence"`
	Status     string   `json:"status"`
	UserID     string   `json:"user_id,omitempty"`
	AgentID    string   `json:"agent_id,omitempty"`
	SessionID  string   `json:"session_id,omitempty"`
	// Connection is the connection a text remembered without a session
	// came through (internal: it orders neighbours and names the text's
	// episode for the keyword index, and no face shows it).
	Connection   string         `json:"-"`
	SenderIDs    []string       `json:"sender_ids,omitempty"`
	ParentID     string         `json:"parent_id,omitempty"`
	SupersededBy string         `json:"superseded_by,omitempty"`
	Timestamp    time.Time      `json:"timestamp"` // when the remembered event happened
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
	AccessCount  int64          `json:"access_count"`
	LastAccess   time.Time      `json:"last_access,omitzero"`
	Pinned       bool           `json:"pinned,omitempty"`
	Redactions   int            `json:"redactions,omitempty"` // secrets replaced before storing
	Model        string         `json:"model,omitempty"`      // embedder id of the stored vector
	Meta         map[string]any `json:"meta,omitempty"`

	// RID is the drawer's row id in its palace: stable for the drawer's
	// life, the key of the keyword index. Set by DrawerWriter.Insert.
	RID int64 `json:"-"`
	// VecKey is the vector index key of the drawer's current vector (0:
	// none). It is the seq of the change that gave the drawer that vector
	// (or re-admitted it to recall), so a key is never reused.
	VecKey int64 `json:"-"`
	// VecPassages is the number of passage vectors stored beside the
	// drawer's whole-text vector (Vector.Count). Read, never written
	// through the drawer.
	VecPassages int `json:"-"`
}

// Vector is a drawer's stored embedding: Blob is the whole text's vector
// as little-endian float32 (nil: none); Passages holds, for a long text,
// the vectors of its passages one after another in the same encoding (nil
// for a short text).
type Vector struct {
	Blob     []byte
	Passages []byte
	// Count is the number of the drawer's vector passages (0: embedded
	// whole); Passages, when not nil, holds that many vectors.
	Count int
}

// VecRef names one stored vector: the whole-text vector of the drawer
// with vector key Key (Passage 0), or one of its passages.
type VecRef struct {
	Key     int64
	Passage int
}

// Filter selects drawers before any ranking. The zero Filter selects every
// active drawer. Room is compared as stored (the core normalises it).
type Filter struct {
	Kinds     []string
	Statuses  []string // nil means active only; use AnyStatus for all
	Room      string
	Tags      []string // every tag must be present
	UserID    string
	AgentID   string
	SessionID string
	IDs       []string
	Since     time.Time // event time >= Since
	Until     time.Time // event time < Until
	Where     *Pred     // an arbitrary predicate tree (the faces' filter DSLs)
}

// AnyStatus is a Statuses value that selects drawers of every status.
var AnyStatus = []string{"*"}

// AllStatuses reports whether f selects drawers of every status.
func (f Filter) AllStatuses() bool { return len(f.Statuses) == 1 && f.Statuses[0] == "*" }

// ActiveOnly reports whether f is the zero filter: every active drawer.
func (f Filter) ActiveOnly() bool {
	return len(f.Statuses) == 0 && len(f.Kinds) == 0 && f.Room == "" && len(f.Tags) == 0 &&
		f.UserID == "" && f.AgentID == "" && f.SessionID == "" && len(f.IDs) == 0 &&
		f.Since.IsZero() && f.Until.IsZero() && f.Where == nil
}

// Pred is a predicate tree over drawer fields. A node is either a
// combinator (And or Or, non-empty) or a comparison (Field, Op, Value).
//
// Fields: id, kind, room, status, user_id, agent_id, session_id, parent_id,
// content, timestamp, created_at, updated_at, importance, confidence,
// tag (membership in tags), sender_id (membership in sender_ids) and
// meta.<key> (a top-level key of the meta object).
//
// Ops: eq, ne, in, nin, gt, gte, lt, lte, contains (substring for text
// fields). Time fields take time.Time values; membership fields accept eq,
// ne, in and nin.
//
// Fold, on a membership field, compares letters in either case
// ("caroline" is a member of ["Caroline"], "élodie" of ["Élodie"]): on
// SQLite as Go's strings.ToLower folds them, on PostgreSQL as the server
// can (ICU's root locale, else a UTF-8 database locale, else A to Z
// alone). No face's filter language sets it: the MCP tools' speaker
// argument does.
type Pred struct {
	And   []Pred
	Or    []Pred
	Field string
	Op    string
	Value any
	Fold  bool
}

// Orders of ListQuery.
const (
	OrderImportance    = "importance"     // importance desc, newest created first (the default)
	OrderNewest        = "newest"         // event time desc
	OrderOldest        = "oldest"         // event time asc
	OrderUpdated       = "updated"        // updated_at desc
	OrderUpdatedOldest = "updated_oldest" // updated_at asc
	OrderSeq           = "seq"            // change order
)

// ListQuery selects and orders drawers.
type ListQuery struct {
	Filter Filter
	Order  string
	Limit  int
	Offset int
}

// ScanQuery pages through drawers in row order.
type ScanQuery struct {
	Filter  Filter
	AfterID int64 // RID to continue after
	Limit   int
	Vectors bool // also read each drawer's stored vector
}

// Change is a drawer's latest state as index catch-up needs it: what a
// derived index must replay for every drawer whose seq is past its
// high-water mark.
type Change struct {
	Seq      int64
	RID      int64
	Status   string
	VecKey   int64
	Model    string
	Vector   []byte // only when asked for
	Passages []byte // only when Vector is asked for
	// PassageCount is the number of the drawer's passage vectors (0 for a
	// drawer indexed whole).
	PassageCount int
	Content      string    // only when asked for
	Keywords     string    // only when asked for
	Timestamp    time.Time // event time; only with the text
	SessionID    string    // only with the text
	Connection   string    // only with the text
	Kind         string
}

// ChangeFields says which large columns Changes reads.
type ChangeFields struct {
	Vector bool
	Text   bool
}

// Counts are a palace's drawer counts.
type Counts struct {
	ByStatus map[string]int64 // every drawer
	ByKind   map[string]int64 // active drawers
	ByRoom   map[string]int64 // active drawers
}

// Access is a batch of recall hits for one drawer.
type Access struct {
	Hits int64
	Last time.Time
}

// DrawerReader reads drawers.
type DrawerReader interface {
	// Get returns the drawer with that id, whatever its status
	// (ErrNotFound when none).
	Get(ctx context.Context, id string) (*Drawer, error)
	// ByRID loads drawers by row id.
	ByRID(ctx context.Context, rids []int64) (map[int64]*Drawer, error)
	// List returns the drawers q selects, in order, and how many match
	// before Limit and Offset.
	List(ctx context.Context, q ListQuery) ([]*Drawer, int, error)
	// Count counts the drawers f selects.
	Count(ctx context.Context, f Filter) (int64, error)
	// Keys calls fn with the row id and vector key (0: none) of every
	// drawer f selects.
	Keys(ctx context.Context, f Filter, fn func(rid, vecKey int64)) error
	// Identity returns up to limit active drawers tagged "identity" that
	// f also selects, most important first.
	Identity(ctx context.Context, f Filter, limit int) ([]*Drawer, error)
	// ActiveKeys calls fn for every active drawer with a vector, with the
	// number of its passage vectors.
	ActiveKeys(ctx context.Context, fn func(vecKey, rid int64, passages int)) error
	// ResolveKeys maps vector keys to the row ids of active drawers that
	// hold them now; stale keys are absent from the map.
	ResolveKeys(ctx context.Context, keys []int64) (map[int64]int64, error)
	// KeyVectors reads stored vectors of active drawers by vector key:
	// refs[i] names a drawer's whole-text vector (Passage 0) or its
	// passage Passage (1-based), each size bytes long. fn is called with i
	// and the vector for each ref found (not for a stale key or an absent
	// vector or one of another size), one call at a time and in no
	// particular order. vec is valid only during the call: the store
	// hands over the driver's buffer instead of a copy (a search at 1M
	// drawers reads hundreds of 4 KB vectors, which copied were a third of
	// all its allocations).
	KeyVectors(ctx context.Context, refs []VecRef, size int, fn func(i int, vec []byte)) error
	// SeqOf is the seq of the drawer with row id rid (ErrNotFound when
	// none).
	SeqOf(ctx context.Context, rid int64) (int64, error)
	// MaxSeq is the seq of the latest drawer change (0: none).
	MaxSeq(ctx context.Context) (int64, error)
	// CountChangedAfter counts drawers whose latest change is past seq
	// (an index's lag).
	CountChangedAfter(ctx context.Context, seq int64) (int64, error)
	// Changes calls fn, in seq order, for every drawer whose latest
	// change is past seq.
	Changes(ctx context.Context, after int64, fields ChangeFields, fn func(Change) error) error
	// Scan pages through drawers in row order; v holds the stored vectors
	// when q.Vectors (nil when not asked for).
	Scan(ctx context.Context, q ScanQuery, fn func(d *Drawer, v *Vector) error) (last int64, n int, err error)
	// Vectors returns the stored vectors made by model of the drawers
	// with those ids.
	Vectors(ctx context.Context, model string, ids []string) (map[string][]byte, error)
	// Counts counts drawers by status, and active ones by kind and room.
	Counts(ctx context.Context) (Counts, error)
	// CountNeedingVector counts drawers that are not deleted and have no
	// vector of dim floats made by model.
	CountNeedingVector(ctx context.Context, model string, dim int) (int64, error)
	// NeedingVector returns up to limit drawers (row id, seq, text) with
	// row id above after that lack a vector of dim floats made by model:
	// active ones, or (active false) the others that are not deleted.
	NeedingVector(ctx context.Context, model string, dim int, active bool, after int64, limit int) ([]VectorTodo, error)
	// Vectored returns up to limit drawers (not deleted, rid > after, in
	// rid order) that have a vector and either passage vectors or a text
	// of more than minChars characters, with their passage counts: the
	// drawers whose passage vectors a change of window can concern.
	Vectored(ctx context.Context, minChars int, after int64, limit int) ([]VectorTodo, error)
	// Existing returns which of ids are drawer ids in the palace.
	Existing(ctx context.Context, ids []string) (map[string]bool, error)
	// Previous returns the latest drawer of the session, of one of kinds,
	// with event time at or before ts (ties: the last written), that is
	// not deleted (ok false when none).
	Previous(ctx context.Context, sessionID string, kinds []string, ts time.Time) (*Drawer, bool, error)
	// Adjacent returns the active drawers of one of kinds just before and
	// just after d in its session (or, without one, its connection), by
	// event time (ties by row id); nil where there is none.
	Adjacent(ctx context.Context, d *Drawer, kinds []string) (prev, next *Drawer, err error)
	// TimeBuckets counts active drawers by event time in buckets of
	// width, keyed by the bucket's start.
	TimeBuckets(ctx context.Context, width time.Duration) (map[int64]int64, error)
	// Undo returns the undo token (ErrNotFound when unknown).
	Undo(ctx context.Context, token string) (Undo, error)
	// TopTags returns the n most used tags of active drawers with their
	// counts, most used first.
	TopTags(ctx context.Context, n int) ([]TagCount, error)
}

// Undo is an undo token: it restores a drawer's previous status once, and
// only while the drawer is still as the action left it (same seq).
type Undo struct {
	Token            string
	Action           string
	DrawerID         string
	PrevStatus       string
	PrevSupersededBy string
	NewStatus        string
	Seq              int64
	CreatedAt        time.Time
	UsedAt           time.Time // zero until used
}

// VectorTodo is a drawer Reembed must embed.
type VectorTodo struct {
	RID      int64
	Seq      int64
	ID       string
	Content  string
	Keywords string
	// Passages is the number of passage vectors stored.
	Passages int
}

// TagCount is a tag and how many active drawers carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int64  `json:"count"`
}

// DrawerWriter writes drawers inside a transaction. The core decides seqs,
// vector keys and timestamps; the writer stores what it is given.
type DrawerWriter interface {
	DrawerReader
	// Insert stores a new drawer with its vectors (nil: none) and sets
	// d.RID. It fails with ErrConflict when the id exists.
	Insert(ctx context.Context, d *Drawer, v *Vector) error
	// Update rewrites every field of the drawer with row id d.RID; the
	// stored vectors change only when v is not nil.
	Update(ctx context.Context, d *Drawer, v *Vector) error
	// SetWeights changes importance and confidence only (no change-log
	// entry: access and decay bookkeeping).
	SetWeights(ctx context.Context, rid int64, importance, confidence float64) error
	// DecayImportance sets the importance of the drawer with that id to
	// w only while its seq and importance are still seq and was; it
	// returns the drawer's row id and whether it changed.
	DecayImportance(ctx context.Context, id string, seq int64, was, w float64) (int64, bool, error)
	// SetVector stores new vectors for the drawer with row id rid, moving
	// it to seq with vector key key.
	SetVector(ctx context.Context, rid, seq int64, model string, key int64, v Vector) error
	// PutUndo stores an undo token.
	PutUndo(ctx context.Context, u Undo) error
	// UseUndo marks the token used at at; false when it was used already.
	UseUndo(ctx context.Context, token string, at time.Time) (bool, error)
	// AddAccess adds recall hits to drawers by row id.
	AddAccess(ctx context.Context, hits map[int64]Access) error
}
