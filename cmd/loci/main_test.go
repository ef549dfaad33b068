package main

import (
	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
	"os"
	"testing"
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
