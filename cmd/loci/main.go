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
	"syscall"
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
	commands["kg"] = command{"assert, query and show the history of knowledge-graph facts", cli(kgCmd)}
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
	}()

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
