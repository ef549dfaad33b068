package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/cmd/loci/hostconfig"
)

// The Claude Code plugin at the repository root: .claude-plugin/plugin.json,
// hooks/hooks.json, .mcp.json and commands/*.md. These tests run the hook
// and MCP commands exactly as the files spell them, with
// ${CLAUDE_PLUGIN_ROOT} pointing at the repository and LOCI_BIN at the
// test binary.

var repoRoot = filepath.Join("..", "..")

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func pluginRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestPluginManifest(t *testing.T) {
	t.Parallel()
	var m struct {
		Name        string            `json:"name"`
		Version     string            `json:"version"`
		Description string            `json:"description"`
		Author      map[string]string `json:"author"`
		Homepage    string            `json:"homepage"`
		Repository  string            `json:"repository"`
		Keywords    []string          `json:"keywords"`
	}
	readJSONFile(t, filepath.Join(repoRoot, ".claude-plugin", "plugin.json"), &m)
	if m.Name != "loci" || m.Version == "" || m.Description == "" {
		t.Errorf("plugin.json: %+v", m)
	}
	for _, name := range []string{"help", "search", "ask", "hub", "projects", "review"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, "commands", name+".md"))
		if err != nil {
			t.Errorf("slash command %s: %v", name, err)
			continue
		}
		s := string(b)
		if !strings.HasPrefix(s, "---\ndescription: ") || strings.Count(s, "---\n") < 2 {
			t.Errorf("commands/%s.md has no front matter with a description", name)
		}
	}
}

// hookCommand is what hooks.json asks Claude Code to run.
type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

func TestPluginHooksRun(t *testing.T) {
	t.Parallel()
	var doc struct {
		Hooks map[string][]struct {
			Matcher string        `json:"matcher"`
			Hooks   []hookCommand `json:"hooks"`
		} `json:"hooks"`
	}
	readJSONFile(t, filepath.Join(repoRoot, "hooks", "hooks.json"), &doc)
	root := pluginRoot(t)
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	for _, ev := range hostconfig.ClaudeHooks {
		groups := doc.Hooks[ev.Event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("hooks.%s: %+v", ev.Event, groups)
		}
		h := groups[0].Hooks[0]
		if h.Type != "command" || h.Timeout != ev.Timeout || !strings.Contains(h.Command, "${CLAUDE_PLUGIN_ROOT}/hooks/run-loci") {
			t.Errorf("hooks.%s = %+v", ev.Event, h)
		}
		// Run it the way Claude Code does: through a shell, input on stdin.
		in := `{"session_id":"p","transcript_path":"` + filepath.Join(repo, "none.jsonl") + `","cwd":"` + repo +
			`","hook_event_name":"` + ev.Event + `","prompt":"what did we decide about caching"}`
		cmd := exec.Command("sh", "-c", h.Command)
		cmd.Env = append(os.Environ(), "CLAUDE_PLUGIN_ROOT="+root, "LOCI_BIN="+os.Args[0],
			"LOCI_TEST_MAIN=1", "LOCI_HOME="+t.TempDir())
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.Output()
		if err != nil || !json.Valid(out) || !strings.HasPrefix(string(out), `{"continue":true`) {
			t.Errorf("hooks.%s: %q, %v", ev.Event, out, err)
		}
	}
	if len(doc.Hooks) != len(hostconfig.ClaudeHooks) {
		t.Errorf("hooks.json has %d events, want %d", len(doc.Hooks), len(hostconfig.ClaudeHooks))
	}
}

// TestPluginLauncherWithoutBinary: with no loci anywhere, the hooks still
// answer {"continue":true} and exit 0.
func TestPluginLauncherWithoutBinary(t *testing.T) {
	t.Parallel()
	dir, launcher := pluginWithLauncher(t)
	env := []string{"PATH=/usr/bin:/bin", "LOCI_BIN=" + filepath.Join(dir, "nope")}
	for sub, want := range map[string]string{
		"session-start": `{"continue":true,"systemMessage":"loci binary not found`,
		"prompt-submit": `{"continue":true}`,
	} {
		cmd := exec.Command(launcher, "hook", sub)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(`{"session_id":"x"}`)
		out, err := cmd.Output()
		if err != nil || !json.Valid(out) || !strings.HasPrefix(string(out), want) {
			t.Errorf("hook %s: %q, %v", sub, out, err)
		}
	}
	cmd := exec.Command(launcher, "serve")
	cmd.Env = env
	if err := cmd.Run(); err == nil {
		t.Error("serve without a binary exited 0")
	}
}

// TestPluginLauncherFindsAWindowsBuild: a plugin built on Windows holds
// bin/loci.exe, which the launcher runs (Git Bash runs it there).
func TestPluginLauncherFindsAWindowsBuild(t *testing.T) {
	t.Parallel()
	dir, launcher := pluginWithLauncher(t)
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "loci.exe"), []byte("#!/bin/sh\necho \"loci.exe $*\"\n"), 0o755)
	cmd := exec.Command(launcher, "version")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != "loci.exe version" {
		t.Fatalf("launcher with bin/loci.exe: %q, %v", out, err)
	}
}

// pluginWithLauncher makes a plugin directory holding only the launcher,
// hooks/run-loci, and returns both paths.
func pluginWithLauncher(t *testing.T) (dir, launcher string) {
	t.Helper()
	dir = t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hooks"), 0o755)
	script, err := os.ReadFile(filepath.Join(repoRoot, "hooks", "run-loci"))
	if err != nil {
		t.Fatal(err)
	}
	launcher = filepath.Join(dir, "hooks", "run-loci")
	if err := os.WriteFile(launcher, script, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, launcher
}

// TestPluginMCPServer starts the server .mcp.json describes and completes
// the MCP handshake with it.
func TestPluginMCPServer(t *testing.T) {
	t.Parallel()
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSONFile(t, filepath.Join(repoRoot, ".mcp.json"), &doc)
	srv, ok := doc.MCPServers["loci"]
	if !ok || !strings.HasPrefix(srv.Command, "${CLAUDE_PLUGIN_ROOT}/") {
		t.Fatalf(".mcp.json: %+v", doc)
	}
	root := pluginRoot(t)
	cmd := exec.Command(strings.ReplaceAll(srv.Command, "${CLAUDE_PLUGIN_ROOT}", root), srv.Args...)
	cmd.Dir = t.TempDir() // not a git repository: --palace auto means "default"
	cmd.Env = append(os.Environ(), "LOCI_BIN="+os.Args[0], "LOCI_TEST_MAIN=1", "LOCI_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"palace_info","arguments":{}}}` + "\n"))
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for i := 1; i <= 2; i++ {
		select {
		case l := <-lines:
			if !strings.Contains(l, `"id":`+string(rune('0'+i))) || strings.Contains(l, `"error"`) {
				t.Fatalf("response %d: %s", i, l)
			}
			if i == 2 && !strings.Contains(l, `default`) {
				t.Errorf("--palace auto outside a repository should be the default palace: %s", l)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("no response from the plugin's MCP server")
		}
	}
	stdin.Close()
	cmd.Wait()
}
