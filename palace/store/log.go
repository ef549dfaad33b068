package store

import (
	"context"
	"time"
)

// Event is one entry of a palace's change log. Detail is a JSON object
// (nil or empty means {}).
type Event struct {
	Seq      int64
	At       time.Time
	Type     string
	DrawerID string
	Detail   []byte
}

// LogReader reads the change log.
type LogReader interface {
	// LastSeq is the newest seq (0 for an empty log).
	LastSeq(ctx context.Context) (int64, error)
	// After returns up to limit events with seq > after, oldest first.
	After(ctx context.Context, after int64, limit int) ([]Event, error)
	// ForDrawer returns every event about the drawer, oldest first.
	ForDrawer(ctx context.Context, drawerID string) ([]Event, error)
	// CountForDrawerAfter counts events of type typ about the drawer
	// with seq > after.
	CountForDrawerAfter(ctx context.Context, drawerID, typ string, after int64) (int, error)
	// LastActivity returns the newest event that is neither of a type
	// starting with one of skipTypePrefixes nor carrying one of
	// skipDetailKeys in its detail (ok false when none).
	LastActivity(ctx context.Context, skipTypePrefixes, skipDetailKeys []string) (Event, bool, error)
	// CountByDetail counts events of type typ grouped by the string value
	// of detail key (events without it count under "").
	CountByDetail(ctx context.Context, typ, key string) (map[string]int64, error)
}

// LogWriter appends to the change log.
type LogWriter interface {
	LogReader
	// Append writes e (its Seq is ignored) and returns the seq it got.
	Append(ctx context.Context, e Event) (int64, error)
}

// MetaReader reads a palace's metadata (name, description, creation time,
// the HTTP companion's scope …): a small map of string keys and values.
type MetaReader interface {
	// Get returns the value of key (ok false when unset).
	Get(ctx context.Context, key string) (value string, ok bool, err error)
	// All returns every key and value.
	All(ctx context.Context) (map[string]string, error)
}

// MetaWriter writes a palace's metadata.
type MetaWriter interface {
	MetaReader
	// Set stores value under key, replacing any value.
	Set(ctx context.Context, key, value string) error
	// SetDefault stores value under key unless key is set already.
	SetDefault(ctx context.Context, key, value string) error
}
