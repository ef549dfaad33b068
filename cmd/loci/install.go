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
	"path/filepath"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
)

func init() {
	commands["install"] = command{"set loci up in claude-code, cursor, claude-desktop or codex (MCP server, and hooks where the host has them)", cli(installCmd)}
}

// installOptions is one `loci install` or `loci uninstall` invocation.
type installOptions struct {
	host, scope string
	dryRun      bool
	noHooks     bool
	palaceFlag  string // --palace as given
	palaceArg   string // the --palace value the MCP entry passes to serve
	root        string // project root (project scope)
	exe         string // absolute path of this binary
	home        string
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
	Host    string       `json:"host" yaml:"host"`
	Scope   string       `json:"scope" yaml:"scope"`
	DryRun  bool         `json:"dry_run" yaml:"dry_run"`
	Changed bool         `json:"changed" yaml:"changed"`
	Server  []string     `json:"server" yaml:"server"` // the command line the host will run
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
	fs.StringVar(&o.palaceFlag, "palace", "", "palace the MCP server (and hooks) use (default: auto for user scope, the project's palace for project scope)")
	projectDir := fs.String("project", "", "project directory for --scope project (default: the working directory)")
	if verb == "install" {
		fs.BoolVar(&o.noHooks, "no-hooks", false, "claude-code: write only the MCP server entry, not the hooks")
	}
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: loci %s %s [--scope user|project] [--dry-run] [flags]\n\n", verb, strings.Join(installHosts, "|"))
		fs.PrintDefaults()
	}
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, invalidArgs(fmt.Sprintf("%s needs exactly one host, got %d", verb, len(pos)),
			"Run `loci "+verb+" "+strings.Join(installHosts, "|")+"`")
	}
	o.host = pos[0]
	if o.scope != "user" && o.scope != "project" {
		return nil, &cliError{Type: "invalid_args", Message: "invalid value for --scope: " + o.scope,
			Hint: "Use --scope user or --scope project", Detail: map[string]any{"flag": "scope"}}
	}
	if err := o.resolve(*projectDir); err != nil {
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
	if !o.dryRun {
		for i := range rep.Files {
			if err := applyEdit(&rep.Files[i], targets[i].perm, o.now); err != nil {
				return nil, err
			}
		}
	}
	rep.Message = o.message(verb, rep)
	return &result{data: rep, text: func(w io.Writer) { rep.writeText(w) }}, nil
}

// resolve fills in the binary, the home and project directories and the
// palace argument.
func (o *installOptions) resolve(projectDir string) error {
	o.now = time.Now()
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return &cliError{Type: "internal", Message: "find the loci binary: " + err.Error()}
	}
	o.exe = exe
	if o.home, err = os.UserHomeDir(); err != nil {
		return &cliError{Type: "io", Message: "find the home directory: " + err.Error()}
	}
	if o.palaceFlag != "" && o.palaceFlag != "auto" {
		if err := palace.ValidateName(o.palaceFlag); err != nil {
			return err
		}
	}
	o.palaceArg = o.palaceFlag
	if o.scope == "user" {
		if o.palaceArg == "" {
			o.palaceArg = "auto"
			if o.host == "claude-desktop" {
				o.palaceArg = "default" // Desktop starts servers outside any project
			}
		}
		return nil
	}
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
	if o.palaceArg == "" || o.palaceArg == "auto" {
		o.palaceArg = autoPalace(o.root)
	}
	return nil
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
func applyEdit(fc *fileChange, perm fs.FileMode, now time.Time) error {
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
		if fc.Backup, err = backupFile(fc.Path, fc.before, fc.mode, now); err != nil {
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

// backupFile copies a file's old bytes to <path>.loci-backup-<UTC time>.
func backupFile(path string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := path + ".loci-backup-" + now.UTC().Format("20060102T150405Z")
	name := base
	for i := 1; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			name = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return "", err
		}
		return name, f.Close()
	}
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
		return "installed " + what + "; restart the host to load it"
	}
	return "uninstalled " + what + "; restart the host to unload it"
}

func (r *installReport) writeText(w io.Writer) {
	for _, f := range r.Files {
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
