package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/palacetest"
)

// A SIGINT during a benchmark ends it with exit code 130 and error type
// cancelled (seed 000), the partial figures in the detail — not exit 0
// with figures that look complete.
func TestBenchInterruptIsCancelled(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "bench", "http", "--episodes", "50", "--clients", "2", "--duration", "60s", "--format", "json")
	cmd.Env = append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+t.TempDir(), "LOCI_EMBEDDER=hash"), append(cliEnvVars, "LOCI_LOG=info")...)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Wait until the clients search (the bench logs it at info level).
	palacetest.WaitFor(t, 30*time.Second, "the bench clients to start", func() bool {
		return strings.Contains(stderr.String(), "bench clients searching")
	})
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("bench http did not end after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d, want 130\nstdout %s\nstderr %s", code, stdout.String(), tail(stderr.String(), 500))
	}
	var env cliEnvelope
	if err := json.Unmarshal([]byte(stdout.String()), &env); err != nil || env.Error == nil || env.Error.Type != "cancelled" {
		t.Fatalf("envelope %s (%v)", stdout.String(), err)
	}
}
