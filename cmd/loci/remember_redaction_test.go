package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server"
	"github.com/rs/zerolog"
)

// Fake credentials, assembled at run time so that no real-looking token
// sits in the source.
var (
	fakeAWSKey = "AK" + "IA" + "FAKE" + "TEST" + "00000000"
	fakeEMK    = "emk" + "_" + "a1b2" + strings.Repeat("c3d4", 6)
	fakeGHP    = "gh" + "p_" + strings.Repeat("a1", 18)
	secrets    = []string{fakeAWSKey, fakeEMK, fakeGHP}
)

// assertNoSecret fails if any fake credential appears in s.
func assertNoSecret(t *testing.T, where, s string) {
	t.Helper()
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			t.Errorf("%s contains the secret %.8s…:\n%s", where, sec, tail(s, 2000))
		}
	}
}

// assertNoSecretOnDisk scans every file under dir (the SQLite file, its
// WAL, the index snapshot, exports) for the fake credentials.
func assertNoSecretOnDisk(t *testing.T, dir string) {
	t.Helper()
	files := 0
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("read %s: %v", path, err)
			return nil
		}
		files++
		for _, sec := range secrets {
			if bytes.Contains(b, []byte(sec)) {
				t.Errorf("%s holds the secret %.8s…", path, sec)
			}
		}
		return nil
	})
	if files == 0 {
		t.Fatalf("no files under %s: the check looked at nothing", dir)
	}
}

// TestRedactionMCPFaces gives a secret to every new tool and resource,
// through arguments that are stored and arguments that are only echoed
// (queries, bad kinds, bad URIs), and checks that no secret reaches
// stdout, stderr (debug logs on) or the palace files, and that stored
// facts record the redaction.
func TestRedactionMCPFaces(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := startLoci(t, home, cliEnvVars[:3], "serve", "--palace", "p1")
	p.initialize()
	var out []string
	call := func(method string, params any) {
		t.Helper()
		r := p.request(method, params)
		raw, _ := json.Marshal(r)
		out = append(out, string(raw))
	}
	tool := func(name string, args map[string]any) {
		call("tools/call", map[string]any{"name": name, "arguments": args})
	}
	read := func(uri string) { call("resources/read", map[string]any{"uri": uri}) }

	tool("remember", map[string]any{"fact": "My AWS access key is " + fakeAWSKey, "kind": "infra"})
	tool("mem_save_fact", map[string]any{"fact": "I use the EverMe key " + fakeEMK + " on my laptop"})
	tool("mem_save_fact", map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "I keep my GitHub token " + fakeGHP + " in the vault."},
		map[string]any{"role": "assistant", "content": "Noted " + fakeGHP}}})
	tool("memory_remember", map[string]any{"text": "deploy key " + fakeGHP})
	tool("mem_search", map[string]any{"query": "key " + fakeAWSKey})
	tool("mem_context", map[string]any{"query": "token " + fakeEMK})
	tool("recall", map[string]any{"query": fakeGHP})
	tool("recall", map[string]any{})
	tool("remember", map[string]any{"fact": "x", "kind": fakeAWSKey})
	tool("mem_save_fact", map[string]any{"messages": []any{map[string]any{"role": fakeEMK, "content": "x"}}})
	read("mem://search?q=" + url.QueryEscape(fakeEMK) + "&topK=5")
	read("mem://search?q=" + url.QueryEscape("AWS access key"))
	read("mem://profile")
	read("memory://recall")
	read("mem://nothing/" + fakeAWSKey)
	read("mem://search?q=x&topK=" + fakeGHP)
	if code := p.closeAndWait(5 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	all := strings.Join(out, "\n")
	if !strings.Contains(all, "AKIA[REDACTED]") || !strings.Contains(all, "emk_a1b2_REDACTED") || !strings.Contains(all, "ghp_[REDACTED]") {
		t.Fatalf("the masks are missing, so the calls did not echo what they were given:\n%s", all)
	}
	assertNoSecret(t, "stdout", all)
	assertNoSecret(t, "stderr", p.stderr.String())
	assertNoSecretOnDisk(t, home)

	// The stored records say a redaction happened.
	o := runCLI(t, home, "json", "review", "list", "--status", "all", "--palace", "p1")
	facts, _ := o.env.Data["facts"].([]any)
	if len(facts) < 3 {
		t.Fatalf("facts: %s", o.stdout)
	}
	for _, f := range facts {
		m := f.(map[string]any)
		if n, _ := m["redactions"].(float64); n < 1 {
			t.Errorf("fact %v does not record its redaction", m["id"])
		}
	}
}

// TestRedactionCLI gives secrets to every new command, in each format,
// through stored and echoed arguments, transcripts and import files.
func TestRedactionCLI(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	work := t.TempDir()   // exports
	inputs := t.TempDir() // files holding secrets on purpose
	transcript := filepath.Join(inputs, "t.jsonl")
	line := func(role, text string) string {
		b, _ := json.Marshal(map[string]any{"type": role, "uuid": role + "-1", "message": map[string]any{"role": role, "content": text}})
		return string(b) + "\n"
	}
	os.WriteFile(transcript, []byte(line("user", "My deploy token is "+fakeGHP+" and I prefer pnpm.")+line("assistant", "Got "+fakeEMK)), 0o600)
	importFile := filepath.Join(inputs, "in.jsonl")
	os.WriteFile(importFile, []byte(`{"type":"header","format":"loci-palace","version":1,"palace":"x","embedder":"none","dim":0}
{"type":"drawer","drawer":{"id":"imp-1","kind":"note","content":"imported `+fakeAWSKey+`","status":"active"}}
{"type":"footer","drawers":1,"triples":0,"fact_ids":0}
`), 0o600)
	for _, format := range []string{"json", "yaml", "text"} {
		for _, args := range [][]string{
			{"remember", "My AWS key is " + fakeAWSKey, "--kind", "infra", "--palace", "p1"},
			{"review", "approve", "mem-0001", "--palace", "p1"},
			{"remember", "x", "--kind", fakeEMK, "--palace", "p1"},
			{"recall", fakeGHP, "--palace", "p1"},
			{"recall", "--all", "key " + fakeAWSKey, "--palace", "p1"},
			{"recall", "--palace", "p1"},
			{"review", "show", "mem-0001", "--palace", "p1"},
			{"review", "list", "--status", "all", "--palace", "p1"},
			{"review", "show", fakeEMK, "--palace", "p1"},
			{"forget", fakeGHP, "--palace", "p1"},
			{"harvest", transcript, "--palace", "p1", "--min-confidence", "0"},
			{"harvest", transcript, "--palace", "p1", "--dry-run"},
			{"harvest", filepath.Join(work, fakeAWSKey+".jsonl"), "--palace", "p1"},
			{"import", importFile, "--palace", "p1"},
			{"export", "--palace", "p1", "--out", filepath.Join(work, "p1-"+format+".jsonl")},
			{"export", "--palace", "p1", "--out", filepath.Join(work, "p1-"+format+".md"), "--markdown"},
			{"doctor"},
		} {
			o := runCLI(t, home, format, args...)
			assertNoSecret(t, "stdout of loci "+strings.Join(args, " ")+" ("+format+")", o.stdout)
			assertNoSecret(t, "stderr of loci "+strings.Join(args, " ")+" ("+format+")", o.stderr)
		}
	}
	assertNoSecretOnDisk(t, home)
	assertNoSecretOnDisk(t, work) // the exports
	o := runCLI(t, home, "json", "review", "show", "mem-0001", "--palace", "p1")
	fact, _ := o.env.Data["fact"].(map[string]any)
	if n, _ := fact["redactions"].(float64); n != 1 || !strings.Contains(o.stdout, "AKIA[REDACTED]") {
		t.Fatalf("stored fact: %s", o.stdout)
	}
}

// TestRedactionOffStdio checks the paths that do not pass through the
// stdio loop's output redaction (the HTTP transports call mcp-go
// directly): the tool and resource handlers redact on their own.
func TestRedactionOffStdio(t *testing.T) {
	t.Parallel()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	srv, err := server.New(server.Config{Registry: reg, DefaultPalace: "p1", Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msgs := []map[string]any{
		{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18",
			"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}},
		{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "mem_search", "arguments": map[string]any{"query": fakeAWSKey}}},
		{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "remember", "arguments": map[string]any{"fact": "x", "kind": fakeEMK}}},
		{"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": map[string]any{"uri": "mem://search?q=" + fakeGHP}},
		{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": map[string]any{"name": "remember", "arguments": map[string]any{"fact": "my key " + fakeGHP}}},
	}
	var all []string
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		resp, err := json.Marshal(srv.MCP().HandleMessage(ctx, b))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, string(resp))
	}
	joined := strings.Join(all, "\n")
	if !strings.Contains(joined, "AKIA[REDACTED]") || !strings.Contains(joined, "ghp_[REDACTED]") {
		t.Fatalf("responses do not show the masks:\n%s", joined)
	}
	assertNoSecret(t, "mcp-go responses", joined)
}
