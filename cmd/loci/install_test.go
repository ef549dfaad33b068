package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loci-mem/loci/cmd/loci/hostconfig"
	"github.com/loci-mem/loci/palace"
)

// installEnv is a fake home for `loci install`: HOME and the variables that
// move host config dirs all point into a temporary directory.
func installEnv(t *testing.T) (home string, env []string) {
	t.Helper()
	home = t.TempDir()
	return home, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"CODEX_HOME=", "CLAUDE_CONFIG_DIR=", "LOCI_PALACE=", "LOCI_HOME=" + filepath.Join(home, "loci-data"),
		"PATH=" + filepath.Join(home, ".local", "bin") + string(os.PathListSeparator) + os.Getenv("PATH")}
}

type envelope struct {
	OK    bool              `json:"ok"`
	Data  hostconfig.Report `json:"data"`
	Error *cliError         `json:"error"`
}

// runInstallCLI runs `loci args... --format json` and decodes the envelope.
func runInstallCLI(t *testing.T, env []string, wantCode int, args ...string) envelope {
	t.Helper()
	out, stderr, code := runLociOnce(t, t.TempDir(), env, "", append(args, "--format", "json")...)
	if code != wantCode {
		t.Fatalf("loci %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, wantCode, out, stderr)
	}
	var e envelope
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("loci %v: stdout is not one envelope: %q", args, out)
	}
	return e
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// backups lists what install left beside path (nothing, now) and the
// backup it keeps of path in the data dir of installEnv's home.
func backups(t *testing.T, path string) []string {
	t.Helper()
	m, _ := filepath.Glob(path + ".loci-backup-*")
	for dir := filepath.Dir(path); dir != "/" && dir != "."; dir = filepath.Dir(dir) {
		b := filepath.Join(dir, "loci-data", "backups", strings.ReplaceAll(strings.TrimPrefix(filepath.ToSlash(path), "/"), "/", "%"))
		if _, err := os.Stat(b); err == nil {
			m = append(m, b)
		}
	}
	return m
}

// Originals in exactly the layout loci writes (two-space JSON), so a full
// install/uninstall cycle must give them back byte for byte.
const (
	claudeStateOrig = `{
  "numStartups": 42,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ]
    }
  },
  "projects": {
    "/work/x": {
      "allowedTools": []
    }
  }
}
`
	claudeSettingsOrig = `{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./check.sh"
          }
        ]
      }
    ]
  }
}
`
)

func TestInstallClaudeCodeUser(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	state, settings := filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", "settings.json")
	writeTestFile(t, state, claudeStateOrig)
	writeTestFile(t, settings, claudeSettingsOrig)

	dry := runInstallCLI(t, env, 0, "install", "claude-code", "--dry-run")
	if !dry.OK || !dry.Data.Changed || !dry.Data.DryRun || readTestFile(t, state) != claudeStateOrig || len(backups(t, state)) != 0 {
		t.Fatalf("dry run wrote something or planned nothing: %+v", dry)
	}

	e := runInstallCLI(t, env, 0, "install", "claude-code")
	if !e.OK || !e.Data.Changed || len(e.Data.Files) != 2 {
		t.Fatalf("install: %+v", e)
	}
	exe := e.Data.Server[0]
	if !filepath.IsAbs(exe) || !reflect.DeepEqual(e.Data.Server[1:], []string{"serve", "--palace", "auto"}) {
		t.Errorf("server command %v", e.Data.Server)
	}
	for i, f := range e.Data.Files {
		if f.Action != "update" || f.Backup == "" {
			t.Errorf("file %d: %+v", i, f)
		}
	}
	if got := readTestFile(t, e.Data.Files[0].Backup); got != claudeStateOrig {
		t.Errorf("backup of .claude.json differs from the original:\n%s", got)
	}

	var st map[string]any
	json.Unmarshal([]byte(readTestFile(t, state)), &st)
	servers := st["mcpServers"].(map[string]any)
	if servers["github"] == nil || st["numStartups"] != float64(42) || st["projects"] == nil {
		t.Errorf("other keys lost: %v", st)
	}
	want := map[string]any{"type": "stdio", "command": exe, "args": []any{"serve", "--palace", "auto"}}
	if !reflect.DeepEqual(servers["loci"], want) {
		t.Errorf("mcpServers.loci = %v, want %v", servers["loci"], want)
	}
	if keys := topKeys(t, readTestFile(t, state)); !reflect.DeepEqual(keys, []string{"numStartups", "mcpServers", "projects"}) {
		t.Errorf("key order changed: %v", keys)
	}

	var set struct {
		Model string                       `json:"model"`
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	json.Unmarshal([]byte(readTestFile(t, settings)), &set)
	if set.Model != "opus" || len(set.Hooks["PreToolUse"]) != 1 || len(set.Hooks["Stop"]) != 2 {
		t.Errorf("settings lost something: %+v", set)
	}
	for _, ev := range hostconfig.ClaudeHooks {
		groups := set.Hooks[ev.Event]
		last := string(groups[len(groups)-1])
		if !strings.Contains(last, `hook `+ev.Sub+`"`) || !strings.Contains(last, `"timeout":`) {
			t.Errorf("hooks.%s = %s", ev.Event, last)
		}
	}

	// The installed hook command really runs loci's hook.
	stopCmd := strings.Fields(hookCommandIn(t, settings, "SessionStart"))
	input := `{"session_id":"s","transcript_path":"","cwd":"` + home + `","hook_event_name":"SessionStart","source":"startup"}`
	out, _, code := runLociOnce(t, t.TempDir(), env, input, stopCmd[1:]...)
	if code != 0 || !strings.HasPrefix(out, `{"continue":true`) {
		t.Errorf("installed hook command: exit %d, stdout %q", code, out)
	}

	// A second run changes nothing and says so.
	afterState, afterSettings := readTestFile(t, state), readTestFile(t, settings)
	again := runInstallCLI(t, env, 0, "install", "claude-code")
	if again.Data.Changed || !strings.HasPrefix(again.Data.Message, "already installed") {
		t.Errorf("second install: %+v", again.Data)
	}
	if readTestFile(t, state) != afterState || readTestFile(t, settings) != afterSettings || len(backups(t, state)) != 1 {
		t.Error("second install rewrote a file or made a backup")
	}

	// Uninstall gives the originals back exactly.
	un := runInstallCLI(t, env, 0, "uninstall", "claude-code")
	if !un.Data.Changed {
		t.Fatalf("uninstall: %+v", un.Data)
	}
	if got := readTestFile(t, state); got != claudeStateOrig {
		t.Errorf(".claude.json after uninstall:\n%s", got)
	}
	if got := readTestFile(t, settings); got != claudeSettingsOrig {
		t.Errorf("settings.json after uninstall:\n%s", got)
	}
	if again := runInstallCLI(t, env, 0, "uninstall", "claude-code"); again.Data.Changed {
		t.Errorf("second uninstall changed something: %+v", again.Data)
	}
}

func hookCommandIn(t *testing.T, settings, event string) string {
	t.Helper()
	var set struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	json.Unmarshal([]byte(readTestFile(t, settings)), &set)
	groups := set.Hooks[event]
	if len(groups) == 0 || len(groups[len(groups)-1].Hooks) == 0 {
		t.Fatalf("no %s hook in %s", event, settings)
	}
	return groups[len(groups)-1].Hooks[0].Command
}

// topKeys lists a JSON object's keys in the order the document has them.
func topKeys(t *testing.T, doc string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v", err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestInstallFreshHomes installs into homes with no config at all: files
// are created, a second run is a no-op, and uninstall deletes them again.
func TestInstallFreshHomes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ host, file string }{
		{"cursor", ".cursor/mcp.json"},
		{"claude-desktop", ".config/Claude/claude_desktop_config.json"},
		{"codex", ".codex/config.toml"},
		{"claude-code", ".claude.json"},
		{"opencode", ".config/opencode/opencode.json"},
		{"gemini", ".gemini/settings.json"},
		{"windsurf", ".codeium/windsurf/mcp_config.json"},
		{"vscode", ".config/Code/User/mcp.json"},
	} {
		t.Run(c.host, func(t *testing.T) {
			home, env := installEnv(t)
			path := filepath.Join(home, c.file)
			e := runInstallCLI(t, env, 0, "install", c.host)
			if !e.Data.Changed || e.Data.Files[0].Action != "create" || e.Data.Files[0].Backup != "" {
				t.Fatalf("install: %+v", e.Data)
			}
			doc := readTestFile(t, path)
			if !strings.Contains(doc, "serve") || !strings.Contains(doc, e.Data.Server[0]) {
				t.Errorf("%s holds no loci server:\n%s", path, doc)
			}
			wantPalace := "auto"
			if c.host == "claude-desktop" {
				wantPalace = "default"
			}
			if e.Data.Server[3] != wantPalace {
				t.Errorf("palace argument %q, want %q", e.Data.Server[3], wantPalace)
			}
			if again := runInstallCLI(t, env, 0, "install", c.host); again.Data.Changed {
				t.Errorf("second install: %+v", again.Data)
			}
			un := runInstallCLI(t, env, 0, "uninstall", c.host)
			if !un.Data.Changed || un.Data.Files[0].Action != "remove" {
				t.Fatalf("uninstall: %+v", un.Data)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%s still exists after uninstall", path)
			}
		})
	}
}

func TestInstallCodexKeepsTheRest(t *testing.T) {
	t.Parallel()
	codexConfig := readTestFile(t, filepath.Join("hostconfig", "testdata", "codex-config.toml"))
	home, env := installEnv(t)
	path := filepath.Join(home, ".codex", "config.toml")
	writeTestFile(t, path, codexConfig)
	e := runInstallCLI(t, env, 0, "install", "codex")
	if e.Data.Files[0].Action != "update" || readTestFile(t, e.Data.Files[0].Backup) != codexConfig {
		t.Fatalf("install: %+v", e.Data)
	}
	if doc := readTestFile(t, path); !strings.HasPrefix(doc, codexConfig) || !strings.Contains(doc, "[mcp_servers.loci]\ncommand = ") {
		t.Errorf("config after install:\n%s", doc)
	}
	runInstallCLI(t, env, 0, "uninstall", "codex")
	if got := readTestFile(t, path); got != codexConfig {
		t.Errorf("config after uninstall:\n%s", got)
	}
}

func TestInstallProjectScope(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	env = append(env, "PATH="+filepath.Join(home, "bin")) // no loci on PATH, whatever this machine has
	repo := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "src")
	os.MkdirAll(sub, 0o755)
	name, err := palace.ProjectName(repo)
	if err != nil {
		t.Fatal(err)
	}
	// Project files are committed and shared: they name no path and no
	// palace of this machine ("loci" on PATH, the palace picked at run time).
	e := runInstallCLI(t, env, 0, "install", "claude-code", "--scope", "project", "--project", sub)
	if !reflect.DeepEqual(e.Data.Server, []string{"loci", "serve", "--palace", "auto"}) || len(e.Data.Files) != 2 || e.Data.Binary != nil {
		t.Fatalf("install: %+v", e.Data)
	}
	mcp, settings := filepath.Join(repo, ".mcp.json"), filepath.Join(repo, ".claude", "settings.json")
	for _, p := range []string{mcp, settings} {
		if doc := readTestFile(t, p); strings.Contains(doc, name) || strings.Contains(doc, "/") && !strings.Contains(doc, `"loci`) {
			t.Errorf("%s is machine-specific:\n%s", p, doc)
		}
	}
	if !strings.Contains(e.Data.Message, "has none there") { // installEnv's PATH holds no loci
		t.Errorf("project install does not say loci is missing from PATH: %q", e.Data.Message)
	}
	if !strings.Contains(readTestFile(t, mcp), `"command": "loci"`) || !strings.Contains(readTestFile(t, settings), `"loci hook prompt-submit"`) {
		t.Errorf("project files:\n%s\n%s", readTestFile(t, mcp), readTestFile(t, settings))
	}
	runInstallCLI(t, env, 0, "uninstall", "claude-code", "--scope", "project", "--project", repo)
	for _, p := range []string{mcp, settings} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind", p)
		}
	}
}

func TestInstallErrors(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	bad := filepath.Join(home, ".cursor", "mcp.json")
	writeTestFile(t, bad, "{ not json")
	toml := filepath.Join(home, ".codex", "config.toml")
	writeTestFile(t, toml, "mcp_servers.loci.command = \"mine\"\n")
	for _, c := range []struct {
		args []string
		typ  string
		code int
	}{
		{[]string{"install", "emacs"}, "invalid_args", 2},
		{[]string{"install"}, "invalid_args", 2},
		{[]string{"install", "cursor", "--scope", "global"}, "invalid_args", 2},
		{[]string{"install", "claude-desktop", "--scope", "project"}, "invalid_args", 2},
		{[]string{"install", "claude-code", "--scope", "project", "--project", t.TempDir()}, "invalid_args", 2},
		{[]string{"install", "cursor"}, "invalid_args", 2},
		{[]string{"install", "codex"}, "invalid_args", 2},
		{[]string{"install", "cursor", "--palace", "../x"}, "invalid_args", 2},
	} {
		e := runInstallCLI(t, env, c.code, c.args...)
		if e.OK || e.Error == nil || e.Error.Type != c.typ {
			t.Errorf("%v: %+v", c.args, e)
		}
	}
	if readTestFile(t, bad) != "{ not json" || readTestFile(t, toml) != "mcp_servers.loci.command = \"mine\"\n" {
		t.Error("a failed install changed a file")
	}
	if len(backups(t, bad))+len(backups(t, toml)) != 0 {
		t.Error("a failed install left backups")
	}
}

// TestUninstallKeepsForeignEntry: an mcpServers.loci that runs something
// else is not loci's to remove.
func TestUninstallKeepsForeignEntry(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	path := filepath.Join(home, ".cursor", "mcp.json")
	doc := "{\n  \"mcpServers\": {\n    \"loci\": {\n      \"command\": \"/opt/other/server\"\n    }\n  }\n}\n"
	writeTestFile(t, path, doc)
	e := runInstallCLI(t, env, 0, "uninstall", "cursor")
	if e.Data.Changed || len(e.Data.Files[0].Notes) != 1 || readTestFile(t, path) != doc {
		t.Errorf("uninstall touched a foreign entry: %+v", e.Data)
	}
}

// TestInstallFollowsSymlink: a config file that is a symbolic link (dotfiles
// kept in a repository) is edited where it points, and stays a link.
func TestInstallFollowsSymlink(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	real := filepath.Join(home, "dotfiles", "mcp.json")
	writeTestFile(t, real, "{\n  \"mcpServers\": {}\n}\n")
	link := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	runInstallCLI(t, env, 0, "install", "cursor")
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symlink", link)
	}
	if !strings.Contains(readTestFile(t, real), `"loci"`) {
		t.Errorf("the link's target was not edited:\n%s", readTestFile(t, real))
	}
}

// Each new host gets its entry in the shape its documentation gives.
func TestInstallNewHostFormats(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	for _, c := range []struct{ host, file, want string }{
		// OpenCode: mcp.<name>, type local, the command line as one array.
		{"opencode", ".config/opencode/opencode.json", `{"mcp":{"loci":{"type":"local","command":["EXE","serve","--palace","auto"],"enabled":true}}}`},
		// Gemini CLI and Windsurf: mcpServers.<name> with command and args.
		{"gemini", ".gemini/settings.json", `{"mcpServers":{"loci":{"command":"EXE","args":["serve","--palace","auto"]}}}`},
		{"windsurf", ".codeium/windsurf/mcp_config.json", `{"mcpServers":{"loci":{"command":"EXE","args":["serve","--palace","auto"]}}}`},
		// VS Code: servers.<name> with the transport named.
		{"vscode", ".config/Code/User/mcp.json", `{"servers":{"loci":{"type":"stdio","command":"EXE","args":["serve","--palace","auto"]}}}`},
	} {
		e := runInstallCLI(t, env, 0, "install", c.host)
		var got, want any
		json.Unmarshal([]byte(readTestFile(t, filepath.Join(home, c.file))), &got)
		json.Unmarshal([]byte(strings.ReplaceAll(c.want, "EXE", e.Data.Server[0])), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s holds\n%v\nwant\n%v", c.host, c.file, got, want)
		}
	}
	for _, host := range []string{"opencode", "gemini", "vscode"} {
		repo := t.TempDir()
		os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
		if e := runInstallCLI(t, env, 0, "install", host, "--scope", "project", "--project", repo); e.Data.Files[0].Action != "create" {
			t.Errorf("%s project scope: %+v", host, e.Data)
		}
	}
	runInstallCLI(t, env, 2, "install", "windsurf", "--scope", "project", "--project", t.TempDir())
}

// User scope keeps the binary in ~/.local/bin, so host configs outlive
// the clone it was built in; backups go to the data dir, one per file.
func TestInstallStableHomeAndBackups(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	writeTestFile(t, cursor, "{\n  \"mcpServers\": {}\n}\n")
	e := runInstallCLI(t, env, 0, "install", "cursor")
	kept := filepath.Join(home, ".local", "bin", "loci")
	if e.Data.Server[0] != kept || e.Data.Binary == nil || e.Data.Binary.Path != kept {
		t.Fatalf("install: %+v", e.Data)
	}
	if st, err := os.Stat(kept); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("%s: %v", kept, err)
	}
	cmd := exec.Command(kept, "version", "--format", "json")
	cmd.Env = append(os.Environ(), "LOCI_TEST_MAIN=1")
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), `"ok":true`) {
		t.Errorf("the kept binary does not run: %v\n%s", err, out)
	}
	if again := runInstallCLI(t, env, 0, "install", "cursor"); again.Data.Binary != nil || again.Data.Changed {
		t.Errorf("second install copied the binary again: %+v", again.Data)
	}
	// Install and uninstall twice: no backup beside the file, one in the
	// data dir, and the report says where.
	un := runInstallCLI(t, env, 0, "uninstall", "cursor")
	runInstallCLI(t, env, 0, "install", "cursor")
	runInstallCLI(t, env, 0, "uninstall", "cursor")
	if m, _ := filepath.Glob(cursor + ".*"); len(m) != 0 {
		t.Errorf("backups beside the config: %v", m)
	}
	if b := backups(t, cursor); len(b) != 1 || !strings.Contains(un.Data.Message, filepath.Join(home, "loci-data", "backups")) {
		t.Errorf("backups %v; message %q", b, un.Data.Message)
	}
}

// --allow-tools adds Claude Code's permission rule for loci's tools;
// uninstall takes it out again and leaves the other rules.
func TestInstallAllowTools(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	orig := "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test)\"\n    ]\n  }\n}\n"
	writeTestFile(t, settings, orig)
	if e := runInstallCLI(t, env, 0, "install", "claude-code"); !strings.Contains(e.Data.Message, "--allow-tools") {
		t.Errorf("install does not offer --allow-tools: %q", e.Data.Message)
	}
	runInstallCLI(t, env, 0, "install", "claude-code", "--allow-tools")
	var set struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	json.Unmarshal([]byte(readTestFile(t, settings)), &set)
	if !reflect.DeepEqual(set.Permissions.Allow, []string{"Bash(npm test)", "mcp__loci"}) {
		t.Errorf("permissions.allow = %v", set.Permissions.Allow)
	}
	runInstallCLI(t, env, 0, "uninstall", "claude-code")
	if got := readTestFile(t, settings); got != orig {
		t.Errorf("settings after uninstall:\n%s", got)
	}
}

// `loci install` without a host lists the hosts found on this machine
// (in a pipe: an invalid_args error carrying them).
func TestInstallDetectsHosts(t *testing.T) {
	t.Parallel()
	home, env := installEnv(t)
	env = append(env, "PATH="+filepath.Join(home, "bin")) // no host commands
	for _, d := range []string{".cursor", ".gemini", ".config/opencode"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	e := runInstallCLI(t, env, 2, "install")
	detected, _ := e.Error.Detail["detected"].([]any)
	if len(detected) != 3 || detected[0] != "cursor" || !strings.Contains(e.Error.Hint, "loci install cursor") {
		t.Errorf("install without a host: %+v", e.Error)
	}
}
