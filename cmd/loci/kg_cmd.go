package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/loci-mem/loci/kg"
)

// kgCmd is `loci kg assert SUBJECT PREDICATE OBJECT | query SUBJECT [--as-of T] | history SUBJECT`.
func kgCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	if err := subcommandHelp(env, args, "loci kg assert SUBJECT PREDICATE OBJECT|query SUBJECT [--as-of T]|history SUBJECT"); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, invalidArgs("missing subcommand", "Use `loci kg assert|query|history`")
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
	default:
		return nil, invalidArgs("unknown subcommand kg "+sub, "Use assert, query or history")
	}
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
