package facts_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop() // the team-palace test's PostgreSQL server, if it started one
	os.Exit(code)
}

// Two nodes of a team palace approving the same facts at once apply each
// approval once: one approves, the other re-confirms or is told the fact
// changed under it; never both.
func TestApproveOnceAcrossNodes(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	ctx := context.Background()
	node := func() *palace.Palace {
		reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir(), Store: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { reg.Close() })
		p, err := reg.OpenOrCreate(ctx, "team")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := node(), node()
	for i := range 8 {
		id := mustStage(t, a, fmt.Sprintf("The team standup for squad %d is at 9:%02d", i, 10+i), "project", 0.6).Fact.ID
		var wg sync.WaitGroup
		res := make([]facts.ReviewResult, 2)
		errs := make([]error, 2)
		for j, p := range []*palace.Palace{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[j], errs[j] = facts.Of(p).Approve(ctx, id)
			}()
		}
		wg.Wait()
		approved := 0
		for j := range 2 {
			switch {
			case errs[j] == nil && !res[j].Reconfirmed:
				approved++
			case errs[j] == nil, errors.Is(errs[j], palace.ErrConflict):
			default:
				t.Fatalf("approve %s on node %d: %v", id, j, errs[j])
			}
		}
		if approved != 1 {
			t.Fatalf("%s approved %d times, want once (%+v, %v)", id, approved, res, errs)
		}
		mustStatus(t, b, id, palace.StatusActive)
	}
}
