package main

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for the loci binary: with
// LOCI_TEST_MAIN=1 it runs the CLI on its arguments instead of the tests,
// so end-to-end tests spawn real processes of the code under test.
func TestMain(m *testing.M) {
	if os.Getenv("LOCI_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
