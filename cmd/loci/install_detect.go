package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// hostSigns are where each host leaves a trace on a machine: a config
// directory under the home (or the user config dir) or a command on PATH.
// `loci install` with no host offers the hosts it finds.
var hostSigns = map[string]struct {
	dirs []string // relative to the home directory
	cfg  []string // relative to the user config directory
	cmds []string
}{
	"claude-code":    {dirs: []string{".claude"}, cmds: []string{"claude"}},
	"cursor":         {dirs: []string{".cursor"}, cmds: []string{"cursor"}},
	"claude-desktop": {cfg: []string{"Claude"}},
	"codex":          {dirs: []string{".codex"}, cmds: []string{"codex"}},
	"opencode":       {cfg: []string{"opencode"}, cmds: []string{"opencode"}},
	"gemini":         {dirs: []string{".gemini"}, cmds: []string{"gemini"}},
	"windsurf":       {dirs: []string{".codeium/windsurf"}, cmds: []string{"windsurf"}},
	"vscode":         {cfg: []string{"Code"}, cmds: []string{"code"}},
}

// detectHosts lists the known hosts present on this machine, in
// installHosts order.
func detectHosts() []string {
	home, _ := os.UserHomeDir()
	cfgDir := userConfigDir()
	var found []string
	for _, h := range installHosts {
		sign := hostSigns[h]
		ok := false
		for _, d := range sign.dirs {
			ok = ok || home != "" && isDir(filepath.Join(home, d))
		}
		for _, d := range sign.cfg {
			ok = ok || cfgDir != "" && isDir(filepath.Join(cfgDir, d))
		}
		for _, c := range sign.cmds {
			if _, err := exec.LookPath(c); err == nil {
				ok = true
			}
		}
		if ok {
			found = append(found, h)
		}
	}
	return found
}

// userConfigDir is $XDG_CONFIG_HOME when absolute, else the platform's.
func userConfigDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	d, _ := os.UserConfigDir()
	return d
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// chooseHost is `loci install` without a host: at a terminal it lists the
// hosts found on this machine and asks which one; elsewhere it fails with
// that list, so a script or agent sees what to pass.
func chooseHost(env *cliEnv, verb string) (string, error) {
	found := detectHosts()
	hint := "Run `loci " + verb + " HOST`, HOST one of: " + strings.Join(installHosts, ", ")
	if len(found) > 0 {
		hint = "Found on this machine: " + strings.Join(found, ", ") + ". Run `loci " + verb + " " + found[0] + "` (one host per run)"
	}
	fail := &cliError{Type: "invalid_args", Message: verb + " needs a host", Hint: hint,
		Detail: map[string]any{"detected": found, "hosts": installHosts}}
	if !isTerminal(env.stdin) || !isTerminal(env.stderr) || len(found) == 0 {
		return "", fail
	}
	fmt.Fprintf(env.stderr, "loci %s: hosts found on this machine:\n", verb)
	for i, h := range found {
		fmt.Fprintf(env.stderr, "  %d) %s\n", i+1, h)
	}
	fmt.Fprintf(env.stderr, "Which one? [1-%d, or a name; empty to cancel] ", len(found))
	line, _ := bufio.NewReader(env.stdin).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "" {
		return "", &cliError{Type: "cancelled", Message: "no host chosen; nothing was changed", Hint: hint}
	}
	if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(found) {
		return found[n-1], nil
	}
	return line, nil // a name: checked like any host argument
}
