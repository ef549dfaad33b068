package dreamer_test

import (
	"context"
	"regexp"
	"sort"
	"testing"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
)

func agentCase(tb testing.TB, p *palace.Palace, agent, intent, approach string, quality float64) *palace.Drawer {
	tb.Helper()
	return add(tb, p, &palace.Drawer{Kind: palace.KindAgentCase, AgentID: agent, Content: intent + ". " + approach,
		Meta: map[string]any{"task_intent": intent, "approach": approach, "quality_score": quality,
			"key_insight": "check " + intent}})
}

var skillID = regexp.MustCompile(`^bot_sk_20260301_\d{8}$`)

func TestSkillsClusterCases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	var deploy, sql []string
	for i, svc := range []string{"web", "api", "worker"} {
		d := agentCase(t, p, "bot", "Deploy the "+svc+" service to staging with docker compose",
			"build the docker image, push it to the registry, run docker compose up on staging", 0.6+0.1*float64(i))
		deploy = append(deploy, d.ID)
	}
	for _, tbl := range []string{"orders", "users", "invoices"} {
		d := agentCase(t, p, "bot", "Write a SQL migration adding an index to the "+tbl+" table",
			"write the up and down SQL migration files, run them against a copy of the database", 0.8)
		sql = append(sql, d.ID)
	}
	agentCase(t, p, "bot", "Summarise the meeting notes of the weekly sync", "read the notes and list the decisions", 0.9)
	agentCase(t, p, "other", "Deploy the web service to staging with docker compose",
		"build the docker image, push it to the registry, run docker compose up on staging", 0.9)

	rep := dream(t, p, clk, "skills")
	pr := passReport(t, rep, "skills")
	if len(pr.Skills) != 2 {
		t.Fatalf("skills %+v, want two (deploy and sql) for bot only", pr.Skills)
	}
	skills, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Kinds: []string{palace.KindAgentSkill}}})
	if err != nil || len(skills) != 2 {
		t.Fatalf("skill drawers %d (%v)", len(skills), err)
	}
	sort.Strings(deploy)
	sort.Strings(sql)
	found := map[string]bool{}
	for _, s := range skills {
		if !skillID.MatchString(s.ID) || s.AgentID != "bot" {
			t.Fatalf("skill id %q agent %q", s.ID, s.AgentID)
		}
		for _, k := range []string{"name", "description", "content", "confidence", "maturity_score", "source_case_ids"} {
			if _, ok := s.Meta[k]; !ok {
				t.Fatalf("skill %s lacks meta %s: %v", s.ID, k, s.Meta)
			}
		}
		var src []string
		for _, x := range s.Meta["source_case_ids"].([]any) {
			src = append(src, x.(string))
		}
		switch {
		case equal(src, deploy):
			found["deploy"] = true
		case equal(src, sql):
			found["sql"] = true
		default:
			t.Fatalf("skill %s sources %v", s.ID, src)
		}
		if m := s.Meta["maturity_score"].(float64); m <= 0 || m > 1 {
			t.Fatalf("maturity %v", m)
		}
	}
	if !found["deploy"] || !found["sql"] {
		t.Fatalf("found %v", found)
	}
	// Nothing new: nothing changes.
	if pr := passReport(t, dream(t, p, clk, "skills"), "skills"); pr.Changed != 0 {
		t.Fatalf("second pass changed %d", pr.Changed)
	}
	// A new case matures the existing skill in place.
	extra := agentCase(t, p, "bot", "Deploy the billing service to staging with docker compose",
		"build the docker image, push it to the registry, run docker compose up on staging", 0.9)
	rep2 := dream(t, p, clk, "skills")
	pr2 := passReport(t, rep2, "skills")
	if len(pr2.Skills) != 1 || pr2.Skills[0].Action != "updated" || pr2.Skills[0].Cases != 4 ||
		!contains(pr2.Skills[0].SourceCaseIDs, extra.ID) {
		t.Fatalf("after a new case: %+v", pr2.Skills)
	}
	upd := get(t, p, pr2.Skills[0].ID)
	if upd.Meta["maturity_score"].(float64) <= pr.Skills[0].Maturity && upd.Meta["maturity_score"].(float64) <= pr.Skills[1].Maturity {
		t.Fatalf("maturity did not grow: %v", upd.Meta["maturity_score"])
	}
	// Undo: the update is reverted, then the creations become deleted.
	if _, err := dreamer.Undo(ctx, p, rep2.RunID, dreamer.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := len(get(t, p, upd.ID).Meta["source_case_ids"].([]any)); got != 3 {
		t.Fatalf("after undoing the update the skill has %d sources", got)
	}
	if _, err := dreamer.Undo(ctx, p, rep.RunID, dreamer.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindAgentSkill}}); n != 0 {
		t.Fatalf("%d active skills after undoing their creation", n)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// engineModel stands for a model behind an engine, which no threshold was
// measured for: the hash embedder under another name.
type engineModel struct{ embed.Embedder }

func (engineModel) ID() string { return "openai/stand-in" }

// An embedder whose clustering threshold was never measured gets the
// default encoder's carried to its own cosine scale, and clusters the
// cases as the embedder it stands for does (hash, measured at 0.40); the
// default's 0.75 as it is made none.
func TestSkillsClusterWithAnUnmeasuredEmbedder(t *testing.T) {
	t.Parallel()
	clk := newClock()
	p := openPalaceWith(t, palace.Config{DataDir: t.TempDir(), Now: clk.Now, Embedder: engineModel{embed.NewHash(0)}})
	// Each family's cases are worded apart: the hash embedder puts them
	// 0.74 and 0.68 apart on average, the families 0.32 at most.
	for _, c := range [][2]string{
		{"Deploy the web service to staging with docker compose", "build the docker image, push it to the registry, run docker compose up on staging"},
		{"Deploy the api service to staging", "build the image, push it to the registry, start it on staging with compose"},
		{"Ship the worker to the staging servers", "push a fresh docker image to the registry and bring compose up"},
		{"Write a SQL migration adding an index to the orders table", "write the up and down SQL migration files, run them against a copy of the database"},
		{"Add a column to the users table with a migration", "write up and down SQL files and test them on a copy of the database"},
		{"Create an SQL migration for the invoices table", "write the migration, then run it against a database copy first"},
		{"Summarise the meeting notes of the weekly sync", "read the notes and list the decisions"},
	} {
		agentCase(t, p, "bot", c[0], c[1], 0.8)
	}
	if pr := passReport(t, dream(t, p, clk, "skills"), "skills"); len(pr.Skills) != 2 {
		t.Fatalf("skills %+v, want two (deploy and sql)", pr.Skills)
	}
}
