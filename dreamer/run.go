package dreamer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/rs/zerolog"
)

// RunOptions configures one Run.
type RunOptions struct {
	Settings
	// Passes names the passes to run, in any order (they always run in the
	// order of PassNames); nil runs them all.
	Passes []string
	// DryRun plans every pass and reports what it would change, changing
	// nothing and recording nothing. It needs no lock.
	DryRun bool
	// Trigger is recorded with the run: "schedule", "cli", "test".
	Trigger string
	// Owner identifies this process in the lock; default NewOwner().
	Owner string
	// Wait is how long to wait for another process's lock; 0 fails at
	// once with a *BusyError.
	Wait time.Duration
	// Now is the clock passes reason with (the "now" of each pure step);
	// default the palace's clock.
	Now func() time.Time
	// Wall is the lock's and the run record's clock; default time.Now.
	Wall   func() time.Time
	Logger zerolog.Logger
	// OnPass, when set, is called as each selected pass starts (done
	// passes so far, of total) and once more when the run ends (total of
	// total), for progress displays.
	OnPass func(name string, done, total int)
}

// BusyError is returned when another process holds the palace's dreamer
// lock.
type BusyError struct{ Holder dreamlog.Lease }

func (e *BusyError) Error() string {
	return fmt.Sprintf("another process (%s) is dreaming on this palace until %s", e.Holder.Owner,
		e.Holder.ExpiresAt.Format(time.RFC3339))
}

// NewOwner returns a lock owner id for this process: host, pid and a
// random suffix.
func NewOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// pass is one consolidation step. run plans over (palace, now) and, unless
// the run is dry, commits its changes in one transaction.
type pass struct {
	name string
	run  func(ctx context.Context, e *passEnv) error
}

// passes in the order they run: vectors first (dedup and skills need
// current ones), staleness before dedup (a stale fact is not a survivor),
// closets after the drawer set settled.
var passes = []pass{
	{"index", runIndex},
	{"stale", runStale},
	{"dedup", runDedup},
	{"skills", runSkills},
	{"decay", runDecay},
	{"closets", runClosets},
	{"kg", runKG},
}

// PassNames lists the passes in the order they run.
func PassNames() []string {
	out := make([]string, len(passes))
	for i, p := range passes {
		out[i] = p.name
	}
	return out
}

// errBudget stops a plan when the run's time budget is spent.
var errBudget = errors.New("time budget spent")

// passEnv is what a pass sees.
type passEnv struct {
	p        *palace.Palace
	s        Settings
	now      time.Time // the pass's "now" (palace clock or injected)
	deadline time.Time // budget end (wall time)
	dry      bool
	run      string
	owner    string
	log      zerolog.Logger
	rep      *PassReport
	inTx     *atomic.Bool // a pass transaction of this run is open
}

func (e *passEnv) overBudget() bool { return time.Now().After(e.deadline) }

// passTx is a pass's transaction; while it is open the run's heartbeat
// leaves the lock alone (nobody else can write it then, and a renewal
// would only wait on this very transaction).
type passTx struct {
	*dreamlog.Tx
	inTx *atomic.Bool
}

func (t passTx) Commit() error {
	defer t.inTx.Store(false)
	return t.Tx.Commit()
}

func (t passTx) Rollback() {
	t.Tx.Rollback()
	t.inTx.Store(false)
}

// begin opens the pass's transaction.
func (e *passEnv) begin(ctx context.Context) (passTx, error) {
	e.inTx.Store(true)
	tx, err := dreamlog.Of(e.p).Begin(ctx, e.run, e.rep.Name, e.owner)
	if err != nil {
		e.inTx.Store(false)
		return passTx{}, err
	}
	return passTx{tx, e.inTx}, nil
}

// midApply is called halfway through applying a pass's changes (inside
// its transaction); it honours Settings.ApplyDelay.
func (e *passEnv) midApply(ctx context.Context) error {
	if e.s.ApplyDelay <= 0 {
		return nil
	}
	e.log.Debug().Str("pass", e.rep.Name).Msg("dream pass applying (delayed)")
	return sleepCtx(ctx, e.s.ApplyDelay)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run runs the dreamer's passes over a palace once: it takes the palace's
// dreamer lock (waiting up to Wait), records the run, runs each pass in
// order within the time budget and returns the report. Each pass commits
// all of its changes or none: a cancelled context rolls back the pass in
// progress and skips the rest. The error is non-nil only when the run
// could not start or be recorded; a failing pass is reported in the
// report (status failed) and the other passes still run.
func Run(ctx context.Context, p *palace.Palace, o RunOptions) (*Report, error) {
	o.Settings = o.Settings.withDefaults()
	selected, err := selectPasses(o.Passes)
	if err != nil {
		return nil, err
	}
	if o.Owner == "" {
		o.Owner = NewOwner()
	}
	if o.Wall == nil {
		o.Wall = time.Now
	}
	if o.Now == nil {
		o.Now = p.Now
	}
	if o.Trigger == "" {
		o.Trigger = "cli"
	}
	rep := &Report{Palace: p.Name(), DryRun: o.DryRun, Trigger: o.Trigger, Passes: []PassReport{}}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	inTx := &atomic.Bool{}
	if !o.DryRun {
		if err := acquire(ctx, p, o); err != nil {
			return nil, err
		}
		defer func() {
			rctx, rcancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer rcancel()
			_ = dreamlog.Of(p).Release(rctx, o.Owner)
		}()
		stop := heartbeat(runCtx, cancel, p, o, inTx)
		defer stop()
	}
	rep.StartedAt = o.Wall().UTC()
	if !o.DryRun {
		if n, err := dreamlog.Of(p).CloseAbandonedRuns(runCtx, o.Owner, rep.StartedAt); err != nil {
			return nil, err
		} else if n > 0 {
			o.Logger.Info().Int("runs", n).Msg("closed dream runs a killed process left running")
		}
		rep.RunID = dreamlog.NewRunID(rep.StartedAt)
		if err := dreamlog.Of(p).BeginRun(runCtx, &dreamlog.Run{ID: rep.RunID, Owner: o.Owner, Trigger: o.Trigger,
			Passes: selected, StartedAt: rep.StartedAt}); err != nil {
			return nil, err
		}
	}
	if rep.Before, err = counts(runCtx, p); err != nil {
		return nil, finishFailed(p, rep, o, err)
	}
	deadline := time.Now().Add(o.Budget)
	want := map[string]bool{}
	for _, n := range selected {
		want[n] = true
	}
	failed, partial := false, false
	started := 0
	for _, ps := range passes {
		if !want[ps.name] {
			continue
		}
		if o.OnPass != nil {
			o.OnPass(ps.name, started, len(selected))
		}
		started++
		pr := PassReport{Name: ps.name, Status: PassOK}
		switch {
		case runCtx.Err() != nil:
			pr.Status, pr.Note = PassCancelled, "run cancelled"
		case time.Now().After(deadline):
			pr.Status, pr.Note = PassSkipped, "time budget spent"
			partial = true
		default:
			start := time.Now()
			env := &passEnv{p: p, s: o.Settings, now: o.Now().UTC(), deadline: deadline, dry: o.DryRun,
				run: rep.RunID, owner: o.Owner, rep: &pr, inTx: inTx,
				log: o.Logger.With().Str("pass", ps.name).Logger()}
			err := sleepCtx(runCtx, o.PassDelay)
			if err == nil {
				err = ps.run(runCtx, env)
			}
			pr.TookMS = time.Since(start).Milliseconds()
			switch {
			case err == nil:
			case runCtx.Err() != nil && ps.name == "index":
				pr.Status, pr.Note = PassCancelled, "run cancelled; batches already re-embedded stay"
			case runCtx.Err() != nil:
				pr.Status, pr.Note, pr.Changed = PassCancelled, "run cancelled; nothing of this pass was committed", 0
				pr.Merges, pr.Stale, pr.Skills, pr.Closets, pr.Decay, pr.Omitted = nil, nil, nil, nil, nil, 0
			default:
				pr.Status, pr.Note, pr.Changed = PassFailed, err.Error(), 0
				failed = true
				o.Logger.Warn().Err(err).Str("pass", ps.name).Msg("dream pass failed")
			}
			if pr.Status == PassPartial {
				partial = true
			}
		}
		rep.Passes = append(rep.Passes, pr)
	}
	if o.OnPass != nil {
		o.OnPass("", started, len(selected))
	}
	switch {
	case runCtx.Err() != nil:
		rep.Status = dreamlog.Cancelled
	case failed:
		rep.Status = dreamlog.Failed
	case partial:
		rep.Status = dreamlog.Partial
	default:
		rep.Status = dreamlog.Done
	}
	fctx, fcancel := finishCtx(runCtx)
	defer fcancel()
	if after, err := counts(fctx, p); err == nil {
		rep.After = after
	}
	for _, pr := range rep.Passes {
		if pr.Status == PassOK || pr.Status == PassPartial {
			if pr.Name == "dedup" || pr.Name == "stale" || pr.Name == "decay" || pr.Name == "skills" {
				rep.Changes += pr.Changed
			}
		}
	}
	rep.FinishedAt = o.Wall().UTC()
	if o.DryRun {
		return rep, nil
	}
	if err := dreamlog.Of(p).FinishRun(fctx, rep.RunID, rep.Status, rep.FinishedAt, rep); err != nil {
		return rep, err
	}
	_, _ = p.LogEvent(fctx, dreamlog.EventFinished, map[string]any{"run": rep.RunID, "status": rep.Status,
		"changes": rep.Changes})
	return rep, nil
}

// finishCtx is the context for recording a run's end: the run's own while
// it lives, else a short one of its own so a cancelled run still records
// its status within the shutdown grace.
func finishCtx(runCtx context.Context) (context.Context, context.CancelFunc) {
	if runCtx.Err() == nil {
		return context.WithCancel(runCtx)
	}
	return context.WithTimeout(context.Background(), 500*time.Millisecond)
}

func finishFailed(p *palace.Palace, rep *Report, o RunOptions, cause error) error {
	if rep.RunID != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_ = dreamlog.Of(p).FinishRun(ctx, rep.RunID, dreamlog.Failed, o.Wall().UTC(), rep)
	}
	return cause
}

func selectPasses(names []string) ([]string, error) {
	if len(names) == 0 {
		return PassNames(), nil
	}
	known := map[string]bool{}
	for _, p := range passes {
		known[p.name] = true
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" || seen[n] {
			continue
		}
		if !known[n] {
			return nil, palace.Invalidf("unknown pass %q: the passes are %s", n, strings.Join(PassNames(), ", "))
		}
		seen[n] = true
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, palace.Invalidf("no pass named: the passes are %s", strings.Join(PassNames(), ", "))
	}
	return out, nil
}

func counts(ctx context.Context, p *palace.Palace) (Counts, error) {
	m, err := p.CountByStatus(ctx)
	if err != nil {
		return Counts{}, err
	}
	c := Counts{ByStatus: m}
	for _, n := range m {
		c.Total += n
	}
	return c, nil
}

// acquire takes the dreamer lock, polling until o.Wait has passed. It
// reads the lock first (a read never waits in WAL mode) and only tries to
// write it when it looks free, expired or ours, so a caller that must not
// wait is answered at once while another process is mid-pass.
func acquire(ctx context.Context, p *palace.Palace, o RunOptions) error {
	deadline := time.Now().Add(o.Wait)
	for {
		holder, held, err := dreamlog.Of(p).Holder(ctx)
		if err != nil {
			return err
		}
		now := o.Wall()
		if !held || holder.Owner == o.Owner || !holder.ExpiresAt.After(now) {
			ok, h, err := dreamlog.Of(p).Acquire(ctx, o.Owner, o.LockTTL, now)
			switch {
			case ok:
				return nil
			case err != nil && !time.Now().Before(deadline):
				return err // the database stayed busy for the whole wait
			case err == nil:
				holder = h
			}
		}
		if !time.Now().Before(deadline) {
			return &BusyError{Holder: holder}
		}
		if err := sleepCtx(ctx, min(100*time.Millisecond, time.Until(deadline)+time.Millisecond)); err != nil {
			return err
		}
	}
}

// heartbeat renews the lock every TTL/3 while the run lives. If the lock
// is lost (this process stalled past its lease and another took it), the
// run is cancelled: the pass in progress commits nothing. A renewal that
// fails for another reason (the database busy) is retried at the next
// beat. While one of the run's pass transactions is open the heartbeat
// does not try at all: SQLite would make it wait (ignoring cancellation,
// which shutdown relies on) for that very transaction, and nobody else can
// take the lock meanwhile anyway.
func heartbeat(ctx context.Context, cancel context.CancelFunc, p *palace.Palace, o RunOptions, inTx *atomic.Bool) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	beat := max(o.LockTTL/3, 10*time.Millisecond)
	go func() {
		defer close(finished)
		t := time.NewTicker(beat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if inTx.Load() {
					continue // SQLite's write lock is ours: the dreamer lock cannot change hands
				}
				rctx, rcancel := context.WithTimeout(ctx, max(beat, time.Second))
				ok, err := dreamlog.Of(p).Renew(rctx, o.Owner, o.LockTTL, o.Wall())
				rcancel()
				switch {
				case ctx.Err() != nil:
					return
				case err != nil:
					o.Logger.Debug().Err(err).Msg("dreamer lock not renewed; retrying")
				case !ok:
					o.Logger.Warn().Msg("dreamer lock lost to another process; cancelling the run")
					cancel()
					return
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// Undo reverts a recorded run (the newest not yet undone when runID is
// empty) under the dreamer lock. See palace.UndoDream.
func Undo(ctx context.Context, p *palace.Palace, runID string, o RunOptions) (dreamlog.UndoReport, error) {
	o.Settings = o.Settings.withDefaults()
	if o.Owner == "" {
		o.Owner = NewOwner()
	}
	if o.Wall == nil {
		o.Wall = time.Now
	}
	if runID == "" {
		runs, err := dreamlog.Of(p).Runs(ctx, 1000)
		if err != nil {
			return dreamlog.UndoReport{}, err
		}
		for _, r := range runs {
			if !r.UndoneAt.IsZero() {
				continue
			}
			// Count the changes themselves: a run its process never
			// finished records none in its row but may have committed some.
			cs, err := dreamlog.Of(p).Changes(ctx, r.ID)
			if err != nil {
				return dreamlog.UndoReport{}, err
			}
			if len(cs) > 0 {
				runID = r.ID
				break
			}
		}
		if runID == "" {
			return dreamlog.UndoReport{}, palace.NotFoundf("no dream run with changes left to undo in palace %q", p.Name())
		}
	}
	if err := acquire(ctx, p, o); err != nil {
		return dreamlog.UndoReport{}, err
	}
	defer func() {
		rctx, rcancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer rcancel()
		_ = dreamlog.Of(p).Release(rctx, o.Owner)
	}()
	return dreamlog.Of(p).Undo(ctx, runID, o.Owner)
}
