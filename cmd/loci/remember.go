package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

func init() {
	commands["remember"] = command{"stage a durable fact about the user for review (Engram remember)", cli(rememberCmd)}
}

// rememberCmd is `loci remember FACT... [--kind K] [--confidence C]`: the
// words of FACT are joined with spaces.
func rememberCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("remember", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	kind := fs.String("kind", facts.DefaultKind, "kind of fact: "+strings.Join(facts.KindNames(), ", "))
	conf := fs.Float64("confidence", facts.DefaultConfidence, "confidence in [0,1]")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(strings.Join(pos, " "))
	if text == "" {
		return nil, invalidArgs("missing FACT", "Use `loci remember \"I prefer pnpm over npm\" --kind tooling`")
	}
	k, err := facts.CheckKind(*kind)
	if err != nil {
		return nil, &cliError{Type: "invalid_args", Message: err.Error(), Hint: "Use --kind " + strings.Join(facts.KindNames(), "|"),
			Detail: map[string]any{"flag": "kind", "valid": facts.KindNames()}}
	}
	if err := palace.CheckUnit("--confidence", *conf); err != nil {
		return nil, &cliError{Type: "invalid_args", Message: err.Error(),
			Hint: "Use a value such as 0.6 (inferred) or 0.9 (stated)", Detail: map[string]any{"flag": "confidence"}}
	}
	p, _, done, err := cliPalace(ctx, env, c, true)
	if err != nil {
		return nil, err
	}
	defer done()
	r, err := facts.Of(p).Stage(ctx, facts.Input{Text: text, Kind: k, Confidence: *conf, Source: "cli:remember"})
	if err != nil {
		return nil, err
	}
	data := map[string]any{"outcome": r.Outcome, "fact": r.Fact, "palace": p.Name()}
	if r.Conflict != nil {
		data["conflict"] = r.Conflict
	}
	// A staged fact is not recallable until approved: say so, with the command.
	next := ""
	if r.Fact.Status == palace.StatusPending {
		next = fmt.Sprintf("loci review approve %s --palace %s", r.Fact.ID, p.Name())
		data["next"] = next
	}
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintln(w, r.Line())
		if next != "" {
			fmt.Fprintf(w, "it waits for review; `%s` makes it recallable\n", next)
		}
	}}, nil
}
