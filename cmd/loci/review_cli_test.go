package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// cliEnvVars clears the settings variables so the host's environment
// cannot change what the CLI tests see.
var cliEnvVars = []string{"LOCI_AUTOPROMOTE=", "LOCI_FACT_HORIZON=", "LOCI_TOPK=", "LOCI_PALACE=", "LOCI_LOG="}

// cliEnvelope is seed 000's CLI cliEnvelope.
type cliEnvelope struct {
	OK    bool           `json:"ok" yaml:"ok"`
	Data  map[string]any `json:"data" yaml:"data"`
	Error *struct {
		Type    string         `json:"type" yaml:"type"`
		Code    int            `json:"code" yaml:"code"`
		Message string         `json:"message" yaml:"message"`
		Hint    string         `json:"hint" yaml:"hint"`
		Detail  map[string]any `json:"detail" yaml:"detail"`
	} `json:"error" yaml:"error"`
	Meta struct {
		Count     *int   `json:"count" yaml:"count"`
		RequestID string `json:"requestId" yaml:"requestId"`
	} `json:"meta" yaml:"meta"`
}

// cliOut is one CLI run.
type cliOut struct {
	stdout, stderr string
	code           int
	env            cliEnvelope // decoded in json and yaml mode
}

// runCLI runs `loci args... --format format` and checks the stream
// contract: json and yaml print exactly one cliEnvelope on stdout, text mode
// prints no cliEnvelope, and an error in text mode leaves stdout empty with
// "error:" (and "hint:") on stderr.
func runCLI(t *testing.T, home, format string, args ...string) cliOut {
	t.Helper()
	full := append(append([]string{}, args...), "--format", format)
	stdout, stderr, code := runLociOnce(t, home, cliEnvVars, "", full...)
	out := cliOut{stdout: stdout, stderr: stderr, code: code}
	switch format {
	case "json":
		dec := json.NewDecoder(strings.NewReader(stdout))
		if err := dec.Decode(&out.env); err != nil {
			t.Fatalf("loci %v: stdout is not one JSON cliEnvelope: %v\n%s", args, err, stdout)
		}
		if dec.More() {
			t.Fatalf("loci %v: more than one JSON value on stdout:\n%s", args, stdout)
		}
	case "yaml":
		if err := yaml.Unmarshal([]byte(stdout), &out.env); err != nil {
			t.Fatalf("loci %v: stdout is not a YAML cliEnvelope: %v\n%s", args, err, stdout)
		}
	case "text":
		if strings.HasPrefix(strings.TrimSpace(stdout), "{") || strings.HasPrefix(stdout, "ok:") {
			t.Fatalf("loci %v: text mode printed an cliEnvelope:\n%s", args, stdout)
		}
		if code != 0 {
			if stdout != "" {
				t.Fatalf("loci %v: failed in text mode but wrote stdout:\n%s", args, stdout)
			}
			if !strings.Contains(stderr, "error: ") || !strings.Contains(stderr, "hint: ") {
				t.Fatalf("loci %v: failed in text mode without \"error:\" and \"hint:\" on stderr:\n%s", args, stderr)
			}
		}
	}
	if format != "text" {
		if out.env.OK != (code == 0) {
			t.Fatalf("loci %v: ok=%v with exit code %d\n%s", args, out.env.OK, code, stdout)
		}
		if !strings.HasPrefix(out.env.Meta.RequestID, "req_") {
			t.Fatalf("loci %v: meta.requestId = %q", args, out.env.Meta.RequestID)
		}
		if code != 0 && (out.env.Error == nil || out.env.Error.Type == "" || out.env.Error.Message == "" || out.env.Error.Hint == "") {
			t.Fatalf("loci %v: error cliEnvelope without type, message or hint:\n%s", args, stdout)
		}
		if strings.Contains(stderr, `"ok"`) || strings.Contains(stderr, "ok: ") {
			t.Fatalf("loci %v: the cliEnvelope leaked to stderr:\n%s", args, stderr)
		}
	}
	return out
}

var undoTokenRe = regexp.MustCompile(`undo-[0-9a-f]{20}`)

// TestCLISubcommandsInEveryFormat runs the whole review-queue life cycle
// (and every other subcommand) in json, yaml and text mode, each on a fresh
// data dir, checking exit codes, the stream contract and the state each
// step leaves behind.
func TestCLISubcommandsInEveryFormat(t *testing.T) {
	t.Parallel()
	harvestFile, _ := filepath.Abs("../../testdata/harvest/session.jsonl")
	for _, format := range []string{"json", "yaml", "text"} {
		t.Run(format, func(t *testing.T) {
			home := t.TempDir()
			work := t.TempDir()
			var token string
			type step struct {
				args []string
				code int
				want string // substring of stdout (text) or of the JSON of data (json, yaml)
				then func(o cliOut)
			}
			steps := []step{
				{args: []string{"version"}, want: "0."},
				{args: []string{"palace", "create", "p1", "--description", "CLI test palace"}, want: "p1"},
				{args: []string{"palace", "list"}, want: "p1"},
				{args: []string{"palace", "info", "p1"}, want: "CLI test palace"},
				{args: []string{"remember", "I prefer pnpm over npm", "--kind", "tooling", "--confidence", "0.9", "--palace", "p1"}, want: "mem-0001"},
				{args: []string{"remember", "My production Postgres runs on port 5433", "--kind", "infra", "--palace", "p1"}, want: "mem-0002"},
				{args: []string{"remember", "I'm", "allergic", "to", "shellfish", "--kind", "health", "--palace", "p1"}, want: "allergic to shellfish"},
				{args: []string{"review", "list", "--palace", "p1"}, want: "mem-0003"},
				{args: []string{"review", "approve", "mem-0002", "--palace", "p1"}, want: "mem-0002"},
				{args: []string{"remember", "My production Postgres runs on port 5432", "--kind", "infra", "--palace", "p1"}, want: "conflict"},
				{args: []string{"review", "show", "mem-0004", "--palace", "p1"}, want: "mem-0002"},
				{args: []string{"review", "approve", "mem-0004", "mem-0001", "--palace", "p1"}, want: "supersede"},
				{args: []string{"recall", "--palace", "p1"}, want: "port 5432"},
				{args: []string{"recall", "postgres", "port", "--palace", "p1", "--limit", "1"}, want: "mem-0004"},
				{args: []string{"review", "reject", "mem-0003", "--palace", "p1"}, want: "undo-", then: func(o cliOut) {
					token = undoTokenRe.FindString(o.stdout)
				}},
				{args: []string{"review", "list", "--status", "rejected", "--palace", "p1"}, want: "mem-0003"},
				{args: []string{"review", "undo", "TOKEN", "--palace", "p1"}, want: "pending"},
				{args: []string{"review", "list", "--palace", "p1"}, want: "shellfish"},
				{args: []string{"review", "forget", "mem-0001", "--palace", "p1"}, want: "undo-", then: func(o cliOut) {
					token = undoTokenRe.FindString(o.stdout)
				}},
				{args: []string{"recall", "pnpm", "--palace", "p1"}, then: func(o cliOut) {
					if strings.Contains(o.stdout, "pnpm over npm") {
						t.Errorf("forgotten fact still recalled:\n%s", o.stdout)
					}
				}},
				{args: []string{"review", "undo", "TOKEN", "--palace", "p1"}, want: "active"},
				{args: []string{"recall", "pnpm", "--palace", "p1"}, want: "pnpm over npm"},
				{args: []string{"kg", "assert", "api", "runs_on", "fly", "--palace", "p1"}, want: "runs_on"},
				{args: []string{"kg", "assert", "api", "runs_on", "k8s", "--palace", "p1"}, want: "k8s"},
				{args: []string{"kg", "query", "api", "--palace", "p1"}, want: "k8s"},
				{args: []string{"kg", "history", "api", "--palace", "p1"}, want: "fly"},
				{args: []string{"harvest", harvestFile, "--palace", "p1", "--dry-run"}, want: "allergic to shellfish"},
				{args: []string{"harvest", harvestFile, "--palace", "p1", "--min-confidence", "0.8"}, want: "I prefer pnpm over npm"},
				{args: []string{"export", "--palace", "p1", "--out", filepath.Join(work, "p1.jsonl")}, want: "p1.jsonl"},
				{args: []string{"export", "--palace", "p1", "--out", filepath.Join(work, "p1.md"), "--markdown"}, want: "markdown"},
				{args: []string{"import", filepath.Join(work, "p1.jsonl"), "--palace", "copy"}, want: "copy"},
				{args: []string{"recall", "--palace", "copy"}, want: "port 5432"},
				{args: []string{"recall", "--all", "harvest", "--palace", "copy"}, then: func(o cliOut) {}},
				{args: []string{"palace", "create", "notes"}},
				{args: []string{"kg", "query", "nobody", "--palace", "notes"}},
				{args: []string{"recall", "--all", "package", "manager", "pnpm", "--palace", "p1"}, want: "I prefer pnpm over npm"},
				{args: []string{"doctor"}, want: "palace p1"},
			}
			for i, s := range steps {
				args := append([]string(nil), s.args...)
				for j, a := range args {
					if a == "TOKEN" {
						args[j] = token
					}
				}
				o := runCLI(t, home, format, args...)
				if o.code != s.code {
					t.Fatalf("step %d loci %v: exit %d, want %d\nstdout: %s\nstderr: %s", i, args, o.code, s.code, o.stdout, o.stderr)
				}
				got := o.stdout
				if format != "text" {
					b, _ := json.Marshal(o.env.Data)
					got = string(b)
				}
				if s.want != "" && !strings.Contains(got, s.want) {
					t.Fatalf("step %d loci %v (%s): output lacks %q:\n%s", i, args, format, s.want, got)
				}
				if s.then != nil {
					s.then(o)
				}
			}
			md, err := os.ReadFile(filepath.Join(work, "p1.md"))
			if err != nil || !strings.Contains(string(md), "## Facts") {
				t.Fatalf("markdown export: %v\n%s", err, md)
			}
		})
	}
}

// TestCLIErrorTypes checks each error type the local CLI can produce, its
// exit code, its cliEnvelope in json and yaml, its two stderr lines in text,
// and that none of the failures changed the palace.
func TestCLIErrorTypes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	work := t.TempDir()
	for _, args := range [][]string{
		{"remember", "I prefer pnpm over npm", "--kind", "tooling", "--palace", "p1"},
		{"review", "approve", "mem-0001", "--palace", "p1"},
		{"remember", "I'm allergic to shellfish", "--kind", "health", "--palace", "p1"},
	} {
		if o := runCLI(t, home, "json", args...); o.code != 0 {
			t.Fatalf("setup %v: %s %s", args, o.stdout, o.stderr)
		}
	}
	notFile := filepath.Join(work, "file")
	os.WriteFile(notFile, []byte("x"), 0o600)
	cases := []struct {
		args []string
		typ  string
		code int
	}{
		{[]string{"remember", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"remember", "x", "--kind", "hobby", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"remember", "x", "--confidence", "1.5", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"remember", "x", "--confidence", "high", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"remember", "x", "--palace", "../etc"}, "invalid_args", 2},
		{[]string{"recall", "--limit", "0", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"recall", "--all", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"review", "promote", "mem-0001", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"review", "approve", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"review", "list", "--status", "weird", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"review", "approve", "mem-x", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"forget", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"harvest", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"harvest", work, "--palace", "p1"}, "invalid_args", 2},
		{[]string{"harvest", "../../testdata/harvest/not_a_transcript.txt", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"import", notFile, "--palace", "p1"}, "invalid_args", 2},
		{[]string{"import", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"doctor", "extra"}, "invalid_args", 2},
		{[]string{"recall", "--palace", "nope"}, "not_found", 1},
		{[]string{"review", "show", "mem-0099", "--palace", "p1"}, "not_found", 1},
		{[]string{"review", "undo", "undo-00000000000000000000", "--palace", "p1"}, "not_found", 1},
		{[]string{"forget", "0190c0de-0000-7000-8000-000000000000", "--palace", "p1"}, "not_found", 1},
		{[]string{"harvest", filepath.Join(work, "missing.jsonl"), "--palace", "p1"}, "not_found", 1},
		{[]string{"import", filepath.Join(work, "missing.jsonl"), "--palace", "p1"}, "not_found", 1},
		{[]string{"review", "reject", "mem-0001", "--palace", "p1"}, "conflict", 1},
		// one bad id in a batch: nothing of the batch is applied
		{[]string{"review", "reject", "mem-0002", "mem-0001", "--palace", "p1"}, "conflict", 1},
		{[]string{"export", "--palace", "p1", "--out", filepath.Join(notFile, "x.jsonl")}, "io", 5},
		{[]string{"recall", "--palace", "p1", "--data-dir", notFile}, "io", 5},
		// the commands that were already there, and the dispatcher
		{[]string{"frobnicate"}, "invalid_args", 2},
		{[]string{"version", "--bogus"}, "invalid_args", 2},
		{[]string{"palace"}, "invalid_args", 2},
		{[]string{"palace", "frobnicate"}, "invalid_args", 2},
		{[]string{"palace", "create"}, "invalid_args", 2},
		{[]string{"palace", "create", "p1"}, "conflict", 1},
		{[]string{"palace", "info", "nope"}, "not_found", 1},
		{[]string{"kg", "assert", "a", "b", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"kg", "assert", "a", "b", "c", "--confidence", "2", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"kg", "query", "a", "--as-of", "yesterday", "--palace", "p1"}, "invalid_args", 2},
		{[]string{"kg", "history", "a", "--palace", "nope"}, "not_found", 1},
	}
	for _, tc := range cases {
		for _, format := range []string{"json", "yaml", "text"} {
			o := runCLI(t, home, format, tc.args...)
			if o.code != tc.code {
				t.Errorf("loci %v --format %s: exit %d, want %d\n%s%s", tc.args, format, o.code, tc.code, o.stdout, o.stderr)
				continue
			}
			if format != "text" && o.env.Error.Type != tc.typ {
				t.Errorf("loci %v --format %s: error.type %q, want %q", tc.args, format, o.env.Error.Type, tc.typ)
			}
		}
	}
	// An invalid --format is reported in json (the format auto resolves to
	// off a terminal).
	stdout, _, code := runLociOnce(t, home, cliEnvVars, "", "recall", "--palace", "p1", "--format", "xml")
	if code != 2 || !strings.Contains(stdout, `"type":"invalid_args"`) || !strings.Contains(stdout, `"flag":"format"`) {
		t.Errorf("--format xml: exit %d\n%s", code, stdout)
	}
	// The failures changed nothing: the queue is as the setup left it.
	o := runCLI(t, home, "json", "review", "list", "--status", "all", "--palace", "p1")
	facts, _ := o.env.Data["facts"].([]any)
	if len(facts) != 2 {
		t.Fatalf("%d facts after the failures, want 2: %s", len(facts), o.stdout)
	}
	states := fmt.Sprint(facts)
	if !strings.Contains(states, "status:active") || !strings.Contains(states, "status:pending") {
		t.Fatalf("states changed by failed commands: %s", states)
	}
}
