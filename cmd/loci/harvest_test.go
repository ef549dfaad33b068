package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestHarvest(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	session, _ := filepath.Abs("../../testdata/harvest/session.jsonl")
	second, _ := filepath.Abs("../../testdata/harvest/second.jsonl")

	// A missing file among good ones: nothing is staged.
	o := runCLI(t, home, "json", "harvest", session, filepath.Join(t.TempDir(), "gone.jsonl"), "--palace", "h")
	if o.code != 1 || o.env.Error.Type != "not_found" {
		t.Fatalf("missing transcript: %d %s", o.code, o.stdout)
	}
	if o := runCLI(t, home, "json", "review", "list", "--palace", "h"); o.code != 1 || o.env.Error.Type != "not_found" {
		t.Fatalf("a failed harvest created the palace: %s", o.stdout)
	}

	o = runCLI(t, home, "json", "harvest", session, "--palace", "h", "--dry-run")
	if o.code != 0 {
		t.Fatalf("dry run: %s", o.stdout)
	}
	var got struct {
		Files      []harvestFile      `json:"files"`
		Candidates []harvestCandidate `json:"candidates"`
	}
	b, _ := json.Marshal(o.env.Data)
	json.Unmarshal(b, &got)
	var facts []string
	for _, c := range got.Candidates {
		facts = append(facts, c.Kind+": "+c.Fact)
	}
	want := []string{
		"tooling: I prefer pnpm over npm.",
		"infra: My production Postgres runs on port 5433.",
		"health: I'm allergic to shellfish, so no seafood for the team lunch.",
	}
	if strings.Join(facts, "\n") != strings.Join(want, "\n") {
		t.Fatalf("candidates:\n%s\nwant (tool results, side chains and meta lines left out):\n%s", strings.Join(facts, "\n"), strings.Join(want, "\n"))
	}
	if len(got.Files) != 1 || got.Files[0].Messages != 6 || got.Candidates[0].Source != "u-1" {
		t.Fatalf("files %+v, first source %q", got.Files, got.Candidates[0].Source)
	}
	if o := runCLI(t, home, "json", "review", "list", "--palace", "h"); o.code != 1 {
		t.Fatalf("--dry-run staged something: %s", o.stdout)
	}

	// Above the threshold nothing qualifies (the heuristic gives 0.9).
	o = runCLI(t, home, "json", "harvest", session, "--palace", "h", "--min-confidence", "0.95")
	if *o.env.Meta.Count != 0 || o.env.Data["below_min_confidence"] != float64(3) {
		t.Fatalf("--min-confidence 0.95: %s", o.stdout)
	}

	// Staged for review, never auto-promoted, with their provenance; a
	// second harvest stages nothing twice.
	stdout, _, code := runLociOnce(t, home, []string{"LOCI_AUTOPROMOTE=true"}, "", "harvest", session, second, "--palace", "h", "--format", "json")
	if code != 0 {
		t.Fatal(stdout)
	}
	o = runCLI(t, home, "json", "review", "list", "--palace", "h")
	if *o.env.Meta.Count != 4 || !strings.Contains(o.stdout, `"source":"harvest:session.jsonl#u-1"`) || !strings.Contains(o.stdout, "port 5432 since the migration") {
		t.Fatalf("queue after harvest: %s", o.stdout)
	}
	o = runCLI(t, home, "text", "harvest", session, "--palace", "h")
	if strings.Count(o.stdout, "unchanged mem-") != 3 || !strings.Contains(o.stderr, "3 candidate facts") {
		t.Fatalf("second harvest:\nstdout %s\nstderr %s", o.stdout, o.stderr)
	}
}
