package dreamer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/palacetest"
	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

// twoPalaces opens one palace through two registries, as two processes
// would.
func twoPalaces(t *testing.T, clk *clock) (*palace.Palace, *palace.Palace) {
	dir := t.TempDir()
	return openPalaceIn(t, dir, clk), openPalaceIn(t, dir, clk)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	palacetest.WaitFor(t, 5*time.Second, what, cond)
}

// twoNodes opens one palace of a PostgreSQL store through two registries
// with data dirs of their own, as two nodes of a team would.
func twoNodes(t *testing.T, clk *clock) (*palace.Palace, *palace.Palace) {
	url := pgtest.URL(t)
	open := func() *palace.Palace {
		return openPalaceWith(t, palace.Config{DataDir: t.TempDir(), Store: url, Now: clk.Now})
	}
	return open(), open()
}

func TestRunLockExcludesOtherProcesses(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := twoPalaces(t, clk)
	runLockExcludes(t, a, b)
}

// The same lease holds between two nodes of a team palace.
func TestRunLockExcludesOtherNodes(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b := twoNodes(t, clk)
	runLockExcludes(t, a, b)
}

// runLockExcludes: while A runs passes, B is refused (or waits), and runs
// only after A released the lease.
func runLockExcludes(t *testing.T, a, b *palace.Palace) {
	ctx := context.Background()
	note(t, a, deployA)
	note(t, a, deployB)

	done := make(chan *dreamer.Report, 1)
	go func() {
		rep, err := dreamer.Run(ctx, a, dreamer.RunOptions{Owner: "A", Trigger: "test",
			Settings: dreamer.Settings{PassDelay: 150 * time.Millisecond}})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitFor(t, "A to hold the lock", func() bool {
		l, ok, _ := dreamlog.Of(b).Holder(ctx)
		return ok && l.Owner == "A"
	})
	_, err := dreamer.Run(ctx, b, dreamer.RunOptions{Owner: "B", Passes: []string{"decay"}})
	var busy *dreamer.BusyError
	if !errors.As(err, &busy) || busy.Holder.Owner != "A" {
		t.Fatalf("second dreamer: %v, want a BusyError naming A", err)
	}
	repB, err := dreamer.Run(ctx, b, dreamer.RunOptions{Owner: "B", Passes: []string{"decay"}, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	repA := <-done
	if repA.Status != dreamlog.Done || repB.Status != dreamlog.Done {
		t.Fatalf("statuses %s, %s", repA.Status, repB.Status)
	}
	if repB.StartedAt.Before(repA.FinishedAt) {
		t.Fatalf("B started at %v before A finished at %v", repB.StartedAt, repA.FinishedAt)
	}
	if _, ok, _ := dreamlog.Of(a).Holder(ctx); ok {
		t.Fatal("the lock was not released")
	}
}

func TestDreamLockExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if ok, _, err := dreamlog.Of(p).Acquire(ctx, "A", time.Second, t0); !ok || err != nil {
		t.Fatalf("A: %v %v", ok, err)
	}
	if ok, holder, _ := dreamlog.Of(p).Acquire(ctx, "B", time.Second, t0.Add(500*time.Millisecond)); ok || holder.Owner != "A" {
		t.Fatalf("B took a live lock (holder %q)", holder.Owner)
	}
	// A is killed and never renews: after its lease B gets the lock.
	if ok, _, _ := dreamlog.Of(p).Acquire(ctx, "B", time.Second, t0.Add(1500*time.Millisecond)); !ok {
		t.Fatal("B could not take an expired lock")
	}
	if ok, _ := dreamlog.Of(p).Renew(ctx, "A", time.Second, t0.Add(1600*time.Millisecond)); ok {
		t.Fatal("A renewed a lock it lost")
	}
	if _, err := dreamlog.Of(p).Begin(ctx, "dr_x", "dedup", "A"); !errors.Is(err, dreamlog.ErrLeaseLost) {
		t.Fatalf("BeginDream by a former holder: %v", err)
	}
}

func TestRunCancelledMidPassCommitsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	a := note(t, p, deployA)
	b := note(t, p, deployB)
	for i := 0; i < 4; i++ {
		note(t, p, "Remember the VPN config is in the shared drive, folder "+string(rune('a'+i)))
		note(t, p, "Remember the VPN config is in the shared drive, folder "+string(rune('a'+i))+"!")
	}
	cctx, cancel := context.WithCancel(ctx)
	var rep *dreamer.Report
	var err error
	finished := make(chan struct{})
	var logs palacetest.Buffer
	go func() {
		rep, err = dreamer.Run(cctx, p, dreamer.RunOptions{Passes: []string{"dedup"}, Now: clk.Now,
			Settings: dreamer.Settings{ApplyDelay: 30 * time.Second}, Logger: zerolog.New(&logs).Level(zerolog.DebugLevel)})
		close(finished)
	}()
	// Wait until the pass is inside its transaction, halfway through.
	waitFor(t, "the pass to be applying", func() bool { return strings.Contains(logs.String(), "dream pass applying (delayed)") })
	start := time.Now()
	cancel()
	select {
	case <-finished:
	case <-time.After(2 * time.Second):
		t.Fatal("the run did not stop within 2 s of cancellation")
	}
	t.Logf("stopped %v after cancellation", time.Since(start))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != dreamlog.Cancelled || passReport(t, rep, "dedup").Status != dreamer.PassCancelled {
		t.Fatalf("report %s / %+v", rep.Status, rep.Passes)
	}
	for _, id := range []string{a.ID, b.ID} {
		if d := get(t, p, id); d.Status != palace.StatusActive || d.Meta[dreamer.MetaMergedFrom] != nil {
			t.Fatalf("half a pass was committed: %s is %s %v", id, d.Status, d.Meta)
		}
	}
	n, _ := p.Count(ctx, palace.Filter{Statuses: []string{palace.StatusSuperseded}})
	if n != 0 {
		t.Fatalf("%d drawers superseded by a cancelled pass", n)
	}
	runs, _ := dreamlog.Of(p).Runs(ctx, 1)
	if runs[0].Status != dreamlog.Cancelled || runs[0].Changes != 0 {
		t.Fatalf("run record %+v", runs[0])
	}
	if _, ok, _ := dreamlog.Of(p).Holder(ctx); ok {
		t.Fatal("lock still held after a cancelled run")
	}
}

func TestRunLosingTheLockCancels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	a, b := twoPalaces(t, clk)
	note(t, a, deployA)
	note(t, a, deployB)
	finished := make(chan *dreamer.Report, 1)
	go func() {
		// A stalls between passes (not inside a transaction: while a pass's
		// transaction is open nobody else can write, the lock row included).
		rep, err := dreamer.Run(ctx, a, dreamer.RunOptions{Owner: "A", Passes: []string{"dedup"}, Now: clk.Now,
			Settings: dreamer.Settings{PassDelay: 30 * time.Second, LockTTL: 90 * time.Millisecond}})
		if err != nil {
			t.Error(err)
		}
		finished <- rep
	}()
	waitFor(t, "A to hold the lock and begin its run", func() bool {
		l, ok, _ := dreamlog.Of(b).Holder(ctx)
		runs, _ := dreamlog.Of(b).Runs(ctx, 1)
		return ok && l.Owner == "A" && len(runs) == 1
	})
	// B's clock says A's lease ran out long ago (A stalled): B takes over.
	if ok, _, err := dreamlog.Of(b).Acquire(ctx, "B", time.Minute, time.Now().Add(time.Hour)); !ok || err != nil {
		t.Fatalf("B: %v %v", ok, err)
	}
	var rep *dreamer.Report
	select {
	case rep = <-finished:
	case <-time.After(3 * time.Second):
		t.Fatal("A kept going after losing the lock")
	}
	if rep.Status != dreamlog.Cancelled {
		t.Fatalf("A's run: %s", rep.Status)
	}
	if n, _ := a.Count(ctx, palace.Filter{Statuses: []string{palace.StatusSuperseded}}); n != 0 {
		t.Fatal("A committed after losing the lock")
	}
	if l, _, _ := dreamlog.Of(a).Holder(ctx); l.Owner != "B" {
		t.Fatalf("lock holder %q, want B (A must not release B's lock)", l.Owner)
	}
}

func TestRunBudgetAndBadPass(t *testing.T) {
	t.Parallel()
	clk := newClock()
	p := openPalace(t, clk)
	note(t, p, deployA)
	rep := dreamWith(t, p, clk, dreamer.RunOptions{Settings: dreamer.Settings{Budget: time.Nanosecond}})
	if rep.Status != dreamlog.Partial {
		t.Fatalf("status %s, want partial", rep.Status)
	}
	for _, pr := range rep.Passes {
		if pr.Status != dreamer.PassSkipped {
			t.Fatalf("pass %s ran with no budget: %s", pr.Name, pr.Status)
		}
	}
	_, err := dreamer.Run(context.Background(), p, dreamer.RunOptions{Passes: []string{"dedup", "nonsense"}})
	if !errors.Is(err, palace.ErrInvalid) {
		t.Fatalf("unknown pass: %v", err)
	}
}

// TestRunLongTransactionKeepsTheLock: a pass transaction open longer than
// the lease neither loses the lock nor stalls on its own heartbeat.
func TestRunLongTransactionKeepsTheLock(t *testing.T) {
	t.Parallel()
	clk := newClock()
	p := openPalace(t, clk)
	note(t, p, deployA)
	b := note(t, p, deployB)
	start := time.Now()
	rep := dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"dedup"},
		Settings: dreamer.Settings{LockTTL: 60 * time.Millisecond, ApplyDelay: 400 * time.Millisecond}})
	if took := time.Since(start); rep.Status != dreamlog.Done || took > 3*time.Second {
		t.Fatalf("status %s after %v", rep.Status, took)
	}
	if d := get(t, p, b.ID); d.Status != palace.StatusSuperseded {
		t.Fatalf("duplicate is %s", d.Status)
	}
}
