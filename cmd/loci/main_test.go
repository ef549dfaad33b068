package main

import (
	"os"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

// TestMain lets the test binary stand in for the loci binary: with
// LOCI_TEST_MAIN=1 it runs the CLI on its arguments instead of the tests,
// so end-to-end tests spawn real processes of the code under test.
//
// Spawned processes inherit LOCI_EMBEDDER=hash unless the caller chose an
// embedder: golden transcripts and hook replays then rank with the
// deterministic, weight-free feature-hashing embedder, identical on every
// CPU. TestDefaultEmbedderIsSemantic covers the built-in default encoder
// end to end (it passes LOCI_EMBEDDER= to get the default).
func TestMain(m *testing.M) {
	if os.Getenv("LOCI_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if _, set := os.LookupEnv("LOCI_EMBEDDER"); !set {
		os.Setenv("LOCI_EMBEDDER", "hash")
	}
	code := m.Run()
	pgtest.Stop() // the team-palace tests' PostgreSQL server, if they started one
	os.Exit(code)
}

// Every command answers -h, as `loci help` says it does: its usage and
// exit code 0, nothing stored. A command of subcommands (palace, kg,
// token) names them.
func TestEveryCommandAnswersHelp(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for name := range commands {
		_, stderr, code := runLociOnce(t, home, nil, "", name, "-h")
		if code != 0 {
			t.Errorf("loci %s -h exited %d: %s", name, code, stderr)
		}
	}
	for _, name := range []string{"palace", "kg", "token"} {
		for _, h := range []string{"-h", "--help", "help"} {
			_, stderr, code := runLociOnce(t, home, nil, "", name, h)
			if code != 0 || !strings.Contains(stderr, "Usage: loci "+name+" ") {
				t.Errorf("loci %s %s exited %d with %q, want its subcommands' usage", name, h, code, stderr)
			}
		}
	}
	if entries, err := os.ReadDir(home); err != nil || len(entries) != 0 {
		t.Errorf("asking for help wrote %v to the data dir (%v)", entries, err)
	}
}
