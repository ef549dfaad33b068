package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/loci-mem/loci/cmd/loci/hostconfig"
)

func init() {
	commands["install"] = command{"set loci up in an agent host (" + strings.Join(hostconfig.Hosts, ", ") + ")", cli(installCmd)}
}

// installCmd is `loci install [HOST] [--scope user|project] [--dry-run]`;
// the work is hostconfig's, this is its command line.
func installCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	return runInstall(env, "install", args)
}

func runInstall(env *cliEnv, verb string, args []string) (*result, error) {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	var c commonFlags
	fs.StringVar(&c.format, "format", "auto", "output format: auto, text, json or yaml")
	o := hostconfig.Options{Uninstall: verb == "uninstall"}
	fs.StringVar(&o.Scope, "scope", "user", "user (every project) or project (this repository's config files)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the plan without writing anything")
	fs.StringVar(&o.Palace, "palace", "", "palace the MCP server (and hooks) use (default: auto, the project palace of the directory the host starts in; default for claude-desktop)")
	fs.StringVar(&o.BinDir, "bin-dir", "", "user scope: directory loci's binary is kept in, so host configs survive moving or cleaning the clone (default ~/.local/bin, or wherever `loci` on PATH already is)")
	fs.StringVar(&o.ProjectDir, "project", "", "project directory for --scope project (default: the working directory)")
	if verb == "install" {
		fs.BoolVar(&o.NoHooks, "no-hooks", false, "claude-code: write only the MCP server entry, not the hooks")
		fs.BoolVar(&o.AllowTools, "allow-tools", false, "claude-code: allow loci's tools in Claude Code's permissions, so it does not ask before each call")
	}
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: loci %s [%s] [--scope user|project] [--dry-run] [flags]\n\n", verb, strings.Join(hostconfig.Hosts, "|"))
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
			"Run `loci "+verb+" HOST` once per host: "+strings.Join(hostconfig.Hosts, ", "))
	}
	o.Host = pos[0]
	rep, err := hostconfig.Run(o)
	if err != nil {
		var he *hostconfig.Error
		if errors.As(err, &he) {
			return nil, &cliError{Type: he.Type, Message: he.Message, Hint: he.Hint, Detail: he.Detail}
		}
		return nil, err
	}
	return &result{data: rep, text: func(w io.Writer) { rep.WriteText(w) }}, nil
}

// chooseHost is `loci install` without a host: at a terminal it lists the
// hosts found on this machine and asks which one; elsewhere it fails with
// that list, so a script or agent sees what to pass.
func chooseHost(env *cliEnv, verb string) (string, error) {
	found := hostconfig.Detect()
	hint := "Run `loci " + verb + " HOST`, HOST one of: " + strings.Join(hostconfig.Hosts, ", ")
	if len(found) > 0 {
		hint = "Found on this machine: " + strings.Join(found, ", ") + ". Run `loci " + verb + " " + found[0] + "` (one host per run)"
	}
	fail := &cliError{Type: "invalid_args", Message: verb + " needs a host", Hint: hint,
		Detail: map[string]any{"detected": found, "hosts": hostconfig.Hosts}}
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
