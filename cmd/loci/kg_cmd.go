package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
)

// kgCmd is `loci kg assert SUBJECT PREDICATE OBJECT | query SUBJECT [--as-of T] | history SUBJECT
// | purge SUBJECT [PREDICATE]`.
func kgCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	if err := subcommandHelp(env, args, "loci kg assert SUBJECT PREDICATE OBJECT|query SUBJECT [--as-of T]|history SUBJECT|purge SUBJECT [PREDICATE]"); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, invalidArgs("missing subcommand", "Use `loci kg assert|query|history|purge`")
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("kg "+sub, flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	confidence := fs.Float64("confidence", 1, "confidence in [0,1] (assert)")
	provenance := fs.String("provenance", "", "where the fact came from (assert)")
	asOf := fs.String("as-of", "", "RFC 3339 time: the triples valid then (query)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	name, err := resolvePalace(c.palace)
	if err != nil {
		return nil, err
	}
	reg, err := openRegistry(c.homeFlags, newLogger(env.stderr), nil)
	if err != nil {
		return nil, asIOError(err)
	}
	defer reg.Close()

	switch sub {
	case "assert":
		if len(pos) != 3 {
			return nil, invalidArgs("kg assert needs SUBJECT PREDICATE OBJECT", "Quote values with spaces")
		}
		p, err := reg.OpenOrCreate(ctx, name)
		if err != nil {
			return nil, err
		}
		t, err := p.KG().Assert(ctx, kg.Assertion{Subject: pos[0], Predicate: pos[1], Object: pos[2],
			Confidence: confidence, Provenance: *provenance})
		if err != nil {
			return nil, err
		}
		p.LogEvent(ctx, "kg.asserted", map[string]any{"subject": t.Subject, "predicate": t.Predicate})
		return &result{data: map[string]any{"status": "asserted", "triple": t},
			text: func(w io.Writer) { fmt.Fprintf(w, "asserted %s %s %s\n", t.Subject, t.Predicate, t.Object) }}, nil
	case "query", "history":
		if len(pos) != 1 {
			return nil, invalidArgs("kg "+sub+" needs SUBJECT", "")
		}
		p, err := reg.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		var ts []kg.Triple
		switch {
		case sub == "history":
			ts, err = p.KG().History(ctx, pos[0])
		case *asOf != "":
			at, perr := time.Parse(time.RFC3339, *asOf)
			if perr != nil {
				return nil, invalidArgs("--as-of: "+perr.Error(), "Use RFC 3339, e.g. 2026-05-10T14:32:00Z")
			}
			ts, err = p.KG().AsOf(ctx, pos[0], at)
		default:
			ts, err = p.KG().Query(ctx, pos[0])
		}
		if err != nil {
			return nil, err
		}
		if ts == nil {
			ts = []kg.Triple{}
		}
		return &result{data: map[string]any{"subject": pos[0], "triples": ts}, count: countOf(len(ts)),
			text: func(w io.Writer) { printTriples(w, ts) }}, nil
	case "purge":
		if len(pos) < 1 || len(pos) > 2 {
			return nil, invalidArgs("kg purge needs SUBJECT and may name a PREDICATE", "Quote values with spaces")
		}
		p, err := reg.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		predicate := ""
		if len(pos) == 2 {
			predicate = pos[1]
		}
		return kgPurgeResult(ctx, p, pos[0], predicate)
	default:
		return nil, invalidArgs("unknown subcommand kg "+sub, "Use assert, query, history or purge")
	}
}

// kgPurgeResult erases the facts of subject (of subject and predicate)
// for good and reports what went: how many, and their ids, never their
// objects (what a purge is for should not reach the terminal again).
func kgPurgeResult(ctx context.Context, p *palace.Palace, subject, predicate string) (*result, error) {
	out, err := p.PurgeFacts(ctx, subject, predicate)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(out.Triples))
	for i, t := range out.Triples {
		ids[i] = t.ID
	}
	data := map[string]any{"palace": p.Name(), "subject": out.Triples[0].Subject, "purged": len(ids), "ids": ids,
		"events": out.Events, "reclaimed": out.Reclaimed}
	what := out.Triples[0].Subject
	if predicate != "" {
		data["predicate"] = out.Triples[0].Predicate
		what += " " + out.Triples[0].Predicate
	}
	notes := erasureNotes(p, data)
	return &result{data: data, count: countOf(len(ids)), text: func(w io.Writer) {
		fmt.Fprintf(w, "purged %d fact(s) of %s, their history included (no undo)\n", len(ids), what)
		notes(w, out.Reclaimed)
	}}, nil
}

func printTriples(w io.Writer, ts []kg.Triple) {
	for _, t := range ts {
		to := "now"
		if !t.Active() {
			to = kg.RFC3339(t.ValidTo)
		}
		fmt.Fprintf(w, "%s %s %s  [%s → %s] conf %.2f\n", t.Subject, t.Predicate, t.Object, kg.RFC3339(t.ValidFrom), to, t.Confidence)
	}
}
