package hostconfig

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// mcpServerName is the key loci's MCP entry has in every host's config.
const mcpServerName = "loci"

// configTarget is one config file of a host and how loci edits it. An edit gets
// the file's bytes (nil when it does not exist) and returns the new bytes
// (nil to delete the file), what it changed, and notes for the user.
type configTarget struct {
	path      string
	perm      os.FileMode // for a file loci creates
	install   editFunc
	uninstall editFunc
}

type editFunc func(doc []byte) (out []byte, changes, notes []string, err error)

// Hosts lists the hosts `loci install` knows, in the order help shows.
var Hosts = []string{"claude-code", "cursor", "claude-desktop", "codex", "opencode", "gemini", "windsurf", "vscode"}

// hostTargets returns the files loci edits for a host and scope.
func hostTargets(o *Options) ([]configTarget, error) {
	home := o.home
	args := []string{"serve", "--palace", o.palaceArg}
	userPerm := os.FileMode(0o600)
	projPerm := os.FileMode(0o644)
	switch o.Host {
	case "claude-code":
		entry := mcpEntry{Type: "stdio", Command: o.exe, Args: args}
		settings := claudeSettingsEdit(o)
		mcpFile, settingsFile, perm := filepath.Join(o.root, ".mcp.json"), filepath.Join(o.root, ".claude", "settings.json"), projPerm
		if o.Scope == "user" {
			dir, state := filepath.Join(home, ".claude"), filepath.Join(home, ".claude.json")
			if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
				dir, state = d, filepath.Join(d, ".claude.json")
			}
			mcpFile, settingsFile, perm = state, filepath.Join(dir, "settings.json"), userPerm
		}
		targets := []configTarget{{mcpFile, perm, mcpInstall(entry), mcpUninstall(o)}}
		if settings.install != nil {
			targets = append(targets, configTarget{settingsFile, perm, settings.install, settings.uninstall})
		}
		return targets, nil
	case "cursor":
		entry := mcpEntry{Command: o.exe, Args: args}
		path := filepath.Join(home, ".cursor", "mcp.json")
		perm := userPerm
		if o.Scope == "project" {
			path, perm = filepath.Join(o.root, ".cursor", "mcp.json"), projPerm
		}
		return []configTarget{{path, perm, mcpInstall(entry), mcpUninstall(o)}}, nil
	case "claude-desktop":
		if o.Scope == "project" {
			return nil, invalid("Claude Desktop has no project scope", "Use --scope user")
		}
		entry := mcpEntry{Command: o.exe, Args: args}
		return []configTarget{{filepath.Join(userConfigDir(), "Claude", "claude_desktop_config.json"), userPerm, mcpInstall(entry), mcpUninstall(o)}}, nil
	case "codex":
		path := filepath.Join(home, ".codex", "config.toml")
		perm := userPerm
		if d := os.Getenv("CODEX_HOME"); d != "" {
			path = filepath.Join(d, "config.toml")
		}
		if o.Scope == "project" {
			path, perm = filepath.Join(o.root, ".codex", "config.toml"), projPerm
		}
		block := tomlServerBlock(mcpServerName, o.exe, args)
		return []configTarget{{path, perm, codexInstall(block), codexUninstall(o)}}, nil
	case "opencode":
		// opencode.json: mcp.<name> = {type: local, command: [argv...], enabled}.
		path := filepath.Join(xdgConfigDir(home), "opencode", "opencode.json")
		perm := userPerm
		if o.Scope == "project" {
			path, perm = filepath.Join(o.root, "opencode.json"), projPerm
		}
		entry := openCodeEntry{Type: "local", Command: append([]string{o.exe}, args...), Enabled: true}
		return []configTarget{{path, perm, serversInstall("mcp", entry), serversUninstall(o, "mcp")}}, nil
	case "gemini":
		// Gemini CLI's settings.json: mcpServers.<name> = {command, args}.
		path := filepath.Join(home, ".gemini", "settings.json")
		perm := userPerm
		if o.Scope == "project" {
			path, perm = filepath.Join(o.root, ".gemini", "settings.json"), projPerm
		}
		return []configTarget{{path, perm, mcpInstall(mcpEntry{Command: o.exe, Args: args}), mcpUninstall(o)}}, nil
	case "windsurf":
		if o.Scope == "project" {
			return nil, invalid("Windsurf reads MCP servers only from the user's mcp_config.json", "Use --scope user")
		}
		path := filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")
		return []configTarget{{path, userPerm, mcpInstall(mcpEntry{Command: o.exe, Args: args}), mcpUninstall(o)}}, nil
	case "vscode":
		// VS Code's mcp.json names its map "servers" and the transport.
		path := filepath.Join(userConfigDir(), "Code", "User", "mcp.json")
		perm := userPerm
		if o.Scope == "project" {
			path, perm = filepath.Join(o.root, ".vscode", "mcp.json"), projPerm
		}
		entry := mcpEntry{Type: "stdio", Command: o.exe, Args: args}
		return []configTarget{{path, perm, serversInstall("servers", entry), serversUninstall(o, "servers")}}, nil
	}
	return nil, invalid(fmt.Sprintf("unknown host %q", o.Host), "Use one of: "+strings.Join(Hosts, ", "))
}

// claudeSettingsEdit edits Claude Code's settings.json: loci's hooks
// (unless --no-hooks) and, with --allow-tools, a permission rule that
// allows every tool of the loci server. Uninstall removes both. Both
// edits nil: install leaves settings.json alone.
func claudeSettingsEdit(o *Options) hookEdits {
	hooks := claudeHooksEdit(o)
	perms := claudePermissionEdit()
	if o.NoHooks && !o.AllowTools {
		return hookEdits{}
	}
	install := hooks.install
	switch {
	case o.NoHooks:
		install = perms.install
	case o.AllowTools:
		install = chainEdits(hooks.install, perms.install)
	}
	return hookEdits{install, chainEdits(hooks.uninstall, perms.uninstall)}
}

// chainEdits applies a, then b to a's output.
func chainEdits(a, b editFunc) editFunc {
	return func(doc []byte) ([]byte, []string, []string, error) {
		mid, c1, n1, err := a(doc)
		if err != nil {
			return nil, nil, nil, err
		}
		out, c2, n2, err := b(mid)
		if err != nil {
			return nil, nil, nil, err
		}
		return out, append(c1, c2...), append(n1, n2...), nil
	}
}

// claudeToolRule is Claude Code's permission rule for every tool of the
// MCP server named loci.
const claudeToolRule = "mcp__" + mcpServerName

// claudePermissionEdit adds (install) or removes (uninstall) claudeToolRule
// in permissions.allow, leaving every other rule as it is.
func claudePermissionEdit() hookEdits {
	edit := func(remove bool) editFunc {
		return jsonEdit(func(doc *jsonObject) ([]string, []string, error) {
			if _, ok := doc.get("permissions"); !ok && remove {
				return nil, nil, nil
			}
			perms, err := doc.object("permissions")
			if err != nil {
				return nil, nil, err
			}
			var allow []string
			if raw, ok := perms.get("allow"); ok {
				if err := json.Unmarshal(raw, &allow); err != nil {
					return nil, nil, fmt.Errorf("permissions.allow is not an array of strings")
				}
			}
			has := slices.Contains(allow, claudeToolRule)
			switch {
			case remove && has:
				allow = slices.DeleteFunc(allow, func(r string) bool { return r == claudeToolRule })
			case !remove && !has:
				allow = append(allow, claudeToolRule)
			default:
				return nil, nil, nil
			}
			if len(allow) == 0 {
				perms.del("allow")
			} else {
				perms.set("allow", jsonOf(allow))
			}
			if perms.empty() {
				doc.del("permissions")
			} else {
				doc.setObject("permissions", perms)
			}
			verb := "add"
			if remove {
				verb = "remove"
			}
			return []string{verb + " permissions.allow " + claudeToolRule}, nil, nil
		})
	}
	return hookEdits{edit(false), edit(true)}
}

// isLociBinary reports whether cmd runs loci: this very binary, or any
// executable named loci (an older install at another path).
func (o *Options) isLociBinary(cmd string) bool {
	base := strings.TrimSuffix(filepath.Base(cmd), ".exe")
	return cmd == o.exe || base == "loci"
}

// jsonEdit adapts an edit of a parsed JSON object to an editFunc. A
// document left empty by the edit is deleted.
func jsonEdit(edit func(o *jsonObject) (changes, notes []string, err error)) editFunc {
	return func(doc []byte) ([]byte, []string, []string, error) {
		obj, err := parseObject(doc)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("not valid JSON (%v); fix or move the file and run again", err)
		}
		changes, notes, err := edit(obj)
		if err != nil || len(changes) == 0 {
			return doc, nil, notes, err
		}
		if obj.empty() {
			return nil, changes, notes, nil
		}
		return obj.pretty(), changes, notes, nil
	}
}

// mcpEntry is the MCP server entry loci writes (Claude Code's files name
// the transport; Cursor's and Claude Desktop's do not).
type mcpEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// hookEntry is one command hook of Claude Code's settings.
type hookEntry struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

type hookGroup struct {
	Hooks []hookEntry `json:"hooks"`
}

// asMap turns one of loci's entries into a generic JSON object.
func asMap(v any) map[string]any {
	var m map[string]any
	json.Unmarshal(jsonOf(v), &m)
	return m
}

// openCodeEntry is OpenCode's form of a local MCP server: the whole
// command line in one array.
type openCodeEntry struct {
	Type    string   `json:"type"`
	Command []string `json:"command"`
	Enabled bool     `json:"enabled"`
}

// mcpInstall puts entry at mcpServers.loci (the key most hosts use).
func mcpInstall(entry mcpEntry) editFunc { return serversInstall("mcpServers", entry) }

// mcpUninstall removes mcpServers.loci; see serversUninstall.
func mcpUninstall(o *Options) editFunc { return serversUninstall(o, "mcpServers") }

// serversInstall puts entry at <key>.loci, unless an entry with the same
// fields is there already.
func serversInstall(key string, entry any) editFunc {
	want := asMap(entry)
	return jsonEdit(func(o *jsonObject) ([]string, []string, error) {
		servers, err := o.object(key)
		if err != nil {
			return nil, nil, err
		}
		verb := "add"
		if raw, ok := servers.get(mcpServerName); ok {
			var have map[string]any
			if json.Unmarshal(raw, &have) == nil && entryHas(have, want) {
				return nil, nil, nil
			}
			verb = "update"
		}
		servers.setValue(mcpServerName, entry)
		o.setObject(key, servers)
		return []string{verb + " " + key + "." + mcpServerName}, nil, nil
	})
}

// entryHas reports whether have holds every field of want, equal.
func entryHas(have, want map[string]any) bool {
	for k, v := range want {
		hv, ok := have[k]
		if !ok || !sameJSON(jsonOf(hv), jsonOf(v)) {
			return false
		}
	}
	return true
}

// serversUninstall removes <key>.loci when it runs a loci binary, and
// <key> itself when nothing else is left in it.
func serversUninstall(o *Options, key string) editFunc {
	return jsonEdit(func(doc *jsonObject) ([]string, []string, error) {
		if _, ok := doc.get(key); !ok {
			return nil, nil, nil
		}
		servers, err := doc.object(key)
		if err != nil {
			return nil, nil, err
		}
		raw, ok := servers.get(mcpServerName)
		if !ok {
			return nil, nil, nil
		}
		if cmd := entryCommand(raw); !o.isLociBinary(cmd) {
			return nil, []string{fmt.Sprintf("kept %s.%s: it runs %q, not loci", key, mcpServerName, cmd)}, nil
		}
		servers.del(mcpServerName)
		if servers.empty() {
			doc.del(key)
		} else {
			doc.setObject(key, servers)
		}
		return []string{"remove " + key + "." + mcpServerName}, nil, nil
	})
}

// entryCommand is the program an MCP server entry runs: "command" as a
// string, or the first word of OpenCode's command array.
func entryCommand(raw json.RawMessage) string {
	var have struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(raw, &have) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(have.Command, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(have.Command, &argv) == nil && len(argv) > 0 {
		return argv[0]
	}
	return ""
}

// ClaudeHook is one hook loci installs in Claude Code's settings: the
// event, the `loci hook` subcommand that answers it and the timeout
// (seconds) Claude Code enforces; loci's own budgets are shorter (see
// cmd/loci/hook.go).
type ClaudeHook struct {
	Event, Sub string
	Timeout    int
}

// ClaudeHooks are the hooks loci installs, in order.
var ClaudeHooks = []ClaudeHook{
	{"SessionStart", "session-start", 10},
	{"UserPromptSubmit", "prompt-submit", 5},
	{"Stop", "stop", 15},
	{"SessionEnd", "session-end", 15},
}

type hookEdits struct{ install, uninstall editFunc }

// claudeHooksEdit edits the "hooks" object of a Claude Code settings file.
func claudeHooksEdit(o *Options) hookEdits {
	command := func(sub string) string {
		c := shellQuote(o.exe) + " hook " + sub
		if o.Palace != "" {
			c += " --palace " + shellQuote(o.Palace)
		}
		return c
	}
	edit := func(remove bool) editFunc {
		return jsonEdit(func(doc *jsonObject) ([]string, []string, error) {
			if _, ok := doc.get("hooks"); !ok && remove {
				return nil, nil, nil
			}
			hooksObj, err := doc.object("hooks")
			if err != nil {
				return nil, nil, err
			}
			var changes []string
			for _, ev := range ClaudeHooks {
				var groups []json.RawMessage
				if raw, ok := hooksObj.get(ev.Event); ok {
					if err := json.Unmarshal(raw, &groups); err != nil {
						return nil, nil, fmt.Errorf("hooks.%s is not an array", ev.Event)
					}
				}
				entry := hookEntry{Type: "command", Command: command(ev.Sub), Timeout: ev.Timeout}
				kept, ours, exact := splitOurHooks(groups, func(cmd string) bool { return o.isLociHook(cmd, ev.Sub) }, asMap(entry))
				switch {
				case remove && ours == 0, !remove && ours == 1 && exact:
					continue
				case remove:
					changes = append(changes, "remove hooks."+ev.Event)
				case ours > 0:
					changes = append(changes, "update hooks."+ev.Event)
					kept = append(kept, jsonOf(hookGroup{[]hookEntry{entry}}))
				default:
					changes = append(changes, "add hooks."+ev.Event)
					kept = append(kept, jsonOf(hookGroup{[]hookEntry{entry}}))
				}
				if len(kept) == 0 {
					hooksObj.del(ev.Event)
				} else {
					hooksObj.set(ev.Event, jsonOf(kept))
				}
			}
			if len(changes) > 0 {
				if hooksObj.empty() {
					doc.del("hooks")
				} else {
					doc.setObject("hooks", hooksObj)
				}
			}
			return changes, nil, nil
		})
	}
	return hookEdits{edit(false), edit(true)}
}

// splitOurHooks removes loci's hook commands from an event's matcher
// groups (dropping groups left empty) and counts them; exact reports that
// one of them is want exactly.
func splitOurHooks(groups []json.RawMessage, ours func(string) bool, want map[string]any) (kept []json.RawMessage, n int, exact bool) {
	for _, g := range groups {
		obj, err := parseObject(g)
		raw, ok := json.RawMessage(nil), false
		if err == nil {
			raw, ok = obj.get("hooks")
		}
		var list []json.RawMessage
		if !ok || json.Unmarshal(raw, &list) != nil {
			kept = append(kept, g)
			continue
		}
		var rest []json.RawMessage
		for _, h := range list {
			var hk struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(h, &hk) == nil && ours(hk.Command) {
				n++
				var have map[string]any
				if json.Unmarshal(h, &have) == nil && entryHas(have, want) && len(have) == len(want) && len(list) == 1 {
					exact = true
				}
				continue
			}
			rest = append(rest, h)
		}
		switch {
		case len(rest) == len(list):
			kept = append(kept, g)
		case len(rest) > 0:
			obj.set("hooks", jsonOf(rest))
			kept = append(kept, obj.compact())
		}
	}
	return kept, n, exact
}

// isLociHook reports whether a hook command runs `loci hook <sub>`.
func (o *Options) isLociHook(cmd, sub string) bool {
	f := shellFields(cmd)
	return len(f) >= 3 && f[1] == "hook" && f[2] == sub && o.isLociBinary(f[0])
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for the shell a host runs a hook command with, when
// it holds anything but safe characters (quoteFor).
func shellQuote(s string) string { return quoteFor(s, runtime.GOOS) }

// quoteFor quotes s for sh. On Windows a host may run a hook command with
// Git Bash or with cmd.exe, and cmd.exe takes single quotes as part of the
// word, so a path is put in double quotes there, which both shells read
// as written unless it holds one of the characters either expands ($, `,
// %, !), a double quote, a doubled backslash (a UNC path) or a final
// one: those stay in single quotes, for sh alone.
func quoteFor(s, goos string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	if goos == "windows" && !strings.ContainsAny(s, "$`%!\"") && !strings.Contains(s, `\\`) && !strings.HasSuffix(s, `\`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellFields splits a command line at spaces as sh does, honouring single
// and double quotes and backslash escapes (inside double quotes a
// backslash escapes only $, `, " and itself): enough to read back what
// quoteFor wrote.
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// codexInstall writes the [mcp_servers.loci] table of a Codex config.
func codexInstall(block []string) editFunc {
	return func(doc []byte) ([]byte, []string, []string, error) {
		out, changed, err := tomlInstallServer(string(doc), mcpServerName, block)
		if err != nil || !changed {
			return doc, nil, nil, err
		}
		verb := "add"
		if strings.Contains(string(doc), "["+"mcp_servers."+mcpServerName+"]") {
			verb = "update"
		}
		return []byte(out), []string{verb + " [mcp_servers." + mcpServerName + "]"}, nil, nil
	}
}

var tomlCommandRe = regexp.MustCompile(`(?m)^\s*command\s*=\s*"((?:[^"\\]|\\.)*)"`)

// codexUninstall removes [mcp_servers.loci] (and its sub-tables) when it
// runs a loci binary; an emptied file is deleted.
func codexUninstall(o *Options) editFunc {
	return func(doc []byte) ([]byte, []string, []string, error) {
		lines := tomlLines(string(doc))
		for _, s := range scanTOML(lines) {
			if len(s.path) == 2 && s.path[0] == "mcp_servers" && s.path[1] == mcpServerName {
				if m := tomlCommandRe.FindStringSubmatch(strings.Join(lines[s.start:s.end], "\n")); m != nil {
					cmd := strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(m[1])
					if !o.isLociBinary(cmd) {
						return doc, nil, []string{fmt.Sprintf("kept [mcp_servers.%s]: it runs %q, not loci", mcpServerName, cmd)}, nil
					}
				}
			}
		}
		out, changed := tomlRemoveServer(string(doc), mcpServerName)
		if !changed {
			return doc, nil, nil, nil
		}
		if strings.TrimSpace(out) == "" {
			return nil, []string{"remove [mcp_servers." + mcpServerName + "]"}, nil, nil
		}
		return []byte(out), []string{"remove [mcp_servers." + mcpServerName + "]"}, nil, nil
	}
}
