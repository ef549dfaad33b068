package palace

import (
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

// Get returns the drawer with that id, whatever its status. It fails with
// CodeNotFound for an unknown id.
func (p *Palace) Get(ctx context.Context, id string) (*Drawer, error) {
	if strings.TrimSpace(id) == "" {
		return nil, Invalidf("drawer id is empty")
	}
	d, err := p.st.Drawers().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFoundf("drawer %q not found in palace %q", truncate(id, 80), p.name)
	}
	if err != nil {
		return nil, storeErr("get drawer", err)
	}
	return d, nil
}

// Resolve follows superseded_by links from id to the drawer that now holds
// its memory (at most 16 hops), returning the drawer itself when it was
// never superseded.
func (p *Palace) Resolve(ctx context.Context, id string) (*Drawer, error) {
	d, err := p.Get(ctx, id)
	for i := 0; err == nil && d.SupersededBy != "" && i < 16; i++ {
		var next *Drawer
		next, err = p.Get(ctx, d.SupersededBy)
		if err == nil {
			d = next
		}
	}
	return d, err
}

// ListOptions selects and orders drawers for List.
type ListOptions struct {
	Filter Filter
	// Order is "importance" (default: importance desc, newest first),
	// "newest", "oldest", "updated" (updated_at desc), "updated_oldest"
	// (updated_at asc) or "seq" (change order).
	Order  string
	Limit  int // default 50; at most MaxListLimit
	Offset int
}

// MaxListLimit bounds one page of List.
const MaxListLimit = 10000

// List returns drawers matching the filter and the total number that match
// before Limit and Offset apply. A Limit above MaxListLimit is clamped.
func (p *Palace) List(ctx context.Context, o ListOptions) ([]*Drawer, int, error) {
	if o.Limit <= 0 {
		o.Limit = 50
	}
	o.Limit = min(o.Limit, MaxListLimit)
	if o.Offset < 0 {
		return nil, 0, Invalidf("offset must not be negative")
	}
	f, err := p.normalizeFilter(o.Filter)
	if err != nil {
		return nil, 0, err
	}
	ds, total, err := p.st.Drawers().List(ctx, store.ListQuery{Filter: f, Order: o.Order, Limit: o.Limit, Offset: o.Offset})
	return ds, total, storeErr("list drawers", err)
}

// Count returns how many drawers match the filter.
func (p *Palace) Count(ctx context.Context, f Filter) (int64, error) {
	f, err := p.normalizeFilter(f)
	if err != nil {
		return 0, err
	}
	n, err := p.st.Drawers().Count(ctx, f)
	return n, storeErr("count drawers", err)
}

// normalizeFilter puts the filter's room in stored form.
func (p *Palace) normalizeFilter(f Filter) (Filter, error) {
	if f.Room != "" {
		if err := CheckName("room", f.Room, MaxRoomBytes); err != nil {
			return f, err
		}
		f.Room = NormalizeRoom(f.Room)
	}
	return f, nil
}

// drawersByRID loads drawers by row id, keyed by row id.
func (p *Palace) drawersByRID(ctx context.Context, rids []int64) (map[int64]*Drawer, error) {
	if len(rids) == 0 {
		return map[int64]*Drawer{}, nil
	}
	m, err := p.st.Drawers().ByRID(ctx, rids)
	return m, storeErr("load drawers", err)
}

// Counts counts the palace's drawers by status, and active ones by kind
// and room.
//
// The counts change only with a drawer change, and every drawer change
// raises the store's drawer seq, so they are kept with the seq they were
// counted at and counted again only when it has moved: grouping a million
// drawers takes a few hundred milliseconds, reading the seq well under
// one. The seq is read first, so counts that include a later write are
// kept under an older seq and recounted at the next call, never the other
// way round.
func (p *Palace) Counts(ctx context.Context) (store.Counts, error) {
	seq, err := p.st.Drawers().MaxSeq(ctx)
	if err != nil {
		return store.Counts{}, storeErr("count drawers", err)
	}
	cc := &p.counts
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.ok && cc.seq == seq {
		return cc.c.clone(), nil
	}
	c, err := p.st.Drawers().Counts(ctx)
	if err != nil {
		return store.Counts{}, storeErr("count drawers", err)
	}
	cc.c, cc.seq, cc.ok = countsOf(c), seq, true
	return cc.c.clone(), nil
}

// countsCache holds the drawer counts Counts read last.
type countsCache struct {
	mu  sync.Mutex
	ok  bool
	seq int64
	c   countsOf
}

// countsOf is store.Counts that copies itself, so that callers may keep
// (or change) what they are given.
type countsOf store.Counts

func (c countsOf) clone() store.Counts {
	return store.Counts{ByStatus: maps.Clone(c.ByStatus), ByKind: maps.Clone(c.ByKind), ByRoom: maps.Clone(c.ByRoom)}
}

// CountByStatus counts drawers per status.
func (p *Palace) CountByStatus(ctx context.Context) (map[string]int64, error) {
	c, err := p.Counts(ctx)
	return c.ByStatus, err
}

// Event is one entry of the palace's change log.
type Event = store.Event

// Changes returns up to limit change-log entries with seq > after, oldest
// first (the live views' feed).
func (p *Palace) Changes(ctx context.Context, after int64, limit int) ([]Event, error) {
	evs, err := p.st.Log().After(ctx, after, limit)
	return evs, storeErr("read change log", err)
}

// LastSeq is the newest change-log position (0 for an empty log).
func (p *Palace) LastSeq(ctx context.Context) (int64, error) {
	n, err := p.st.Log().LastSeq(ctx)
	return n, storeErr("read change log", err)
}

// History returns the change-log entries about one drawer, oldest first.
func (p *Palace) History(ctx context.Context, drawerID string) ([]Event, error) {
	evs, err := p.st.Log().ForDrawer(ctx, drawerID)
	return evs, storeErr("read change log", err)
}

// CountEvents counts change-log entries of type typ grouped by the string
// value of a detail key (dream outcomes by status, say).
func (p *Palace) CountEvents(ctx context.Context, typ, key string) (map[string]int64, error) {
	m, err := p.st.Log().CountByDetail(ctx, typ, key)
	return m, storeErr("read change log", err)
}

// IndexLag is how many drawer changes the vector index has not replayed
// yet (it catches up before the next search).
func (p *Palace) IndexLag(ctx context.Context) (int64, error) {
	n, err := p.st.Drawers().CountChangedAfter(ctx, p.vec.info().CaughtUp)
	return n, storeErr("index lag", err)
}

// Activity counts active drawers by event time in buckets of width, keyed
// by each bucket's start in Unix milliseconds.
func (p *Palace) Activity(ctx context.Context, width time.Duration) (map[int64]int64, error) {
	if width < time.Minute {
		return nil, Invalidf("activity buckets must be at least a minute wide")
	}
	m, err := p.st.Drawers().TimeBuckets(ctx, width)
	return m, storeErr("count drawers by time", err)
}

// TopTags returns the n most used tags of active drawers.
func (p *Palace) TopTags(ctx context.Context, n int) ([]store.TagCount, error) {
	tags, err := p.st.Drawers().TopTags(ctx, max(1, min(n, 1000)))
	return tags, storeErr("count tags", err)
}

// BufferedCounts counts the messages waiting in each session buffer.
func (p *Palace) BufferedCounts(ctx context.Context) (map[string]int, error) {
	m, err := p.st.Sessions().Counts(ctx)
	return m, storeErr("list session buffers", err)
}

// ExtractionFailures lists the sessions whose extraction failed since it
// last succeeded (an LLM provider out of reach, say): their messages wait
// in the buffer until a retry succeeds.
func (p *Palace) ExtractionFailures(ctx context.Context) ([]store.SessionFailure, error) {
	fs, err := p.st.Sessions().Failures(ctx)
	return fs, storeErr("list failed extractions", err)
}

// Meta returns a value of the palace's metadata ("" when unset).
func (p *Palace) Meta(ctx context.Context, key string) (string, error) {
	v, _, err := p.st.Meta().Get(ctx, key)
	return v, storeErr("read palace metadata", err)
}

// ClaimMeta sets key to value unless it is set already, and returns the
// value it holds now: a face records who a palace belongs to the first
// time it opens it and checks it every time after (EverOS scopes).
func (p *Palace) ClaimMeta(ctx context.Context, key, value string) (string, error) {
	var got string
	err := p.Write(ctx, func(t *Tx) error {
		if err := t.st.Meta().SetDefault(ctx, key, value); err != nil {
			return storeErr("write palace metadata", err)
		}
		v, _, err := t.st.Meta().Get(ctx, key)
		got = v
		return storeErr("read palace metadata", err)
	})
	return got, err
}
