package main

import (
	"context"
	"fmt"
	"io"
	"sort"
)

// benchmark is one `loci bench <name>` load run. Each lives in its own
// file (bench_http.go, ...) and registers itself in benchmarks from an
// init func.
type benchmark struct {
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) (*result, error)
}

// benchmarks maps a name to its benchmark.
var benchmarks = map[string]benchmark{}

func init() {
	commands["bench"] = command{"run a load benchmark: loci bench <name> (loci bench list)", cli(benchCmd)}
}

func benchCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	names := make([]string, 0, len(benchmarks))
	for n := range benchmarks {
		names = append(names, n)
	}
	sort.Strings(names)
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	switch name {
	case "", "list", "-h", "--help", "help":
		list := make([]map[string]string, 0, len(names))
		for _, n := range names {
			list = append(list, map[string]string{"name": n, "summary": benchmarks[n].summary})
		}
		return &result{data: map[string]any{"benchmarks": list}, count: countOf(len(list)), text: func(w io.Writer) {
			fmt.Fprintln(w, "Usage: loci bench <name> [flags]   (loci bench <name> -h for its flags)")
			for _, n := range names {
				fmt.Fprintf(w, "  %-10s %s\n", n, benchmarks[n].summary)
			}
		}}, nil
	}
	b, ok := benchmarks[name]
	if !ok {
		return nil, invalidArgs(fmt.Sprintf("unknown benchmark %q", name), "Run `loci bench list` to see them")
	}
	r, err := b.run(ctx, env, args[1:])
	if err == nil && ctx.Err() != nil {
		// Interrupted (SIGINT): the figures cover only part of the run.
		// Seed 000 says 130; the partial figures ride in the detail.
		ce := &cliError{Type: "cancelled", Message: "interrupted: the benchmark did not finish; its figures are partial",
			Hint: "Run it again without interrupting it, or shorten it (see `loci bench " + name + " -h`)"}
		if r != nil {
			ce.Detail = map[string]any{"partial": r.data}
		}
		return nil, ce
	}
	return r, err
}
