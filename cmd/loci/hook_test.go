package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server/mcptest"
)

// runLociOnce runs `loci args...` as a real process (the test binary
// standing in for loci) with LOCI_HOME=home, extra env and stdin, and
// returns its stdout, stderr and exit code.
func runLociOnce(t *testing.T, home string, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run loci %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// TestHookReplays replays testdata/hooks/*.txtar: each is a sequence of
// `loci hook` runs against one data dir and one git repository, each
// checked against the exact JSON it must print. Sections, in order:
//
//	-- env --            KEY=VALUE lines for every run
//	-- append NAME --    lines appended to $WORK/NAME: a line starting
//	                     with "{" is copied, any other names a fixture file
//	                     in testdata/hooks whose lines are copied
//	-- hook ARGS --      one run of `loci hook ARGS`; the body is its stdin
//	-- want --           the stdout the run before must print ("#" lines
//	                     are notes, kept by -update)
//
// $WORK and $REPO in stdin are the scratch and repository directories;
// in output they (and the project's palace name, as <palace>) are put
// back, and an extracted episode's text reads <episode>. Run `go test ./cmd/loci -run HookReplays -update`
// to rewrite the want sections.
func TestHookReplays(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../testdata/hooks/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hook replays: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			replayHooks(t, file)
		})
	}
}

type section struct{ name, body string }

var sectionRe = regexp.MustCompile(`(?m)^-- (.+?) --$`)

// episodeRe finds an extracted episode's text in hook output (inside a JSON
// string, so its newline is the two characters \n). The wording is the
// extractor's, tested in palace/extract; replays mask it.
var episodeRe = regexp.MustCompile(`, episode\) (?:[^\\]|\\[^n])*\\n`)

// parseSections reads a txtar-like file keeping every section in order
// (names may repeat).
func parseSections(s string) (comment string, secs []section) {
	idx := sectionRe.FindAllStringSubmatchIndex(s, -1)
	if len(idx) == 0 {
		return s, nil
	}
	comment = s[:idx[0][0]]
	for i, m := range idx {
		end := len(s)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		secs = append(secs, section{s[m[2]:m[3]], strings.TrimPrefix(s[m[1]:end], "\n")})
	}
	return comment, secs
}

func replayHooks(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	comment, secs := parseSections(string(raw))
	home, work := t.TempDir(), t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "sub", "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	name, err := palace.ProjectName(repo)
	if err != nil {
		t.Fatal(err)
	}
	realRepo, _ := filepath.EvalSymlinks(repo)
	normalize := strings.NewReplacer(work, "$WORK", realRepo, "$REPO", repo, "$REPO", name, "<palace>")
	expand := strings.NewReplacer("$WORK", work, "$REPO", repo)

	var env []string
	step := 0
	for i, s := range secs {
		switch {
		case s.name == "env":
			env = append(env, mcptest.Lines(s.body)...)
		case strings.HasPrefix(s.name, "append "):
			appendTranscript(t, filepath.Join(work, strings.TrimPrefix(s.name, "append ")), s.body)
		case s.name == "hook" || strings.HasPrefix(s.name, "hook "):
			step++
			// A generous budget: the goldens must not depend on how
			// loaded the machine is (TestHookBudget covers running out).
			args := append([]string{"hook"}, strings.Fields(strings.TrimPrefix(s.name, "hook"))...)
			args = append(args, "--budget", "30s")
			out, stderr, code := runLociOnce(t, home, env, expand.Replace(strings.TrimSpace(s.body)), args...)
			if code != 0 {
				t.Fatalf("step %d (%s): exit code %d; hooks always exit 0\nstderr: %s", step, s.name, code, stderr)
			}
			if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || !json.Valid([]byte(out)) {
				t.Fatalf("step %d (%s): stdout must be exactly one JSON line, got %q\nstderr: %s", step, s.name, out, stderr)
			}
			line := episodeRe.ReplaceAllString(normalize.Replace(strings.TrimSpace(out)), `, episode) <episode>\n`)
			if *update {
				if i+1 >= len(secs) || secs[i+1].name != "want" {
					t.Fatalf("step %d (%s) has no want section", step, s.name)
				}
				secs[i+1].body = line + "\n" + commentLines(secs[i+1].body)
				continue
			}
			if i+1 >= len(secs) || secs[i+1].name != "want" {
				t.Fatalf("step %d (%s) has no want section", step, s.name)
			}
			if want := firstLine(secs[i+1].body); line != want {
				t.Errorf("step %d (%s):\n got: %s\nwant: %s\nstderr: %s", step, s.name, line, want, stderr)
			}
		case s.name == "want":
		default:
			t.Fatalf("unknown section %q", s.name)
		}
	}
	if *update {
		var b strings.Builder
		b.WriteString(comment)
		for _, s := range secs {
			b.WriteString("-- " + s.name + " --\n" + s.body)
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// firstLine is the first line of a want section that is not a comment.
func firstLine(body string) string {
	if l := mcptest.Lines(body); len(l) > 0 {
		return strings.TrimSpace(l[0])
	}
	return ""
}

// commentLines keeps the "#" lines of a want section (notes about the
// next step) across -update.
func commentLines(body string) string {
	var b strings.Builder
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func appendTranscript(t *testing.T, path, body string) {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "{"):
			b.WriteString(l + "\n")
		default:
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "hooks", l))
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
}

// TestHookBudget: a hook whose budget runs out prints {"continue":true},
// exits 0 and does not overstay.
func TestHookBudget(t *testing.T) {
	t.Parallel()
	home, repo := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	data, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "hooks", "turn1.jsonl"))
	os.WriteFile(transcript, data, 0o600)
	stop := `{"session_id":"b","transcript_path":"` + transcript + `","cwd":"` + repo + `","hook_event_name":"Stop"}`
	if out, _, _ := runLociOnce(t, home, nil, stop, "hook", "stop", "--budget", "30s"); !strings.Contains(out, "turn saved") {
		t.Fatalf("setup stop: %q", out)
	}
	in := `{"session_id":"x","cwd":"` + repo + `","hook_event_name":"UserPromptSubmit","prompt":"how should I handle authentication in the gateway"}`
	start := time.Now()
	out, stderr, code := runLociOnce(t, home, nil, in, "hook", "prompt-submit", "--budget", "1ms")
	if code != 0 || out != "{\"continue\":true}\n" {
		t.Errorf("exit %d stdout %q stderr %s", code, out, stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a 1 ms budget took %v", d)
	}
}

// TestHookDebugLog checks LOCI_DEBUG=1: debug lines go to
// <data dir>/logs/hooks.log, never to stdout.
func TestHookDebugLog(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	in := `{"session_id":"s","cwd":"` + t.TempDir() + `","hook_event_name":"UserPromptSubmit","prompt":"hello there friend"}`
	out, _, code := runLociOnce(t, home, []string{"LOCI_DEBUG=1"}, in, "hook", "prompt-submit")
	if code != 0 || out != "{\"continue\":true}\n" {
		t.Fatalf("exit %d stdout %q", code, out)
	}
	log, err := os.ReadFile(filepath.Join(home, "logs", "hooks.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `"message":"hook input"`) || !strings.Contains(string(log), `"message":"hook output"`) {
		t.Errorf("debug log lacks input and output:\n%s", log)
	}
	// Without LOCI_DEBUG nothing is appended.
	before := len(log)
	runLociOnce(t, home, []string{"LOCI_DEBUG="}, in, "hook", "prompt-submit")
	if after, _ := os.ReadFile(filepath.Join(home, "logs", "hooks.log")); len(after) != before {
		t.Error("hook logged to the debug file without LOCI_DEBUG=1")
	}
}

func TestAutoPalace(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "a", "b"), 0o755)
	want, _ := palace.ProjectName(repo)
	if got := autoPalace(filepath.Join(repo, "a", "b")); got != want {
		t.Errorf("autoPalace(subdir) = %q, want %q", got, want)
	}
	if got := autoPalace(t.TempDir()); got != "default" {
		t.Errorf("autoPalace outside git = %q, want default", got)
	}
	t.Setenv("LOCI_PALACE", "")
	if got, err := hookPalace("mine", repo); err != nil || got != "mine" {
		t.Errorf("--palace mine: %q %v", got, err)
	}
	if _, err := hookPalace("../x", repo); err == nil {
		t.Error("unsafe --palace accepted")
	}
	t.Setenv("LOCI_PALACE", "envp")
	if got, _ := hookPalace("", repo); got != "envp" {
		t.Errorf("LOCI_PALACE ignored: %q", got)
	}
	if got, _ := hookPalace("auto", repo); got != want {
		t.Errorf("--palace auto = %q, want %q", got, want)
	}
}
