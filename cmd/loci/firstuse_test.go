package main

import (
	"strings"
	"testing"
)

// The first minutes with the CLI (issue 16), in text mode as a person
// sees them: remember says the fact waits for review and how to approve
// it; recall says when nothing matched and that facts are pending; bare
// `loci review` lists the queue; after approval recall finds the fact.
func TestFirstUseRememberReviewRecall(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out := runCLI(t, home, "text", args...)
		if out.code != 0 {
			t.Fatalf("loci %v: exit %d\n%s", args, out.code, out.stderr)
		}
		return out.stdout
	}
	if got := run("remember", "--palace", "p", "We deploy on Tuesdays"); !strings.Contains(got, "`loci review approve mem-0001 --palace p` makes it recallable") {
		t.Errorf("remember did not say how the fact becomes recallable:\n%s", got)
	}
	got := run("recall", "--palace", "p", "how do we deploy")
	if !strings.Contains(got, `nothing matched "how do we deploy"`) || !strings.Contains(got, "1 staged fact(s) await review") {
		t.Errorf("recall before approval:\n%s", got)
	}
	if got := run("review", "--palace", "p"); !strings.Contains(got, "mem-0001") || !strings.Contains(got, "We deploy on Tuesdays") {
		t.Errorf("bare review did not list the queue:\n%s", got)
	}
	run("review", "approve", "mem-0001", "--palace", "p")
	got = run("recall", "--palace", "p", "how do we deploy")
	if !strings.Contains(got, "mem-0001") || strings.Contains(got, "nothing matched") || strings.Contains(got, "await review") {
		t.Errorf("recall after approval:\n%s", got)
	}
	j := runCLI(t, home, "json", "recall", "--palace", "p", "zebra crossing")
	if j.env.Data["pending_review"] != float64(0) {
		t.Errorf("recall JSON: pending_review = %v, want 0", j.env.Data["pending_review"])
	}
}
