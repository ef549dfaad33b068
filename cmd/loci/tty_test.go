package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// startOnTTY starts loci with stdin (and, when ttyStderr, stderr) on a
// pseudo-terminal, as a person at a shell runs it; stdout is a pipe.
// It returns the process, its stdout and what it writes to stderr.
func startOnTTY(t *testing.T, home string, ttyStderr bool, args ...string) (*exec.Cmd, *os.File, *bufio.Reader) {
	cmd, stdout, stderr, _ := startOnTTYEnv(t, home, nil, ttyStderr, args...)
	return cmd, stdout, stderr
}

// startOnTTYEnv is startOnTTY with extra environment; it also returns the
// terminal's input side, to type answers.
func startOnTTYEnv(t *testing.T, home string, env []string, ttyStderr bool, args ...string) (*exec.Cmd, *os.File, *bufio.Reader, *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home, "LOCI_EMBEDDER=hash"), cliEnvVars...), env...)
	cmd.Stdin = tty
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr *bufio.Reader
	if ttyStderr {
		cmd.Stderr = tty
		stderr = bufio.NewReader(ptmx)
	} else {
		r, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr = bufio.NewReader(r)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, stdout.(*os.File), stderr, ptmx
}

// readUntil reads lines from r until one contains want, or fails after
// the deadline.
func readUntil(t *testing.T, r *bufio.Reader, want string) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		var b strings.Builder
		for {
			line, err := r.ReadString('\n')
			b.WriteString(line)
			if strings.Contains(line, want) || err != nil {
				got <- b.String()
				return
			}
		}
	}()
	select {
	case s := <-got:
		if !strings.Contains(s, want) {
			t.Fatalf("%q never came; got:\n%s", want, s)
		}
		return s
	case <-time.After(30 * time.Second):
		t.Fatalf("%q did not come in 30 s", want)
		return ""
	}
}

// `loci serve` run by hand (make run) says on stderr what it waits for,
// and stdout carries nothing but the protocol.
func TestServeExplainsItselfOnATerminal(t *testing.T) {
	t.Parallel()
	cmd, stdout, stderr := startOnTTY(t, t.TempDir(), false, "serve", "--palace", "default")
	banner := readUntil(t, stderr, "Ctrl-C to stop")
	for _, want := range []string{"MCP server on stdin/stdout", `palace "default"`, "loci install   (finds the agent hosts"} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner lacks %q:\n%s", want, banner)
		}
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	rest, _ := bufio.NewReader(stdout).ReadString(0)
	if rest != "" {
		t.Errorf("stdout carried more than protocol frames: %q", rest)
	}
}

// Spawned by a host (stdin a pipe), serve prints no banner.
func TestServeQuietUnderAHost(t *testing.T) {
	t.Parallel()
	_, stderr, code := runLociOnce(t, t.TempDir(), []string{"LOCI_EMBEDDER=hash"}, "", "serve", "--palace", "default")
	if code != 0 || strings.Contains(stderr, "Ctrl-C") {
		t.Errorf("serve with stdin a pipe: exit %d, stderr:\n%s", code, stderr)
	}
}

// Long commands show progress on stderr when it is a terminal (count and
// phase on one rewritten line) and stay quiet in a pipe.
func TestImportProgressOnATerminal(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"loci-palace","version":1,"palace":"x"}` + "\n")
	const n = 2500
	for i := range n {
		fmt.Fprintf(&b, `{"type":"drawer","drawer":{"id":"d%05d","kind":"note","content":"note %d about the deploy pipeline","room":"General","status":"active"}}`+"\n", i, i)
	}
	fmt.Fprintf(&b, `{"type":"footer","drawers":%d,"triples":0,"fact_ids":0}`+"\n", n)
	file := t.TempDir() + "/big.jsonl"
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	_, _, stderr := startOnTTY(t, home, true, "import", file, "--palace", "g", "--format", "json")
	got := readUntil(t, stderr, "2,500/2,500 drawers")
	if !strings.Contains(got, "\rimport: ") || !strings.Contains(got, "(writing)") {
		t.Errorf("no progress line on the terminal:\n%q", got)
	}
	_, quiet, code := runLociOnce(t, home, []string{"LOCI_EMBEDDER=hash"}, "", "import", file, "--palace", "h", "--format", "json")
	if code != 0 || strings.Contains(quiet, "import: ") {
		t.Errorf("import with stderr a pipe: exit %d, stderr %q", code, quiet)
	}
}

// At a terminal, `loci install` without a host asks which of the hosts it
// found to set up, and installs the one chosen.
func TestInstallAsksAtATerminal(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	env = append(env, "PATH="+filepath.Join(home, "bin"))
	for _, d := range []string{".cursor", ".gemini"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	cmd, stdout, stderr, term := startOnTTYEnv(t, filepath.Join(home, "loci-data"), env, true, "install", "--format", "json")
	readUntil(t, stderr, "2) gemini")
	if _, err := term.Write([]byte("2\n")); err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(stdout)
	cmd.Wait()
	if !strings.Contains(string(out), `"host":"gemini"`) {
		t.Fatalf("install after choosing 2: %s", out)
	}
	if doc := readTestFile(t, filepath.Join(home, ".gemini", "settings.json")); !strings.Contains(doc, `"loci"`) {
		t.Errorf("gemini settings:\n%s", doc)
	}
}
