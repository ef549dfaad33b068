package main

import (
	"strings"
	"testing"
	"time"
)

func TestTermSafe(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text, été, 日本":        "plain text, été, 日本",
		"line\nnext\tcol":            "line\nnext\tcol",
		"\x1b[31mred\x1b[0m":         `\x1b[31mred\x1b[0m`,
		"title\x1b]0;pwned\x07":      `title\x1b]0;pwned\x07`,
		"nul\x00cr\r":                `nul\x00cr\x0d`,
		"c1 \u009b":                  `c1 \x9b`,
		"abc\u202Etxt.exe":           "abc<U+202E>txt.exe",
		"\u2066isolate\u2069 \u200f": "<U+2066>isolate<U+2069> <U+200F>",
		"bad \xff byte":              `bad \xff byte`,
	} {
		if got := termSafe(in); got != want {
			t.Errorf("termSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// Stored text cannot drive the reader's terminal: `loci recall --all` in
// text mode shows escapes and bidi overrides visibly; JSON keeps the text.
func TestRecallTextNeutralisesControls(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := startLoci(t, home, nil, "serve", "--palace", "p")
	p.initialize()
	evil := "deploy notes \x1b[2J\x1b]0;owned\x07 and \u202Egnp.exe"
	p.tool("memory_remember", map[string]any{"text": evil}, nil)
	p.closeAndWait(10 * time.Second)
	o := runCLI(t, home, "text", "recall", "--all", "deploy notes", "--palace", "p")
	if o.code != 0 || !strings.Contains(o.stdout, "deploy notes") {
		t.Fatalf("recall: %d %q %q", o.code, o.stdout, o.stderr)
	}
	if strings.ContainsAny(o.stdout, "\x1b\x07\u202e") || !strings.Contains(o.stdout, `\x1b[2J`) || !strings.Contains(o.stdout, "<U+202E>") {
		t.Errorf("text output: %q", o.stdout)
	}
	j := runCLI(t, home, "json", "recall", "--all", "deploy notes", "--palace", "p")
	if !strings.Contains(j.stdout, `\u001b[2J`) {
		t.Errorf("JSON output lost the stored text: %q", j.stdout)
	}
}

func TestHoistGlobalFlags(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"--format json palace list":              "palace list --format json",
		"--format=yaml --palace p recall x":      "recall x --format=yaml --palace p",
		"--data-dir /d --format text kg query a": "kg query a --data-dir /d --format text",
		"palace list --format json":              "palace list --format json",
		"--verbose palace list":                  "--verbose palace list",
		"--format json":                          "--format json",
	} {
		if got := strings.Join(hoistGlobalFlags(strings.Fields(in)), " "); got != want {
			t.Errorf("hoist(%q) = %q, want %q", in, got, want)
		}
	}
}

// `loci --format json palace list`: global flags before the command work.
func TestGlobalFlagsBeforeTheCommand(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runLociOnce(t, t.TempDir(), cliEnvVars, "", "--format", "json", "--palace", "p", "palace", "list")
	if code != 0 || !strings.HasPrefix(stdout, `{"data":`) || !strings.Contains(stdout, `"ok":true`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// A mistyped flag value may be a token: flag errors are reported once,
// redacted, on every command (the flag package used to print them raw,
// with the usage, before the envelope).
func TestFlagErrorsAreRedacted(t *testing.T) {
	t.Parallel()
	token := "ghp_" + strings.Repeat("Zq7", 12)
	for _, args := range [][]string{
		{"recall", "--limit", token, "--format", "text"},
		{"recall", "--limit=" + token, "--format", "json"},
		{"serve", "--bogus", token},
		{"serve", "--palace", "p", token},
		{"http", "--bogus=" + token},
	} {
		stdout, stderr, code := runLociOnce(t, t.TempDir(), cliEnvVars, "", args...)
		if code != 2 || strings.Contains(stdout+stderr, token[4:]) {
			t.Errorf("loci %v: exit %d\nstdout %s\nstderr %s", args, code, stdout, stderr)
		}
		if strings.Count(stderr, "Usage of") > 0 {
			t.Errorf("loci %v: printed the usage on a flag error:\n%s", args, stderr)
		}
	}
}
