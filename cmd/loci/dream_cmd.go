package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace/dreamlog"
)

func init() {
	commands["dream"] = command{"run the dreamer's consolidation passes now; undo a run; list runs", cli(dreamCmd)}
}

// passList is a repeatable --pass flag that also takes comma lists.
type passList []string

func (p *passList) String() string { return strings.Join(*p, ",") }
func (p *passList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*p = append(*p, s)
		}
	}
	return nil
}

// dreamCmd is
//
//	loci dream [--palace P] [--dry-run] [--pass NAME]... [--budget D] [--wait D]
//	loci dream undo [RUN] [--palace P] [--wait D]
//	loci dream runs [--palace P] [--limit N]
//	loci dream show RUN [--palace P]
func dreamCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("dream", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	dry := fs.Bool("dry-run", false, "plan every pass and report what would change; change nothing")
	var names passList
	fs.Var(&names, "pass", "run only this pass (repeatable, or comma-separated): "+strings.Join(dreamer.PassNames(), ", "))
	budget := fs.Duration("budget", 0, "time budget of the run (default $LOCI_DREAM_BUDGET or 60s)")
	wait := fs.Duration("wait", 0, "wait this long for another process's dreamer lock instead of failing")
	limit := fs.Int("limit", 20, "runs to list (dream runs)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	sub := ""
	if len(pos) > 0 {
		sub, pos = pos[0], pos[1:]
	}
	switch sub {
	case "", "run":
		if len(pos) > 0 {
			return nil, invalidArgs("unexpected argument "+pos[0], "Use `loci dream [--pass NAME] [--dry-run]`")
		}
	case "undo", "show":
		if len(pos) > 1 {
			return nil, invalidArgs("unexpected argument "+pos[1], "Use `loci dream "+sub+" [RUN]`")
		}
		if sub == "show" && len(pos) == 0 {
			return nil, invalidArgs("missing run id", "Use `loci dream runs` to list the runs, then `loci dream show RUN`")
		}
	case "runs":
		if *limit < 1 || *limit > 1000 {
			return nil, invalidArgs(fmt.Sprintf("--limit must be between 1 and 1000, got %d", *limit), "")
		}
	default:
		return nil, invalidArgs("unknown subcommand dream "+sub, "Use `loci dream`, `loci dream undo [RUN]`, `loci dream runs` or `loci dream show RUN`")
	}
	if *budget < 0 || *wait < 0 {
		return nil, invalidArgs("--budget and --wait must not be negative", "")
	}
	log := newLogger(env.stderr)
	cfg, err := dreamerConfig(log)
	if err != nil {
		return nil, invalidArgs(err.Error(), "See dreamer/README.md for the LOCI_DREAM* variables")
	}
	name, err := resolvePalace(c.palace)
	if err != nil {
		return nil, err
	}
	reg, err := openRegistry(c.homeFlags, log, nil)
	if err != nil {
		return nil, &cliError{Type: "io", Message: err.Error()}
	}
	defer reg.Close()
	p, err := reg.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	opts := dreamer.RunOptions{Settings: cfg.Settings, Passes: names, DryRun: *dry, Trigger: "cli", Wait: *wait, Logger: log}
	if *budget > 0 {
		opts.Budget = *budget
	}

	switch sub {
	case "undo":
		id := ""
		if len(pos) > 0 {
			id = pos[0]
		}
		rep, err := dreamer.Undo(ctx, p, id, opts)
		if err != nil {
			return nil, dreamError(err)
		}
		return &result{data: rep, text: func(w io.Writer) {
			fmt.Fprintf(w, "undid dream run %s: %d change(s) restored, %d skipped\n", rep.RunID, rep.Restored, len(rep.Skipped))
			for _, s := range rep.Skipped {
				fmt.Fprintf(w, "  skipped %s %s: %s\n", s.Op, s.DrawerID, s.Reason)
			}
		}}, nil
	case "runs":
		runs, err := dreamlog.Of(p).Runs(ctx, *limit)
		if err != nil {
			return nil, err
		}
		for i := range runs {
			runs[i].Report = nil
		}
		return &result{data: map[string]any{"palace": p.Name(), "runs": runs}, count: countOf(len(runs)),
			text: func(w io.Writer) {
				for _, r := range runs {
					undone := ""
					if !r.UndoneAt.IsZero() {
						undone = " (undone)"
					}
					fmt.Fprintf(w, "%s  %-9s %-8s %4d change(s)  %s%s\n", r.ID, r.Status, r.Trigger, r.Changes,
						strings.Join(r.Passes, ","), undone)
				}
			}}, nil
	case "show":
		run, err := dreamlog.Of(p).Run(ctx, pos[0])
		if err != nil {
			return nil, err
		}
		changes, err := dreamlog.Of(p).Changes(ctx, run.ID)
		if err != nil {
			return nil, err
		}
		return &result{data: map[string]any{"run": run, "changes": changes}, count: countOf(len(changes)),
			text: func(w io.Writer) {
				fmt.Fprintf(w, "%s  %s  %d change(s)\n", run.ID, run.Status, len(changes))
				for _, ch := range changes {
					fmt.Fprintf(w, "  %-7s %-10s %s %v -> %v\n", ch.Pass, ch.Op, ch.DrawerID, ch.Before, ch.After)
				}
			}}, nil
	}

	bar := newProgress(env, "dream", "passes")
	opts.OnPass = func(name string, done, total int) { bar.Set(done, total, name) }
	rep, err := dreamer.Run(ctx, p, opts)
	bar.Done()
	if err != nil {
		return nil, dreamError(err)
	}
	if rep.Status == dreamlog.Cancelled {
		return nil, &cliError{Type: "cancelled", Message: "dream run cancelled; the pass in progress committed nothing",
			Detail: map[string]any{"report": rep}}
	}
	if rep.Status == dreamlog.Failed {
		return nil, &cliError{Type: "internal", Message: "a dream pass failed: " + failedNotes(rep),
			Detail: map[string]any{"report": rep}}
	}
	return &result{data: rep, text: func(w io.Writer) { printDream(w, rep) }}, nil
}

// dreamError classifies the dreamer's own errors for the CLI envelope.
func dreamError(err error) error {
	var busy *dreamer.BusyError
	if errors.As(err, &busy) {
		return &cliError{Type: "conflict", Message: busy.Error(), Hint: "Wait for it, or pass --wait 2m",
			Detail: map[string]any{"holder": busy.Holder.Owner, "expires_at": busy.Holder.ExpiresAt}}
	}
	return err
}

func failedNotes(rep *dreamer.Report) string {
	var out []string
	for _, p := range rep.Passes {
		if p.Status == dreamer.PassFailed {
			out = append(out, p.Name+": "+p.Note)
		}
	}
	return strings.Join(out, "; ")
}

func printDream(w io.Writer, rep *dreamer.Report) {
	what := "dream run " + rep.RunID
	if rep.DryRun {
		what = "dry run (nothing changed)"
	}
	fmt.Fprintf(w, "%s on palace %s: %s in %v, %d drawer change(s)\n", what, rep.Palace, rep.Status,
		rep.FinishedAt.Sub(rep.StartedAt).Round(time.Millisecond), rep.Changes)
	for _, p := range rep.Passes {
		fmt.Fprintf(w, "  %-8s %-9s %s\n", p.Name, p.Status, passLine(p))
	}
	var statuses []string
	for s := range rep.After.ByStatus {
		statuses = append(statuses, s)
	}
	for s := range rep.Before.ByStatus {
		if _, ok := rep.After.ByStatus[s]; !ok {
			statuses = append(statuses, s)
		}
	}
	sort.Strings(statuses)
	for _, s := range statuses {
		fmt.Fprintf(w, "  drawers %-10s %d -> %d\n", s, rep.Before.ByStatus[s], rep.After.ByStatus[s])
	}
}

func passLine(p dreamer.PassReport) string {
	var s string
	switch {
	case p.Index != nil:
		s = fmt.Sprintf("re-embedded %d, rebuilt %v, %d vectors", p.Index.Reembedded, p.Index.Rebuilt, p.Index.Vectors)
	case p.Decay != nil:
		s = fmt.Sprintf("%d decayed, %d restored, %d pinned exempt", p.Decay.Decayed, p.Decay.Restored, p.Decay.Pinned)
	case p.KG != nil:
		s = fmt.Sprintf("%d duplicate triple(s) merged, %d churning subject(s)", p.KG.Merged, len(p.KG.Churn))
	case p.Name == "dedup":
		s = fmt.Sprintf("%d drawer(s) examined, %d near-duplicate(s) linked", p.Examined, len(p.Merges)+p.Omitted)
	case p.Name == "stale":
		s = fmt.Sprintf("%d fact(s) went stale", len(p.Stale)+p.Omitted)
	case p.Name == "closets":
		s = fmt.Sprintf("%d room(s), %d changed", len(p.Closets), p.Changed)
	case p.Name == "skills":
		s = fmt.Sprintf("%d skill(s) created or updated", len(p.Skills)+p.Omitted)
	}
	if p.Note != "" {
		s += " — " + p.Note
	}
	return s
}
