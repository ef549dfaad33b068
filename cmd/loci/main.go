// Command loci is a local-first long-term memory server for AI agents.
//
// Its main job is an MCP server over stdio (loci serve --palace NAME); the
// same palaces are reachable through an HTTP companion, this CLI and Claude
// Code hooks. Run "loci help" for the subcommands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	// The time zones' rules, inside the binary: a wall clock without a zone
	// is read in this machine's zone (or $TZ, or `loci import --tz`), and
	// a machine without a zone database (Windows, a slim container) reads
	// a zone's name as any other does.
	_ "time/tzdata"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// command is one subcommand. run returns the process exit code.
type command struct {
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) int
}

// commands maps a subcommand name to its implementation. Each subcommand's
// file registers itself in an init function.
var commands = map[string]command{}

func init() {
	commands["serve"] = command{"run the MCP server over stdio (and the HTTP companion with --http)", runServe}
	commands["palace"] = command{"list, create and inspect palaces", cli(palaceCmd)}
	commands["kg"] = command{"assert, query and show the history of knowledge-graph facts; purge them for good", cli(kgCmd)}
	commands["version"] = command{"print the version", cli(versionCmd)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches a subcommand. The root context is cancelled on SIGINT or
// SIGTERM; a second signal exits at once with code 130.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // restore default handling: a second signal kills the process
		log := newLogger(stderr)
		log.Debug().Msg("signal received: stopping")
	}()

	args = hoistGlobalFlags(args)
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		env := newCLIEnv(stdin, stdout, stderr)
		if f, ok := formatArg(args[1:]); ok && (f == "text" || f == "json" || f == "yaml") {
			env.format = f // even an unknown command answers in the format asked for
		}
		return env.fail(invalidArgs(fmt.Sprintf("unknown command %q", args[0]), "Run `loci help` to list the commands"))
	}
	env := newCLIEnv(stdin, stdout, stderr)
	return cmd.run(ctx, env, args[1:])
}

// globalFlags are the flags every command takes, which may also come
// before the command: `loci --format json palace list`.
var globalFlags = map[string]bool{"format": true, "palace": true, "data-dir": true}

// hoistGlobalFlags moves global flags given before the command name to
// the end of the arguments, where every command (and subcommand) parses
// flags. Anything else before the
// command is left in place (and reported as an unknown command).
func hoistGlobalFlags(args []string) []string {
	var lead []string
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "-h" && args[i] != "--help" {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !globalFlags[name] {
			break
		}
		if hasValue || i+1 >= len(args) {
			lead = append(lead, args[i])
			i++
			continue
		}
		lead = append(lead, args[i], args[i+1])
		i += 2
	}
	if len(lead) == 0 || i >= len(args) {
		return args
	}
	out := append([]string{}, args[i:]...)
	return append(out, lead...)
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "loci %s — local-first long-term memory for AI agents\n\nUsage: loci <command> [flags]\n\nCommands:\n", version)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nRun `loci <command> -h` for a command's flags. Docs: README.md and INTEGRATION.md.\n")
}
