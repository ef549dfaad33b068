package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

func init() {
	commands["forget"] = command{"forget a fact (mem-NNNN) or any memory (drawer id); prints an undo token", cli(forgetCmd)}
}

// forgetCmd is `loci forget ID`: ID is an engram id or a drawer id. The
// memory leaves recall; `loci review undo TOKEN` brings it back.
func forgetCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, invalidArgs("forget needs exactly one ID", "Use `loci forget mem-0042` or `loci forget DRAWER_ID`")
	}
	id := pos[0]
	p, _, done, err := cliPalace(ctx, env, c, false)
	if err != nil {
		return nil, err
	}
	defer done()
	d, token, err := p.Forget(ctx, id)
	if err != nil {
		return nil, factError(err, id)
	}
	shown := id
	data := map[string]any{"id": id, "drawer_id": d.ID, "kind": d.Kind, "status": d.Status, "undo": token, "palace": p.Name()}
	if d.Kind == palace.KindFact {
		f := facts.FromDrawer(d)
		shown = f.ID
		data["fact"] = f
	}
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "forgot %s\nundo: loci review undo %s\n", shown, token)
	}}, nil
}
