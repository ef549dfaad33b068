//go:build dreambench

package dreamer

// Measures the skill clustering cosine per embedder on hand-written agent
// cases in four task families (README.md, "Thresholds"):
//
//	go test -tags "sqlite_fts5 dreambench" -run XXX -bench DreamBenchSkillCosines -benchtime 1x -v ./dreamer/

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
)

var skillFamilies = [][]string{
	{
		"Deploy the web service to staging with docker compose. Build the image, push it to the registry, run compose up.",
		"Roll out the api container to the staging cluster. Built the docker image, pushed it, restarted the compose stack.",
		"Ship the worker service to production using docker. Tagged the image, pushed to the registry, updated the compose file.",
		"Deploy the billing service on staging. Docker build, registry push, docker compose pull and up.",
		"Release the frontend container to production. Built with docker, pushed the tag, redeployed the stack.",
	},
	{
		"Write a SQL migration adding an index to the orders table. Wrote up and down files and ran them on a copy.",
		"Add a column to the users table with a database migration. Created the migration, tested rollback, applied it.",
		"Rename a column in the invoices table. Wrote the SQL migration and checked the down migration restores it.",
		"Create a new table for audit events. Migration with indexes, run against the staging database first.",
		"Backfill the status column of the orders table. Batched UPDATE statements in a migration, verified counts.",
	},
	{
		"Fix the flaky login test in CI. Found a race on the session cookie, added a wait for the redirect.",
		"Investigate why the checkout end-to-end test times out. The mock payment server started late; fixed the order.",
		"Stabilise the intermittent websocket test. Replaced sleeps with an explicit ready signal.",
		"Debug the failing unit test for date parsing. Time zone of the CI runner differed; pinned UTC.",
		"Make the integration tests pass again after the upgrade. Updated fixtures and a changed error message.",
	},
	{
		"Summarise the weekly planning meeting notes. Listed decisions, owners and deadlines.",
		"Write the release notes for version two. Grouped merged pull requests by feature and fix.",
		"Draft an email to the team about the new on-call rotation. Explained the schedule and the escalation path.",
		"Prepare the agenda for the quarterly review. Collected topics from leads and ordered them by priority.",
		"Document the onboarding steps for new engineers. Wrote a checklist with links to the setup guides.",
	},
}

func figureDreamBenchSkillCosines(t testing.TB) {
	for _, be := range benchEmbedders(t) {
		var texts []string
		var fam []int
		for f, list := range skillFamilies {
			for _, s := range list {
				texts = append(texts, s)
				fam = append(fam, f)
			}
		}
		vs := embedAll(t, be.emb, texts)
		var within, across []float64
		for i := range vs {
			for j := i + 1; j < len(vs); j++ {
				c := float64(embed.Dot(vs[i], vs[j]))
				if fam[i] == fam[j] {
					within = append(within, c)
				} else {
					across = append(across, c)
				}
			}
		}
		sort.Float64s(within)
		sort.Float64s(across)
		q := func(xs []float64, p float64) float64 { return xs[int(p*float64(len(xs)-1))] }
		var b strings.Builder
		fmt.Fprintf(&b, "within family: min %.3f p25 %.3f median %.3f; across: median %.3f p90 %.3f max %.3f",
			within[0], q(within, 0.25), q(within, 0.5), q(across, 0.5), q(across, 0.9), across[len(across)-1])
		t.Logf("%s (%s): %s", be.name, be.emb.ID(), b.String())
		// The clustering itself: skills of at least 3 cases, their purity
		// (share of members from the skill's main family) and how many
		// cases end up in a skill.
		for _, thr := range []float64{0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9} {
			cases := make([]*skillCase, len(texts))
			for i := range texts {
				cases[i] = &skillCase{d: &palace.Drawer{ID: fmt.Sprintf("c%02d", i)}, vec: vs[i], quality: 0.5, intent: texts[i]}
			}
			skills, pure, members := 0, 0, 0
			for _, cl := range clusterCases(cases, thr) {
				if len(cl.cases) < 3 {
					continue
				}
				skills++
				count := map[int]int{}
				best := 0
				for _, c := range cl.cases {
					var i int
					fmt.Sscanf(c.d.ID, "c%d", &i)
					count[fam[i]]++
					best = max(best, count[fam[i]])
				}
				pure += best
				members += len(cl.cases)
			}
			purity := 1.0
			if members > 0 {
				purity = float64(pure) / float64(members)
			}
			t.Logf("  cosine %.2f: %d skills, purity %.2f, %d of %d cases in a skill", thr, skills, purity, members, len(texts))
		}
	}
}

// BenchmarkDreamBenchSkillCosines runs figureDreamBenchSkillCosines once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkDreamBenchSkillCosines(b *testing.B) {
	for range b.N {
		figureDreamBenchSkillCosines(b)
	}
}
