package hostconfig

import (
	"os"
	"os/exec"
	"path/filepath"
)

// hostSigns are where each host leaves a trace on a machine: a config
// directory under the home (or the user config dir) or a command on PATH.
// `loci install` with no host offers the hosts it finds.
var hostSigns = map[string]struct {
	dirs []string // relative to the home directory
	cfg  []string // relative to the user config directory
	xdg  []string // relative to the XDG config directory (xdgConfigDir)
	cmds []string
}{
	"claude-code":    {dirs: []string{".claude"}, cmds: []string{"claude"}},
	"cursor":         {dirs: []string{".cursor"}, cmds: []string{"cursor"}},
	"claude-desktop": {cfg: []string{"Claude"}},
	"codex":          {dirs: []string{".codex"}, cmds: []string{"codex"}},
	"opencode":       {xdg: []string{"opencode"}, cmds: []string{"opencode"}},
	"gemini":         {dirs: []string{".gemini"}, cmds: []string{"gemini"}},
	"windsurf":       {dirs: []string{".codeium/windsurf"}, cmds: []string{"windsurf"}},
	"vscode":         {cfg: []string{"Code"}, cmds: []string{"code"}},
}

// Detect lists the known hosts present on this machine, in
// Hosts order.
func Detect() []string {
	home, _ := os.UserHomeDir()
	cfgDir := userConfigDir()
	var found []string
	for _, h := range Hosts {
		sign := hostSigns[h]
		ok := false
		for _, d := range sign.dirs {
			ok = ok || home != "" && isDir(filepath.Join(home, d))
		}
		for _, d := range sign.cfg {
			ok = ok || cfgDir != "" && isDir(filepath.Join(cfgDir, d))
		}
		for _, d := range sign.xdg {
			ok = ok || home != "" && isDir(filepath.Join(xdgConfigDir(home), d))
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

// xdgConfigDir is $XDG_CONFIG_HOME when absolute, else ~/.config on every
// system: where tools that follow the XDG convention everywhere (OpenCode)
// keep their config, on macOS and Windows too.
func xdgConfigDir(home string) string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(home, ".config")
}

// userConfigDir is the platform's user config directory, where Claude
// Desktop and VS Code keep theirs: $XDG_CONFIG_HOME (when absolute) or
// ~/.config on Linux and the other Unix systems, ~/Library/Application
// Support on macOS and %AppData% on Windows, which read no XDG variable.
func userConfigDir() string {
	if d, err := os.UserConfigDir(); err == nil {
		return d
	}
	home, _ := os.UserHomeDir() // a relative $XDG_CONFIG_HOME is ignored
	return filepath.Join(home, ".config")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
