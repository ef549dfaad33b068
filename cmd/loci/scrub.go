package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

func init() {
	commands["scrub"] = command{"redact a palace again with the current rules: secrets stored before a rule caught them leave it", cli(scrubCmd)}
}

// scrubCmd is `loci scrub [--palace P] [--dry-run]`: every stored text of
// the palace goes through the redactor again (palace.Rescrub), so that a
// secret an older release let through is redacted at rest too; the
// derived indexes forget it and the store's space is reclaimed. Progress
// goes to stderr.
func scrubCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("scrub", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	dry := fs.Bool("dry-run", false, "count what would change, and change nothing")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, invalidArgs("unexpected argument "+pos[0], "Use `loci scrub [--palace NAME] [--dry-run]`")
	}
	p, _, done, err := cliPalace(ctx, env, c, false)
	if err != nil {
		return nil, err
	}
	defer done()
	start := time.Now()
	bar := newProgress(env, "scrub", "drawers")
	out, err := p.Rescrub(ctx, *dry, func(n, total, changed int) {
		bar.Set(n, total, fmt.Sprintf("%d changed", changed))
	})
	bar.Done()
	if err != nil {
		return nil, err
	}
	rows := map[string]int{}
	for _, set := range store.TextSets {
		rows[string(set)] = out.Rows[set]
	}
	other := out.RowsChanged()
	data := map[string]any{"palace": p.Name(), "dry_run": out.DryRun, "drawers": out.Drawers,
		"drawers_changed": out.Changed, "rows_changed": rows, "reclaimed": out.Reclaimed,
		"took_ms": time.Since(start).Milliseconds()}
	notes := erasureNotes(p, data)
	return &result{data: data, text: func(w io.Writer) {
		verb := "redacted"
		if out.DryRun {
			verb = "would redact"
		}
		fmt.Fprintf(w, "%s %d of %d drawer(s) and %d other row(s) of palace %s in %v\n", verb, out.Changed,
			out.Drawers, other, p.Name(), time.Since(start).Round(time.Millisecond))
		for _, set := range store.TextSets {
			if n := out.Rows[set]; n > 0 {
				fmt.Fprintf(w, "  %-15s %d\n", set, n)
			}
		}
		if !out.DryRun && out.Changed+other > 0 {
			notes(w, out.Reclaimed)
		}
	}}, nil
}
