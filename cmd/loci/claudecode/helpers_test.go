package claudecode_test

import (
	"context"
	"testing"
	"time"

	hooks "github.com/loci-mem/loci/cmd/loci/claudecode"
	"github.com/loci-mem/loci/palace"
)

// mustRegistry opens a registry on a fresh data dir with the default
// (hash) embedder, closed when the test ends.
func mustRegistry(tb testing.TB) *palace.Registry {
	tb.Helper()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { reg.Close() })
	return reg
}

// newRunner returns a Runner over palace "proj" of reg with a fixed clock.
func newRunner(reg *palace.Registry, now time.Time) *hooks.Runner {
	return hooks.New(hooks.Config{
		Palace: func(ctx context.Context, create bool) (*palace.Palace, error) {
			if !create && !reg.Exists("proj") {
				return nil, nil
			}
			return reg.OpenOrCreate(ctx, "proj")
		},
		Now:             func() time.Time { return now },
		TranscriptDelay: 10 * time.Millisecond,
	})
}

func mustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}
