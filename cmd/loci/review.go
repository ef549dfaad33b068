package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

func init() {
	commands["review"] = command{"review staged facts: list, show, approve, reject, forget, undo", cli(reviewCmd)}
}

const reviewUsage = "Use `loci review list|show ID|approve ID...|reject ID...|forget ID...|undo TOKEN`"

// reviewCmd is the review queue:
//
//	loci review list [--status pending|active|stale|rejected|superseded|deleted|all] [--kind K] [--limit N]
//	loci review show ID
//	loci review approve ID...   promote (supersedes a conflicting promoted fact)
//	loci review reject ID...    prints undo tokens
//	loci review forget ID...    prints undo tokens
//	loci review undo TOKEN
func reviewCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	// Bare `loci review` (flags allowed) lists the queue, as people expect.
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("review "+sub, flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	status := fs.String("status", palace.StatusPending, "list: status to show, or all")
	kind := fs.String("kind", "", "list: only this kind of fact")
	limit := fs.Int("limit", 100, "list: at most this many (1-10000)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	switch sub {
	case "list":
		if len(pos) > 0 {
			return nil, invalidArgs("review list takes no arguments", "Filter with --status and --kind")
		}
	case "show", "undo":
		if len(pos) != 1 {
			return nil, invalidArgs("review "+sub+" needs exactly one argument", reviewUsage)
		}
	case facts.ActionApprove, facts.ActionReject, facts.ActionForget:
		if len(pos) == 0 {
			return nil, invalidArgs("review "+sub+" needs at least one fact id", "Use `loci review list` to see the queue")
		}
	default:
		return nil, invalidArgs("unknown subcommand review "+sub, reviewUsage)
	}
	q := facts.Query{Limit: *limit}
	if sub == "list" {
		if *limit < 1 || *limit > 10000 {
			return nil, &cliError{Type: "invalid_args", Message: fmt.Sprintf("--limit must be between 1 and 10000, got %d", *limit),
				Detail: map[string]any{"flag": "limit"}}
		}
		switch *status {
		case "all":
			q.Statuses = palace.AnyStatus
		case palace.StatusPending, palace.StatusActive, palace.StatusStale, palace.StatusRejected, palace.StatusSuperseded, palace.StatusDeleted:
			q.Statuses = []string{*status}
		default:
			return nil, &cliError{Type: "invalid_args", Message: "unknown --status " + *status,
				Hint: "Use --status pending|active|stale|rejected|superseded|deleted|all", Detail: map[string]any{"flag": "status"}}
		}
		if *kind != "" {
			k, err := facts.CheckKind(*kind)
			if err != nil {
				return nil, &cliError{Type: "invalid_args", Message: err.Error(), Detail: map[string]any{"flag": "kind"}}
			}
			q.Kinds = []string{k}
		}
	}
	p, _, done, err := cliPalace(ctx, env, c, false)
	if err != nil {
		return nil, err
	}
	defer done()

	switch sub {
	case "list":
		facts, total, err := facts.Of(p).List(ctx, q)
		if err != nil {
			return nil, err
		}
		return &result{data: map[string]any{"facts": facts, "total": total, "status": *status, "palace": p.Name()},
			count: countOf(len(facts)), text: func(w io.Writer) {
				for _, f := range facts {
					fmt.Fprintln(w, factLine(f))
				}
				if total > len(facts) {
					fmt.Fprintf(w, "(%d of %d shown)\n", len(facts), total)
				}
			}}, nil
	case "show":
		return reviewShow(ctx, p, pos[0])
	case "undo":
		res, d, err := facts.Of(p).Undo(ctx, pos[0])
		if err != nil {
			return nil, undoError(err, pos[0])
		}
		data := map[string]any{"action": res.Action, "drawer_id": d.ID, "kind": d.Kind, "status": d.Status, "palace": p.Name()}
		shown := d.ID
		if d.Kind == palace.KindFact {
			data["fact"] = res.Fact
			shown = res.Fact.ID
		}
		return &result{data: data, text: func(w io.Writer) { fmt.Fprintf(w, "restored %s (now %s)\n", shown, d.Status) }}, nil
	}

	// approve, reject, forget: check every id first, so that one bad id
	// changes nothing.
	ids := uniqueArgs(pos)
	for _, id := range ids {
		if err := facts.Of(p).Check(ctx, sub, id); err != nil {
			return nil, factError(err, id)
		}
	}
	results := make([]facts.ReviewResult, 0, len(ids))
	for _, id := range ids {
		var r facts.ReviewResult
		switch sub {
		case facts.ActionApprove:
			r, err = facts.Of(p).Approve(ctx, id)
		case facts.ActionReject:
			r, err = facts.Of(p).Reject(ctx, id)
		default:
			r, err = facts.Of(p).Forget(ctx, id)
		}
		if err != nil {
			return nil, factError(err, id)
		}
		results = append(results, r)
	}
	return &result{data: map[string]any{"action": sub, "results": results, "palace": p.Name()}, count: countOf(len(results)),
		text: func(w io.Writer) {
			for _, r := range results {
				printReview(w, r)
			}
		}}, nil
}

func printReview(w io.Writer, r facts.ReviewResult) {
	verb := map[string]string{facts.ActionApprove: "approved", facts.ActionReject: "rejected", facts.ActionForget: "forgot"}[r.Action]
	if r.Reconfirmed {
		verb = "reconfirmed"
	}
	fmt.Fprintf(w, "%s %s: [%s] %s\n", verb, r.Fact.ID, r.Fact.Kind, oneLineText(r.Fact.Fact))
	if r.Superseded != nil {
		fmt.Fprintf(w, "  supersedes %s: %s\n", r.Superseded.ID, oneLineText(r.Superseded.Fact))
	}
	if r.UndoToken != "" {
		fmt.Fprintf(w, "  undo: loci review undo %s\n", r.UndoToken)
	}
}

func reviewShow(ctx context.Context, p *palace.Palace, id string) (*result, error) {
	f, err := facts.Of(p).Get(ctx, id)
	if err != nil {
		return nil, factError(err, id)
	}
	hist, err := facts.Of(p).History(ctx, id)
	if err != nil {
		return nil, factError(err, id)
	}
	data := map[string]any{"fact": f, "history": hist, "palace": p.Name()}
	var conflict *facts.Fact
	if f.ConflictsWith != "" {
		if cf, err := facts.Of(p).Get(ctx, f.ConflictsWith); err == nil {
			conflict = &cf
			data["conflict"] = cf
		}
	}
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "%s  [%s, tier %d] %s\n", f.ID, f.Kind, f.Tier, f.Fact)
		fmt.Fprintf(w, "status      %s\nconfidence  %.2f\n", f.Status, f.Confidence)
		if !f.ConfirmedAt.IsZero() {
			fmt.Fprintf(w, "confirmed   %s\n", f.ConfirmedAt.Format("2006-01-02 15:04 MST"))
		}
		if f.Source != "" {
			fmt.Fprintf(w, "source      %s\n", f.Source)
		}
		if conflict != nil {
			fmt.Fprintf(w, "conflicts   %s (%s): %s\n", conflict.ID, conflict.Status, conflict.Fact)
		}
		if f.Supersedes != "" {
			fmt.Fprintf(w, "supersedes  %s\n", f.Supersedes)
		}
		if f.SupersededBy != "" {
			fmt.Fprintf(w, "superseded  by %s\n", f.SupersededBy)
		}
		if f.Redactions > 0 {
			fmt.Fprintf(w, "redactions  %d secret(s) removed before storing\n", f.Redactions)
		}
		for _, e := range hist {
			detail := ""
			if from, ok := e.Detail["from"]; ok {
				detail = fmt.Sprintf(" %v → %v", from, e.Detail["to"])
			}
			fmt.Fprintf(w, "  %s  %s%s\n", e.At.Format("2006-01-02 15:04:05"), e.Type, detail)
		}
	}}, nil
}

// undoError adds a hint to undo failures.
func undoError(err error, token string) error {
	var pe *palace.Error
	if errors.As(err, &pe) && pe.Code == palace.CodeNotFound {
		return &cliError{Type: "not_found", Message: pe.Message, Hint: "Undo tokens are printed by `loci review reject` and `loci forget`; pass --palace if the action was in another palace",
			Detail: map[string]any{"token": token}}
	}
	if errors.As(err, &pe) && pe.Code == palace.CodeConflict {
		return &cliError{Type: "conflict", Message: pe.Message,
			Hint: "An undo token works once, and only until the memory's status changes again", Detail: map[string]any{"token": token}}
	}
	return err
}
