package dreamer_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

// clock is a fake clock for the palace and the passes.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// openPalace creates a palace in a fresh data dir whose clock is clk.
func openPalace(tb testing.TB, clk *clock) *palace.Palace {
	tb.Helper()
	return openPalaceIn(tb, tb.TempDir(), clk)
}

func openPalaceIn(tb testing.TB, dir string, clk *clock) *palace.Palace {
	tb.Helper()
	return openPalaceWith(tb, palace.Config{DataDir: dir, Now: clk.Now})
}

// openPalaceWith opens palace "test" of a registry on cfg.
func openPalaceWith(tb testing.TB, cfg palace.Config) *palace.Palace {
	tb.Helper()
	reg, err := palace.OpenRegistry(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { reg.Close() })
	p, err := reg.OpenOrCreate(context.Background(), "test")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func add(tb testing.TB, p *palace.Palace, d *palace.Drawer) *palace.Drawer {
	tb.Helper()
	if err := p.Add(context.Background(), d); err != nil {
		tb.Fatal(err)
	}
	return d
}

func note(tb testing.TB, p *palace.Palace, text string) *palace.Drawer {
	tb.Helper()
	return add(tb, p, &palace.Drawer{Content: text})
}

func get(tb testing.TB, p *palace.Palace, id string) *palace.Drawer {
	tb.Helper()
	d, err := p.Get(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// dream runs the named passes with the fake clock and fails on error.
func dream(tb testing.TB, p *palace.Palace, clk *clock, passes ...string) *dreamer.Report {
	tb.Helper()
	return dreamWith(tb, p, clk, dreamer.RunOptions{Passes: passes})
}

func dreamWith(tb testing.TB, p *palace.Palace, clk *clock, o dreamer.RunOptions) *dreamer.Report {
	tb.Helper()
	o.Now = clk.Now
	if o.Trigger == "" {
		o.Trigger = "test"
	}
	rep, err := dreamer.Run(context.Background(), p, o)
	if err != nil {
		tb.Fatal(err)
	}
	for _, pr := range rep.Passes {
		if pr.Status == dreamer.PassFailed {
			tb.Fatalf("pass %s failed: %s", pr.Name, pr.Note)
		}
	}
	return rep
}

func passReport(tb testing.TB, rep *dreamer.Report, name string) dreamer.PassReport {
	tb.Helper()
	for _, pr := range rep.Passes {
		if pr.Name == name {
			return pr
		}
	}
	tb.Fatalf("no %s pass in the report", name)
	return dreamer.PassReport{}
}

// recallIDs returns the ids recall finds for a query.
func recallIDs(tb testing.TB, p *palace.Palace, q string, k int) []string {
	tb.Helper()
	hits, err := p.Recall(context.Background(), palace.RecallRequest{Query: q, K: k})
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Drawer.ID
	}
	return out
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop() // the team-palace tests' PostgreSQL server, if one started
	os.Exit(code)
}
