package dreamlog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/store"
)

// Statuses of a dream run.
const (
	Running   = "running"
	Done      = "done"
	Partial   = "partial" // the time budget ran out before every pass finished
	Cancelled = "cancelled"
	Failed    = "failed"
)

// EventFinished is the change-log event a finished dream run writes.
const EventFinished = "dream.finished"

// The journal's records (defined at the store boundary).
type (
	Run       = store.DreamRun
	Change    = store.DreamChange
	Lease     = store.Lease
	DecayBase = store.DecayBase
)

// Journal is the dreamer's journal of one palace.
type Journal struct{ p *palace.Palace }

// Of returns the journal of p.
func Of(p *palace.Palace) Journal { return Journal{p} }

// NewRunID makes a run id: "dr_" + wall time (UTC, to the second) + 6
// random hex digits, so ids sort by start time.
func NewRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "dr_" + now.UTC().Format("20060102T150405") + "_" + hex.EncodeToString(b[:])
}

var storeErr = palace.StoreError

// BeginRun records the start of a run (status running) and fills in
// SeqBefore. r.StartedAt is wall-clock time.
func (j Journal) BeginRun(ctx context.Context, r *Run) error {
	if r.ID == "" || r.Owner == "" {
		return palace.Invalidf("a dream run needs an id and an owner")
	}
	if r.Status == "" {
		r.Status = Running
	}
	if r.Passes == nil {
		r.Passes = []string{}
	}
	return j.p.Write(ctx, func(t *palace.Tx) error {
		var err error
		if r.SeqBefore, err = t.Store().Log().LastSeq(ctx); err != nil {
			return storeErr("begin dream run", err)
		}
		err = t.Store().Dream().InsertRun(ctx, *r)
		if errors.Is(err, store.ErrConflict) {
			return palace.Conflictf("dream run %q already exists", r.ID)
		}
		return storeErr("begin dream run", err)
	})
}

// FinishRun records a run's end: status, report and change count, and
// the change-log high-water mark now.
func (j Journal) FinishRun(ctx context.Context, id, status string, finished time.Time, report any) error {
	rep, err := json.Marshal(report)
	if err != nil || report == nil {
		rep = []byte("{}")
	}
	return j.p.Write(ctx, func(t *palace.Tx) error {
		return storeErr("finish dream run", t.Store().Dream().FinishRun(ctx, id, status, finished, rep))
	})
}

// Runs lists recorded runs, newest first, at most limit (default 20).
func (j Journal) Runs(ctx context.Context, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 1000)
	rs, err := j.p.Store().Dream().Runs(ctx, limit)
	return rs, storeErr("list dream runs", err)
}

// Run returns one run; CodeNotFound for an unknown id.
func (j Journal) Run(ctx context.Context, id string) (Run, error) {
	r, err := j.p.Store().Dream().Run(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return r, palace.NotFoundf("dream run %q not found in palace %q", palace.Truncate(id, 80), j.p.Name())
	}
	return r, storeErr("get dream run", err)
}

// LastRun returns the newest run that finished (any status but running),
// and whether there is one.
func (j Journal) LastRun(ctx context.Context) (Run, bool, error) {
	rs, err := j.Runs(ctx, 50)
	if err != nil {
		return Run{}, false, err
	}
	for _, r := range rs {
		if r.Status != Running {
			return r, true, nil
		}
	}
	return Run{}, false, nil
}

// Changes lists the changes a run recorded, in the order made.
func (j Journal) Changes(ctx context.Context, runID string) ([]Change, error) {
	cs, err := j.p.Store().Dream().Changes(ctx, runID)
	return cs, storeErr("list dream changes", err)
}

// CloseAbandonedRuns marks runs still "running" under another owner as
// cancelled, with the number of changes they did commit. Call it holding
// the lease: no other run can then be alive, so such a row is what a
// killed process left behind.
func (j Journal) CloseAbandonedRuns(ctx context.Context, owner string, at time.Time) (int, error) {
	var n int
	err := j.p.Write(ctx, func(t *palace.Tx) error {
		var err error
		n, err = t.Store().Dream().CloseAbandoned(ctx, owner, Cancelled, at)
		return storeErr("close abandoned dream runs", err)
	})
	return n, err
}

// DecayBases returns the decay state of every drawer the dreamer has
// decayed, keyed by drawer id.
func (j Journal) DecayBases(ctx context.Context) (map[string]DecayBase, error) {
	m, err := j.p.Store().Dream().DecayBases(ctx)
	return m, storeErr("read decay state", err)
}

// Reverted returns the drawers a dream change of op once moved to a
// status they no longer have: someone (undo, the review queue, a person)
// reverted the dreamer's decision. The dreamer does not make it again.
func (j Journal) Reverted(ctx context.Context, op string) (map[string]bool, error) {
	m, err := j.p.Store().Dream().Reverted(ctx, op)
	return m, storeErr("read dream changes", err)
}
