package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
)

func init() {
	commands["install"] = command{"set loci up in an agent host (claude-code, cursor, claude-desktop, codex, opencode, gemini, windsurf, vscode)", cli(installCmd)}
}

// installOptions is one `loci install` or `loci uninstall` invocation.
type installOptions struct {
	host, scope string
	dryRun      bool
	noHooks     bool
	palaceFlag  string // --palace as given
	palaceArg   string // the --palace value the MCP entry passes to serve
	root        string // project root (project scope)
	exe         string // the command host configs run: see stableCommand
	self        string // absolute path of this binary
	binDir      string // where user scope keeps the binary (--bin-dir)
	binary      *fileChange
	allowTools  bool // claude-code: allow loci's tools in permissions
	home        string
	backupDir   string // one backup per edited file, under the data dir
	now         time.Time
}

// fileChange reports what loci did (or, in a dry run, would do) to one
// config file.
type fileChange struct {
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

// installReport is the data of install's and uninstall's envelopes.
type installReport struct {
	Host    string   `json:"host" yaml:"host"`
	Scope   string   `json:"scope" yaml:"scope"`
	DryRun  bool     `json:"dry_run" yaml:"dry_run"`
	Changed bool     `json:"changed" yaml:"changed"`
	Server  []string `json:"server" yaml:"server"` // the command line the host will run
	// Binary is the copy of loci kept in --bin-dir for user-scope configs,
	// when install made or updated it.
	Binary  *fileChange  `json:"binary,omitempty" yaml:"binary,omitempty"`
	Files   []fileChange `json:"files" yaml:"files"`
	Message string       `json:"message" yaml:"message"`
}

// installCmd is `loci install HOST [--scope user|project] [--dry-run]`.
func installCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	return runInstall(env, "install", args)
}

func runInstall(env *cliEnv, verb string, args []string) (*result, error) {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	var c commonFlags
	fs.StringVar(&c.format, "format", "auto", "output format: auto, text, json or yaml")
	o := &installOptions{}
	fs.StringVar(&o.scope, "scope", "user", "user (every project) or project (this repository's config files)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the plan without writing anything")
	fs.StringVar(&o.palaceFlag, "palace", "", "palace the MCP server (and hooks) use (default: auto, the project palace of the directory the host starts in; default for claude-desktop)")
	fs.StringVar(&o.binDir, "bin-dir", "", "user scope: directory loci's binary is kept in, so host configs survive moving or cleaning the clone (default ~/.local/bin, or wherever `loci` on PATH already is)")
	projectDir := fs.String("project", "", "project directory for --scope project (default: the working directory)")
	if verb == "install" {
		fs.BoolVar(&o.noHooks, "no-hooks", false, "claude-code: write only the MCP server entry, not the hooks")
		fs.BoolVar(&o.allowTools, "allow-tools", false, "claude-code: allow loci's tools in Claude Code's permissions, so it does not ask before each call")
	}
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: loci %s %s [--scope user|project] [--dry-run] [flags]\n\n", verb, strings.Join(installHosts, "|"))
		fs.PrintDefaults()
	}
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) == 0 {
		host, err := chooseHost(env, verb)
		if err != nil {
			return nil, err
		}
		pos = []string{host}
	}
	if len(pos) != 1 {
		return nil, invalidArgs(fmt.Sprintf("%s takes one host, got %d", verb, len(pos)),
			"Run `loci "+verb+" HOST` once per host: "+strings.Join(installHosts, ", "))
	}
	o.host = pos[0]
	if o.scope != "user" && o.scope != "project" {
		return nil, &cliError{Type: "invalid_args", Message: "invalid value for --scope: " + o.scope,
			Hint: "Use --scope user or --scope project", Detail: map[string]any{"flag": "scope"}}
	}
	if err := o.resolve(*projectDir, verb); err != nil {
		return nil, err
	}
	targets, err := hostTargets(o)
	if err != nil {
		return nil, err
	}

	// Plan every file first: a file loci cannot parse fails the whole run
	// before anything is written.
	rep := &installReport{Host: o.host, Scope: o.scope, DryRun: o.dryRun,
		Server: []string{o.exe, "serve", "--palace", o.palaceArg}}
	for _, t := range targets {
		fc, err := planEdit(t, verb == "uninstall")
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
	if !o.dryRun {
		if o.binary != nil {
			if err := copyBinary(o.self, o.binary.Path); err != nil {
				return nil, &cliError{Type: "io", Message: "install the binary at " + o.binary.Path + ": " + err.Error(),
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
	return &result{data: rep, text: func(w io.Writer) { rep.writeText(w) }}, nil
}

// resolve fills in the binary, the home and project directories and the
// palace argument.
func (o *installOptions) resolve(projectDir, verb string) error {
	o.now = time.Now()
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return &cliError{Type: "internal", Message: "find the loci binary: " + err.Error()}
	}
	o.self = exe
	if o.home, err = os.UserHomeDir(); err != nil {
		return &cliError{Type: "io", Message: "find the home directory: " + err.Error()}
	}
	dataDir, err := palace.DefaultDataDir()
	if err != nil {
		return &cliError{Type: "io", Message: err.Error(), Hint: "Set LOCI_HOME"}
	}
	o.backupDir = filepath.Join(dataDir, "backups")
	if o.palaceFlag != "" && o.palaceFlag != "auto" {
		if err := palace.ValidateName(o.palaceFlag); err != nil {
			return err
		}
	}
	o.palaceArg = o.palaceFlag
	if o.palaceArg == "" {
		// auto: each machine and directory maps to its own project palace
		// at run time, so the same config works everywhere.
		o.palaceArg = "auto"
		if o.host == "claude-desktop" {
			o.palaceArg = "default" // Desktop starts servers outside any project
		}
	}
	if o.scope == "project" {
		if projectDir == "" {
			if projectDir, err = os.Getwd(); err != nil {
				return &cliError{Type: "io", Message: err.Error()}
			}
		}
		if o.root, err = palace.ProjectRoot(projectDir); err != nil {
			if o.palaceFlag == "" || o.palaceFlag == "auto" {
				return invalidArgs(fmt.Sprintf("--scope project needs a git repository: %s is %v", projectDir, err),
					"Run inside the project's repository, pass --project DIR, or name the palace with --palace")
			}
			if o.root, err = filepath.Abs(projectDir); err != nil {
				return &cliError{Type: "io", Message: err.Error()}
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
func (o *installOptions) stableCommand(verb string) error {
	if o.scope == "project" {
		o.exe = "loci"
		return nil
	}
	if onPath, err := exec.LookPath("loci"); err == nil && o.binDir == "" {
		if abs, err := filepath.Abs(onPath); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil && real == o.self {
				o.exe = abs
				return nil
			}
		}
	}
	dir := o.binDir
	if dir == "" {
		dir = filepath.Join(o.home, ".local", "bin")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return &cliError{Type: "io", Message: err.Error()}
	}
	o.exe = filepath.Join(dir, "loci")
	if verb != "install" {
		return nil
	}
	if real, err := filepath.EvalSymlinks(o.exe); err == nil && (real == o.self || sameFile(real, o.self)) {
		return nil // this binary is already the one kept there
	}
	fc := &fileChange{Path: o.exe, Action: "create", Changes: []string{"copy " + o.self}}
	if _, err := os.Stat(o.exe); err == nil {
		fc.Action = "update"
	}
	if !onPATH(dir) {
		fc.Notes = append(fc.Notes, dir+" is not on your PATH: add it to run `loci` from a shell (host configs use the full path)")
	}
	o.binary = fc
	return nil
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
func planEdit(t configTarget, uninstall bool) (fileChange, error) {
	fc := fileChange{Path: t.path, Action: "unchanged"}
	b, err := os.ReadFile(t.path)
	switch {
	case err == nil:
		fc.exists, fc.before = true, b
		if st, err := os.Stat(t.path); err == nil {
			fc.mode = st.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return fc, &cliError{Type: "io", Message: "read " + t.path + ": " + err.Error()}
	}
	edit := t.install
	if uninstall {
		edit = t.uninstall
	}
	after, changes, notes, err := edit(fc.before)
	if err != nil {
		return fc, &cliError{Type: "invalid_args", Message: "cannot edit " + t.path + ": " + err.Error(),
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
func applyEdit(fc *fileChange, perm fs.FileMode, backupDir string) error {
	if fc.Action == "unchanged" {
		return nil
	}
	ioErr := func(op string, err error) error {
		return &cliError{Type: "io", Message: op + " " + fc.Path + ": " + err.Error()}
	}
	if fc.exists {
		cur, err := os.ReadFile(fc.Path)
		if err != nil {
			return ioErr("read", err)
		}
		if !bytes.Equal(cur, fc.before) {
			return &cliError{Type: "conflict", Message: fc.Path + " changed while loci was editing it",
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

func (o *installOptions) message(verb string, rep *installReport) string {
	what := fmt.Sprintf("loci in %s (%s scope)", o.host, o.scope)
	switch {
	case !rep.Changed && verb == "install":
		return "already installed: nothing to change for " + what
	case !rep.Changed:
		return "not installed: nothing to remove for " + what
	case o.dryRun:
		return "dry run: nothing written; run without --dry-run to " + verb + " " + what
	case verb == "install":
		msg := "installed " + what + "; restart the host to load it"
		if o.host == "claude-code" && !o.allowTools {
			msg += ". Claude Code asks before each tool call of a new server: `loci install claude-code --allow-tools` allows loci's"
		}
		return msg + o.backupNote(rep)
	}
	return "uninstalled " + what + "; restart the host to unload it" + o.backupNote(rep)
}

// backupNote says where the backups of edited files are.
func (o *installOptions) backupNote(rep *installReport) string {
	for _, f := range rep.Files {
		if f.Backup != "" {
			return ". Each edited file's previous version is kept in " + o.backupDir
		}
	}
	return ""
}

func (r *installReport) writeText(w io.Writer) {
	files := r.Files
	if r.Binary != nil {
		files = append([]fileChange{*r.Binary}, files...)
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
