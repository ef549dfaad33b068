// Package palacetest holds the helpers tests of palace and of the packages
// built on it share: a registry in a temporary data directory, a palace in
// it, a drawer added or the test failed.
//
// It is imported by tests only.
package palacetest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest/ondisk"
)

// MustOpenRegistry opens a registry on cfg with a temporary data dir (when
// cfg names none), closed when the test ends.
func MustOpenRegistry(tb testing.TB, cfg palace.Config) *palace.Registry {
	tb.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = tb.TempDir()
	}
	reg, err := palace.OpenRegistry(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { reg.Close() })
	return reg
}

// MustOpenPalace creates a palace named "test" in a fresh registry with
// the default configuration.
func MustOpenPalace(tb testing.TB) *palace.Palace {
	tb.Helper()
	return MustCreate(tb, MustOpenRegistry(tb, palace.Config{}), "test")
}

// MustCreate creates a palace in reg.
func MustCreate(tb testing.TB, reg *palace.Registry, name string) *palace.Palace {
	tb.Helper()
	p, err := reg.Create(context.Background(), name, "a test palace")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// MustAdd adds d to p and returns it.
func MustAdd(tb testing.TB, p *palace.Palace, d *palace.Drawer) *palace.Drawer {
	tb.Helper()
	if err := p.Add(context.Background(), d); err != nil {
		tb.Fatal(err)
	}
	return d
}

// Clock is a settable clock: it reads Start until moved.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Start is when every Clock starts.
var Start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		c.now = Start
	}
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.Now()
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// MustOpenWithSettings opens a palace named "facts" whose data dir holds
// config (a config.json body; "" for none), on a settable clock, with the
// LOCI_* settings variables cleared.
func MustOpenWithSettings(t testing.TB, config string) (*palace.Palace, *Clock) {
	t.Helper()
	for _, k := range []string{"LOCI_AUTOPROMOTE", "LOCI_FACT_HORIZON", "LOCI_TOPK"} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, palace.ConfigFile), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	clock := &Clock{}
	reg := MustOpenRegistry(t, palace.Config{DataDir: dir, Now: clock.Now})
	return MustCreate(t, reg, "facts"), clock
}

// WaitFor polls cond until it holds, failing the test when it still does
// not after within: the way tests wait for another goroutine or process
// to reach a state, instead of sleeping and hoping it did.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Buffer is a bytes.Buffer safe for one writer and concurrent readers: a
// process's stderr or a logger's output that a test watches while it is
// written.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// FilesHolding walks every file below dir and returns "name: needle" for
// each file that holds one of needles, byte for byte: how tests look for
// text that must not be on disk (ondisk.FilesHolding).
func FilesHolding(tb testing.TB, dir string, needles ...string) []string {
	tb.Helper()
	return ondisk.FilesHolding(tb, dir, needles...)
}
