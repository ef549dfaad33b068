// Package hostconfig sets loci up in agent hosts (Claude Code, Cursor,
// Claude Desktop, Codex, OpenCode, Gemini CLI, Windsurf, VS Code) and takes
// it out again: it edits each host's own configuration files, keeping
// everything else in them byte for byte (JSON key order, TOML comments),
// backs every file up in loci's data dir, keeps the binary somewhere stable
// for user-scope configs, and finds which hosts a machine has. `loci
// install` and `loci uninstall` are its command line (cmd/loci/install.go);
// cmd/loci/claudecode/README.md documents each host's file and format.
package hostconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/loci-mem/loci/palace"
)

// Options is one `loci install` or `loci uninstall` run.
type Options struct {
	Host      string // one of Hosts
	Scope     string // user (default) or project
	Uninstall bool
	DryRun    bool
	NoHooks   bool // claude-code: only the MCP entry
	// AllowTools (claude-code) adds the permission rule for loci's tools.
	AllowTools bool
	// Palace is --palace as given ("" or "auto": chosen at run time).
	Palace string
	// ProjectDir is where project scope finds the repository (default:
	// the working directory).
	ProjectDir string
	// BinDir is where user scope keeps the binary (default ~/.local/bin).
	BinDir string

	palaceArg string // the --palace value the MCP entry passes to serve
	root      string // project root (project scope)
	exe       string // the command host configs run: see stableCommand
	self      string // absolute path of this binary
	binary    *FileChange
	home      string
	backupDir string // one backup per edited file, under the data dir
}

// FileChange reports what loci did (or, in a dry run, would do) to one
// config file.
type FileChange struct {
	Path    string   `json:"path" yaml:"path"`
	Action  string   `json:"action" yaml:"action"` // create, update, remove or unchanged
	Changes []string `json:"changes,omitempty" yaml:"changes,omitempty"`
	Notes   []string `json:"notes,omitempty" yaml:"notes,omitempty"`
	Backup  string   `json:"backup,omitempty" yaml:"backup,omitempty"`

	before []byte
	after  []byte
	exists bool
	mode   fs.FileMode
}

// Report is what a run did (the data of the CLI's envelope).
type Report struct {
	Host    string   `json:"host" yaml:"host"`
	Scope   string   `json:"scope" yaml:"scope"`
	DryRun  bool     `json:"dry_run" yaml:"dry_run"`
	Changed bool     `json:"changed" yaml:"changed"`
	Server  []string `json:"server" yaml:"server"` // the command line the host will run
	// Binary is the copy of loci kept in --bin-dir for user-scope configs,
	// when install made or updated it.
	Binary  *FileChange  `json:"binary,omitempty" yaml:"binary,omitempty"`
	Files   []FileChange `json:"files" yaml:"files"`
	Message string       `json:"message" yaml:"message"`
}

// Run installs (or, with o.Uninstall, removes) loci in o.Host's config
// files. It plans every file first, so a file loci cannot parse fails the
// whole run before anything is written; then (unless o.DryRun) it keeps
// the binary in place, backs each file up and writes it.
func Run(o Options) (*Report, error) {
	if o.Scope == "" {
		o.Scope = "user"
	}
	if o.Scope != "user" && o.Scope != "project" {
		return nil, &Error{Type: "invalid_args", Message: "invalid value for --scope: " + o.Scope,
			Hint: "Use --scope user or --scope project", Detail: map[string]any{"flag": "scope"}}
	}
	verb := "install"
	if o.Uninstall {
		verb = "uninstall"
	}
	if err := o.resolve(verb); err != nil {
		return nil, err
	}
	targets, err := hostTargets(&o)
	if err != nil {
		return nil, err
	}
	rep := &Report{Host: o.Host, Scope: o.Scope, DryRun: o.DryRun,
		Server: []string{o.exe, "serve", "--palace", o.palaceArg}}
	for _, t := range targets {
		fc, err := planEdit(t, o.Uninstall)
		if err != nil {
			return nil, err
		}
		rep.Files = append(rep.Files, fc)
		rep.Changed = rep.Changed || fc.Action != "unchanged"
	}
	if o.binary != nil {
		rep.Binary = o.binary
		rep.Changed = true
	}
	if !o.DryRun {
		if o.binary != nil {
			if err := copyBinary(o.self, o.binary.Path); err != nil {
				return nil, &Error{Type: "io", Message: "install the binary at " + o.binary.Path + ": " + err.Error(),
					Hint: "Pick another directory with --bin-dir"}
			}
		}
		for i, t := range targets {
			if err := applyEdit(&rep.Files[i], t.perm, o.backupDir); err != nil {
				return nil, err
			}
		}
	}
	rep.Message = o.message(verb, rep)
	if o.Scope == "project" && !o.Uninstall {
		if _, err := exec.LookPath("loci"); err != nil {
			rep.Message += ". The project files run `loci` from PATH, and this machine has none there: " +
				"`make install` or `loci install " + o.Host + "` (user scope) puts it in ~/.local/bin"
		}
	}
	return rep, nil
}

// resolve fills in the binary, the home and project directories and the
// palace argument.
func (o *Options) resolve(verb string) error {
	projectDir := o.ProjectDir
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return &Error{Type: "internal", Message: "find the loci binary: " + err.Error()}
	}
	o.self = exe
	if o.home, err = os.UserHomeDir(); err != nil {
		return &Error{Type: "io", Message: "find the home directory: " + err.Error()}
	}
	dataDir, err := palace.DefaultDataDir()
	if err != nil {
		return &Error{Type: "io", Message: err.Error(), Hint: "Set LOCI_HOME"}
	}
	o.backupDir = filepath.Join(dataDir, "backups")
	if o.Palace != "" && o.Palace != "auto" {
		if err := palace.ValidateName(o.Palace); err != nil {
			return err
		}
	}
	o.palaceArg = o.Palace
	if o.palaceArg == "" {
		// auto: each machine and directory maps to its own project palace
		// at run time, so the same config works everywhere.
		o.palaceArg = "auto"
		if o.Host == "claude-desktop" {
			o.palaceArg = "default" // Desktop starts servers outside any project
		}
	}
	if o.Scope == "project" {
		if projectDir == "" {
			if projectDir, err = os.Getwd(); err != nil {
				return &Error{Type: "io", Message: err.Error()}
			}
		}
		if o.root, err = palace.ProjectRoot(projectDir); err != nil {
			if o.Palace == "" || o.Palace == "auto" {
				return invalid(fmt.Sprintf("--scope project needs a git repository: %s is %v", projectDir, err),
					"Run inside the project's repository, pass --project DIR, or name the palace with --palace")
			}
			if o.root, err = filepath.Abs(projectDir); err != nil {
				return &Error{Type: "io", Message: err.Error()}
			}
		}
	}
	return o.stableCommand(verb)
}

// stableCommand picks the command host configs run, one that outlives the
// clone loci was built in (`make clean`, moving it):
//   - project scope writes plain "loci", resolved on each machine's PATH,
//     because project files are committed and shared;
//   - user scope writes the absolute path of `loci` on PATH when that is
//     this binary, else of a copy it keeps in --bin-dir (~/.local/bin).
func (o *Options) stableCommand(verb string) error {
	if o.Scope == "project" {
		o.exe = "loci"
		return nil
	}
	if onPath, err := exec.LookPath("loci"); err == nil && o.BinDir == "" {
		if abs, err := filepath.Abs(onPath); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil && real == o.self {
				o.exe = abs
				return nil
			}
		}
	}
	dir := o.BinDir
	if dir == "" {
		dir = filepath.Join(o.home, ".local", "bin")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return &Error{Type: "io", Message: err.Error()}
	}
	o.exe = filepath.Join(dir, binaryName())
	if verb != "install" {
		return nil
	}
	if real, err := filepath.EvalSymlinks(o.exe); err == nil && (real == o.self || sameFile(real, o.self)) {
		return nil // this binary is already the one kept there
	}
	fc := &FileChange{Path: o.exe, Action: "create", Changes: []string{"copy " + o.self}}
	if _, err := os.Stat(o.exe); err == nil {
		fc.Action = "update"
	}
	if !onPATH(dir) {
		fc.Notes = append(fc.Notes, dir+" is not on your PATH: add it to run `loci` from a shell (host configs use the full path)")
	}
	o.binary = fc
	return nil
}

// binaryName is the name of the kept copy: Windows runs a file by its
// extension, and a host's command "…\\loci" finds only "loci.exe".
func binaryName() string {
	if runtime.GOOS == "windows" {
		return "loci.exe"
	}
	return "loci"
}

// sameFile reports whether two files hold the same bytes.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() {
		return false
	}
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// onPATH reports whether dir is one of $PATH's directories.
func onPATH(dir string) bool {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if a, err := filepath.Abs(d); err == nil && a == dir {
			return true
		}
	}
	return false
}

// copyBinary installs src at dst through a temporary file and a rename, so
// a host running the old binary keeps it until it restarts.
func copyBinary(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".loci.tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// planEdit reads a target file and computes its edit without writing.
func planEdit(t configTarget, uninstall bool) (FileChange, error) {
	fc := FileChange{Path: t.path, Action: "unchanged"}
	b, err := os.ReadFile(t.path)
	switch {
	case err == nil:
		fc.exists, fc.before = true, b
		if st, err := os.Stat(t.path); err == nil {
			fc.mode = st.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return fc, &Error{Type: "io", Message: "read " + t.path + ": " + err.Error()}
	}
	edit := t.install
	if uninstall {
		edit = t.uninstall
	}
	after, changes, notes, err := edit(fc.before)
	if err != nil {
		return fc, &Error{Type: "invalid_args", Message: "cannot edit " + t.path + ": " + err.Error(),
			Hint: "Nothing was changed", Detail: map[string]any{"path": t.path}}
	}
	fc.Changes, fc.Notes, fc.after = changes, notes, after
	switch {
	case len(changes) == 0:
	case after == nil && fc.exists:
		fc.Action = "remove"
	case after == nil:
	case fc.exists:
		fc.Action = "update"
	default:
		fc.Action = "create"
	}
	return fc, nil
}

// applyEdit backs a file up and writes (or removes) it. It refuses when the
// file changed since it was read, so a host writing its config at the
// same moment loses nothing.
func applyEdit(fc *FileChange, perm fs.FileMode, backupDir string) error {
	if fc.Action == "unchanged" {
		return nil
	}
	ioErr := func(op string, err error) error {
		return &Error{Type: "io", Message: op + " " + fc.Path + ": " + err.Error()}
	}
	if fc.exists {
		cur, err := os.ReadFile(fc.Path)
		if err != nil {
			return ioErr("read", err)
		}
		if !bytes.Equal(cur, fc.before) {
			return &Error{Type: "conflict", Message: fc.Path + " changed while loci was editing it",
				Hint: "Close the host application and run again"}
		}
		if fc.Backup, err = backupFile(backupDir, fc.Path, fc.before); err != nil {
			return ioErr("back up", err)
		}
		perm = fc.mode
	}
	if fc.Action == "remove" {
		if err := os.Remove(fc.Path); err != nil {
			return ioErr("remove", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(fc.Path), 0o755); err != nil {
		return ioErr("create the directory of", err)
	}
	target := fc.Path
	if real, err := filepath.EvalSymlinks(fc.Path); err == nil {
		target = real // a config kept in a dotfiles repository stays a link
	}
	if err := writeFileAtomic(target, fc.after, perm); err != nil {
		return ioErr("write", err)
	}
	return nil
}

// backupFile keeps a file's bytes from before loci's last edit of it in
// the data dir, one backup per file (the path flattened into its name),
// out of the user's home and projects.
func backupFile(dir, path string, data []byte) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	name := strings.ReplaceAll(strings.TrimPrefix(filepath.ToSlash(abs), "/"), "/", "%")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	return dst, writeFileAtomic(dst, data, 0o600)
}

// writeFileAtomic writes through a temporary file and a rename.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func (o *Options) message(verb string, rep *Report) string {
	what := fmt.Sprintf("loci in %s (%s scope)", o.Host, o.Scope)
	switch {
	case !rep.Changed && verb == "install":
		return "already installed: nothing to change for " + what
	case !rep.Changed:
		return "not installed: nothing to remove for " + what
	case o.DryRun:
		return "dry run: nothing written; run without --dry-run to " + verb + " " + what
	case verb == "install":
		msg := "installed " + what + "; restart the host to load it"
		if o.Host == "claude-code" && !o.AllowTools {
			msg += ". Claude Code asks before each tool call of a new server: `loci install claude-code --allow-tools` allows loci's"
		}
		return msg + o.backupNote(rep)
	}
	return "uninstalled " + what + "; restart the host to unload it" + o.backupNote(rep)
}

// backupNote says where the backups of edited files are.
func (o *Options) backupNote(rep *Report) string {
	for _, f := range rep.Files {
		if f.Backup != "" {
			return ". Each edited file's previous version is kept in " + o.backupDir
		}
	}
	return ""
}

// WriteText writes the report for a person: one line per file, then the
// message.
func (r *Report) WriteText(w io.Writer) {
	files := r.Files
	if r.Binary != nil {
		files = append([]FileChange{*r.Binary}, files...)
	}
	for _, f := range files {
		line := f.Action + " " + f.Path
		if r.DryRun && f.Action != "unchanged" {
			line = "would " + line
		}
		if len(f.Changes) > 0 {
			line += ": " + strings.Join(f.Changes, ", ")
		}
		if f.Backup != "" {
			line += " (backup " + f.Backup + ")"
		}
		fmt.Fprintln(w, line)
		for _, n := range f.Notes {
			fmt.Fprintln(w, "  note: "+n)
		}
	}
	fmt.Fprintln(w, r.Message)
}

// Error is a failed run, classified in the CLI's error taxonomy (Type is
// invalid_args, io, conflict or internal), with a hint.
type Error struct {
	Type    string
	Message string
	Hint    string
	Detail  map[string]any
}

func (e *Error) Error() string { return e.Message }

func invalid(msg, hint string) *Error { return &Error{Type: "invalid_args", Message: msg, Hint: hint} }
