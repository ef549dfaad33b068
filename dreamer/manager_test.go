package dreamer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/palacetest"
)

func TestManagerDreamsWhenIdleOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	note(t, p, deployA)
	b := note(t, p, deployB)
	m := dreamer.NewManager(dreamer.Config{Idle: -1, Tick: 20 * time.Millisecond})
	defer m.Close()
	m.Start(p)
	waitFor(t, "a scheduled run", func() bool {
		runs, _ := dreamlog.Of(p).Runs(ctx, 5)
		return len(runs) == 1 && runs[0].Status == dreamlog.Done
	})
	if d := get(t, p, b.ID); d.Status != palace.StatusSuperseded {
		t.Fatalf("scheduled run left the duplicate %s", d.Status)
	}
	// Nothing written since: no second run. (A negative check needs a
	// window: twenty ticks of the manager.)
	time.Sleep(200 * time.Millisecond)
	if runs, _ := dreamlog.Of(p).Runs(ctx, 5); len(runs) != 1 {
		t.Fatalf("%d runs without new writes", len(runs))
	}
	// A write makes the palace due again.
	note(t, p, "a new memory arrives")
	waitFor(t, "a second run", func() bool {
		runs, _ := dreamlog.Of(p).Runs(ctx, 5)
		return len(runs) == 2 && runs[0].Status == dreamlog.Done
	})
}

func TestManagerWaitsForIdle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	note(t, p, deployA)
	m := dreamer.NewManager(dreamer.Config{Idle: time.Hour, Tick: 10 * time.Millisecond})
	defer m.Close()
	m.Start(p)
	time.Sleep(100 * time.Millisecond) // a negative check's window: ten ticks of the manager
	if runs, _ := dreamlog.Of(p).Runs(ctx, 5); len(runs) != 0 {
		t.Fatal("dreamed while the palace was busy")
	}
	clk.Advance(2 * time.Hour) // the palace's clock: an hour without writes
	waitFor(t, "a run once idle", func() bool {
		runs, _ := dreamlog.Of(p).Runs(ctx, 5)
		return len(runs) == 1
	})
}

func TestManagerCloseDuringAPassIsFastAndClean(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	a := note(t, p, deployA)
	b := note(t, p, deployB)
	var logs palacetest.Buffer
	m := dreamer.NewManager(dreamer.Config{Idle: -1, Tick: 10 * time.Millisecond,
		Settings: dreamer.Settings{ApplyDelay: time.Minute}, Logger: zerolog.New(&logs).Level(zerolog.DebugLevel)})
	m.Start(p)
	waitFor(t, "the dedup pass to be inside its transaction", func() bool {
		return strings.Contains(logs.String(), "dream pass applying (delayed)")
	})
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > dreamer.ShutdownGrace {
		t.Fatalf("Close took %v", d)
	}
	for _, id := range []string{a.ID, b.ID} {
		if d := get(t, p, id); d.Status != palace.StatusActive {
			t.Fatalf("%s is %s after a cancelled pass", id, d.Status)
		}
	}
	runs, _ := dreamlog.Of(p).Runs(ctx, 1)
	if runs[0].Status != dreamlog.Cancelled {
		t.Fatalf("run status %s", runs[0].Status)
	}
}
