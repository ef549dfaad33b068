package locomo

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// A team palace on PostgreSQL recalls what a palace on this machine does:
// LoCoMo's first conversation, stored along the session and the agent
// paths in SQLite and in a real PostgreSQL server, gives every question
// the same ten drawers in the same order, by keywords, by vectors and
// hybrid (the lifts read a hit's neighbours, its session and its time from
// the store, so each backend answers them). LOCI_PARITY_CONVERSATIONS=N
// runs the first N conversations instead of the first alone.
func TestTeamPalaceRecallsAsALocalOne(t *testing.T) {
	t.Parallel()
	samples := []int{1}
	if n, err := strconv.Atoi(os.Getenv("LOCI_PARITY_CONVERSATIONS")); err == nil && n > 1 {
		samples = nil
		for i := range n {
			samples = append(samples, i+1)
		}
	}
	variants := []Variant{{Method: palace.ModeKeyword}, {Method: palace.ModeVector}, {Method: palace.ModeHybrid}}
	for _, path := range []string{PathSession, PathAgent} {
		run := func(store string) []Row {
			rows, _, _, err := Run(context.Background(), Options{Data: []string{locomoData(t)}, Path: path, Variants: variants,
				Embedder: embed.Default(), Ks: []int{10}, Samples: samples, Store: store})
			if err != nil {
				t.Fatalf("%s path, store %q: %v", path, store, err)
			}
			return rows
		}
		local, team := run(""), run(pgtest.URL(t))
		if len(local) != len(team) || len(local) == 0 {
			t.Fatalf("%s path: %d questions asked locally, %d on PostgreSQL", path, len(local), len(team))
		}
		differ := 0
		for i := range local {
			if local[i].Question != team[i].Question || local[i].Variant != team[i].Variant {
				t.Fatalf("%s path: row %d is %q (variant %d) locally, %q (variant %d) on PostgreSQL",
					path, i, local[i].Question, local[i].Variant, team[i].Question, team[i].Variant)
			}
			if !slices.Equal(local[i].Top, team[i].Top) {
				if differ++; differ <= 3 {
					t.Errorf("%s path, %s: %q\n local %v\n team  %v", path, variants[local[i].Variant].Method, local[i].Question, local[i].Top, team[i].Top)
				}
			}
		}
		if differ > 0 {
			t.Errorf("%s path: %d of %d lists differ between SQLite and PostgreSQL", path, differ, len(local))
		}
		t.Logf("%s path: %d lists (questions × methods), %d differ", path, len(local), differ)
	}
}
