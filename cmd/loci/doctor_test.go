package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed/use"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/palacetest"
	"github.com/loci-mem/loci/palace/session"
)

func TestDoctor(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	// A data dir that does not exist yet is a warning, not a failure, and
	// doctor does not create it.
	missing := filepath.Join(home, "not-yet")
	o := runCLI(t, missing, "json", "doctor")
	if o.code != 0 || o.env.Data["healthy"] != true {
		t.Fatalf("doctor on a missing data dir: %d %s", o.code, o.stdout)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("doctor created the data dir")
	}

	if o := runCLI(t, home, "json", "remember", "I prefer pnpm over npm", "--palace", "p1"); o.code != 0 {
		t.Fatal(o.stdout)
	}
	o = runCLI(t, home, "json", "doctor")
	checks, _ := json.Marshal(o.env.Data["checks"])
	if o.code != 0 || !strings.Contains(string(checks), `"name":"palace p1","status":"ok"`) ||
		!strings.Contains(string(checks), "1 facts wait for review") {
		t.Fatalf("healthy doctor: %d %s", o.code, o.stdout)
	}
	// It names the kernels the CPU runs, the ones the README's figures
	// were measured with or others.
	if want := fmt.Sprintf("sentence encoder %s, vector scan %s", use.Kernel(), index.ScanKernel()); !strings.Contains(string(checks), want) {
		t.Errorf("doctor does not say %q: %s", want, checks)
	}
	// and where the built-in encoder's cosines lie (the hash embedder, in
	// these tests), without measuring.
	if want := `{"message":"cosines of unrelated texts 0.154 ± 0.090, of restatements 0.935 ± 0.035 (known)","name":"embedder scales","status":"ok"}`; !strings.Contains(string(checks), want) {
		t.Errorf("doctor does not say %s: %s", want, checks)
	}

	// A broken config file fails the check: io error, exit 5, the checks in
	// error.detail (json) or on stderr (text, stdout empty).
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"fact_horizon": "soon"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o = runCLI(t, home, "json", "doctor")
	if o.code != 5 || o.env.Error.Type != "io" || o.env.Error.Detail["checks"] == nil {
		t.Fatalf("doctor with a bad config: %d %s", o.code, o.stdout)
	}
	o = runCLI(t, home, "text", "doctor")
	if o.code != 5 || !strings.Contains(o.stderr, "fail  config") || !strings.Contains(o.stderr, "fact_horizon") {
		t.Fatalf("doctor text with a bad config: %d stdout %q stderr %q", o.code, o.stdout, o.stderr)
	}
	// Every command that reads the settings reports the bad file clearly.
	o = runCLI(t, home, "json", "remember", "I like tea", "--palace", "p1")
	if o.code != 2 || !strings.Contains(o.env.Error.Message, "fact_horizon") {
		t.Fatalf("remember with a bad config: %d %s", o.code, o.stdout)
	}
	os.Remove(filepath.Join(home, "config.json"))

	// A damaged palace file fails its check.
	db := filepath.Join(home, "palaces", "broken", "palace.db")
	os.MkdirAll(filepath.Dir(db), 0o700)
	os.WriteFile(db, []byte(strings.Repeat("not a database ", 400)), 0o600)
	o = runCLI(t, home, "json", "doctor")
	if o.code != 5 || !strings.Contains(o.stdout, `palace broken`) {
		t.Fatalf("doctor with a damaged palace: %d %s", o.code, o.stdout)
	}
	// --palace limits the checks to one palace.
	if o := runCLI(t, home, "json", "doctor", "--palace", "p1"); o.code != 0 {
		t.Fatalf("doctor --palace p1: %d %s", o.code, o.stdout)
	}
	if o := runCLI(t, home, "json", "doctor", "--palace", "nope"); o.code != 1 || o.env.Error.Type != "not_found" {
		t.Fatalf("doctor --palace nope: %d %s", o.code, o.stdout)
	}
}

// TestCLIInterruptIsCancelled: SIGINT during an import ends it with exit
// code 130 and error type cancelled, and imports nothing.
func TestCLIInterruptIsCancelled(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "import", "-", "--palace", "dst", "--format", "json")
	cmd.Env = append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home), append(cliEnvVars, "LOCI_LOG=debug")...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(stdin)
	w.WriteString(`{"type":"header","format":"loci-palace","version":1,"palace":"src","embedder":"hash-v1","dim":384}` + "\n")
	w.WriteString(`{"type":"drawer","drawer":{"id":"d1","kind":"note","content":"first","status":"active"}}` + "\n")
	w.Flush()
	palacetest.WaitFor(t, 10*time.Second, "the import to read", func() bool { return strings.Contains(stderr.String(), "import reading") })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	palacetest.WaitFor(t, 10*time.Second, "the signal to arrive", func() bool { return strings.Contains(stderr.String(), "signal received") })
	w.WriteString(`{"type":"drawer","drawer":{"id":"d2","kind":"note","content":"second","status":"active"}}` + "\n")
	w.Flush()
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("import did not end after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d, want 130\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	var env cliEnvelope
	if err := json.Unmarshal([]byte(stdout.String()), &env); err != nil || env.Error == nil || env.Error.Type != "cancelled" {
		t.Fatalf("envelope %s (%v)", stdout.String(), err)
	}
	o := runCLI(t, home, "json", "recall", "--all", "first", "--palace", "dst")
	if o.code == 0 && strings.Contains(o.stdout, `"content":"first"`) {
		t.Fatalf("an interrupted import stored drawers: %s", o.stdout)
	}
}

func TestCLIImportRejectsDamagedFiles(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	work := t.TempDir()
	for _, args := range [][]string{
		{"remember", "I prefer pnpm over npm", "--kind", "tooling", "--palace", "src"},
		{"kg", "assert", "api", "runs_on", "fly", "--palace", "src"},
		{"export", "--palace", "src", "--out", filepath.Join(work, "src.jsonl")},
		{"remember", "I like green tea", "--palace", "dst"},
	} {
		if o := runCLI(t, home, "json", args...); o.code != 0 {
			t.Fatalf("setup %v: %s", args, o.stdout)
		}
	}
	full, _ := os.ReadFile(filepath.Join(work, "src.jsonl"))
	lines := strings.SplitAfter(strings.TrimSpace(string(full)), "\n")
	truncated := filepath.Join(work, "truncated.jsonl")
	os.WriteFile(truncated, []byte(strings.Join(lines[:len(lines)-2], "")), 0o600)
	o := runCLI(t, home, "json", "import", truncated, "--palace", "dst")
	if o.code != 2 || o.env.Error.Type != "invalid_args" || !strings.Contains(o.env.Error.Message, "truncated") {
		t.Fatalf("truncated import: %d %s", o.code, o.stdout)
	}
	o = runCLI(t, home, "json", "review", "list", "--status", "all", "--palace", "dst")
	if n := *o.env.Meta.Count; n != 1 {
		t.Fatalf("dst has %d facts after a refused import, want 1", n)
	}
	// The whole file imports; the fact that collides with dst's mem-0001 is
	// renumbered. stdin works as the file.
	stdout, _, code := runLociOnce(t, home, cliEnvVars, string(full), "import", "-", "--palace", "dst", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"renumbered":1`) {
		t.Fatalf("import from stdin: %d %s", code, stdout)
	}
	o = runCLI(t, home, "json", "review", "list", "--status", "all", "--palace", "dst")
	if n := *o.env.Meta.Count; n != 2 || !strings.Contains(o.stdout, "mem-0002") {
		t.Fatalf("dst after import: %s", o.stdout)
	}
	if o := runCLI(t, home, "json", "kg", "query", "api", "--palace", "dst"); !strings.Contains(o.stdout, "fly") {
		t.Fatalf("triples not imported: %s", o.stdout)
	}
	// --on-conflict fail refuses a second import.
	if o := runCLI(t, home, "json", "import", filepath.Join(work, "src.jsonl"), "--palace", "dst", "--on-conflict", "fail"); o.code != 1 || o.env.Error.Type != "conflict" {
		t.Fatalf("second import with fail: %d %s", o.code, o.stdout)
	}
}

// failingExtractor stands in for an LLM provider out of reach.
type failingExtractor struct{}

func (failingExtractor) Name() string { return "llm:unreachable" }
func (failingExtractor) Extract(context.Context, string, bool, []extract.Message) (extract.Result, error) {
	return extract.Result{}, errors.New("llm: dial tcp 127.0.0.1:9: connection refused")
}
func (failingExtractor) Facts(context.Context, []extract.Message) ([]extract.Fact, error) {
	return nil, nil
}

// Doctor warns of a session whose extraction keeps failing (its messages
// wait, unsearchable as memories), naming the last error; once the
// messages are purged, the warning is gone.
func TestDoctorWarnsOfFailedExtraction(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	func() {
		ctx := context.Background()
		reg, err := palace.OpenRegistry(palace.Config{DataDir: home, Extractor: failingExtractor{}})
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Close()
		p, err := reg.OpenOrCreate(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		msgs := []extract.Message{{Role: "user", SenderID: "ann", Text: "we moved the standup to 10", Timestamp: at},
			{Role: "assistant", Text: "noted", Timestamp: at.Add(time.Second)}}
		if _, err := session.Of(p).Append(ctx, "standup", msgs, session.Options{}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := session.Of(p).Flush(ctx, "standup", session.Options{}); err == nil {
				t.Fatal("a flush with the extractor down succeeded")
			}
		}
	}()
	o := runCLI(t, home, "json", "doctor", "--palace", "p")
	checks, _ := json.Marshal(o.env.Data["checks"])
	if o.code != 0 || !strings.Contains(string(checks), `"name":"palace p extraction","status":"warn"`) ||
		!strings.Contains(string(checks), "extraction failed for 1 session(s), whose 2 message(s) wait in the buffer; session standup: 2 attempt(s)") ||
		!strings.Contains(string(checks), "connection refused") {
		t.Fatalf("doctor: %d %s", o.code, checks)
	}
	if o := runCLI(t, home, "json", "forget", "--purge", "--session", "standup", "--palace", "p"); o.code != 0 {
		t.Fatalf("purge: %s", o.stdout)
	}
	o = runCLI(t, home, "json", "doctor", "--palace", "p")
	if checks, _ := json.Marshal(o.env.Data["checks"]); o.code != 0 || strings.Contains(string(checks), "extraction") {
		t.Errorf("doctor after the purge: %d %s", o.code, checks)
	}
}
