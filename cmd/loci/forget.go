package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

func init() {
	commands["forget"] = command{"forget a fact (mem-NNNN) or any memory (drawer id); prints an undo token (--purge: erase it for good)", cli(forgetCmd)}
}

// forgetCmd is `loci forget [--purge] ID`: ID is an engram id or a drawer
// id. The memory leaves recall; `loci review undo TOKEN` brings it back.
// With --purge its text is erased from the palace for good (palace.Purge),
// forgotten before or not. `loci forget --purge --session SESSION_ID`
// erases the messages of a conversation session still waiting for
// extraction (palace.PurgeMessages).
func forgetCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	purge := fs.Bool("purge", false, "erase the memory's text, vectors and history from the palace for good (no undo), and the facts extracted from it")
	session := fs.String("session", "", "with --purge and no ID: erase the messages this conversation session has buffered and not yet extracted into memories")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if *session != "" {
		if !*purge || len(pos) != 0 {
			return nil, invalidArgs("--session goes with --purge and no ID", "Use `loci forget --purge --session SESSION_ID` (buffered messages are erased for good; there is no undo to forget them with)")
		}
		p, _, done, err := cliPalace(ctx, env, c, false)
		if err != nil {
			return nil, err
		}
		defer done()
		return purgeMessagesResult(ctx, p, *session)
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
	if *purge {
		return purgeResult(ctx, p, id)
	}
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

// purgeResult erases the memory id for good and reports what went.
func purgeResult(ctx context.Context, p *palace.Palace, id string) (*result, error) {
	out, err := p.Purge(ctx, id)
	if err != nil {
		return nil, factError(err, id)
	}
	ids := make([]string, len(out.Drawers))
	for i, d := range out.Drawers {
		ids[i] = d.ID
	}
	data := map[string]any{"id": id, "drawer_id": ids[0], "purged": ids, "history_rows": out.History,
		"reclaimed": out.Reclaimed, "palace": p.Name()}
	if len(out.Related) > 0 {
		data["related"] = out.Related
	}
	notes := erasureNotes(p, data)
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "purged %s: its text, vectors and history are erased (no undo)\n", id)
		if n := len(ids) - 1; n > 0 {
			fmt.Fprintf(w, "also purged the %d fact(s) extracted from it\n", n)
		}
		for _, r := range out.Related {
			fmt.Fprintf(w, "%s may still say what it said (the episode it came from, what superseded it, or its user's profile): loci forget --purge %s\n", r, r)
		}
		notes(w, out.Reclaimed)
	}}, nil
}

// purgeMessagesResult erases the messages session has buffered for
// extraction and reports how many went (never what they said).
func purgeMessagesResult(ctx context.Context, p *palace.Palace, session string) (*result, error) {
	out, err := p.PurgeMessages(ctx, session)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"session_id": session, "messages": out.Messages, "reclaimed": out.Reclaimed, "palace": p.Name()}
	notes := erasureNotes(p, data)
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "purged %d message(s) of session %s that were waiting for extraction (no undo)\n", out.Messages, termSafe(session))
		notes(w, out.Reclaimed)
	}}, nil
}

// erasureNotes adds to an erasure's result what it could not reach: the
// hooks' debug log (LOCI_DEBUG=1), which keeps what they read and
// injected, as debug_log when it exists; and prints both notes.
func erasureNotes(p *palace.Palace, data map[string]any) func(w io.Writer, reclaimed bool) {
	path, err := hookLogPath(p.Registry().DataDir())
	if _, serr := os.Stat(path); err != nil || serr != nil {
		path = ""
	} else {
		data["debug_log"] = path
	}
	return func(w io.Writer, reclaimed bool) {
		if !reclaimed {
			fmt.Fprintln(w, "the store's old copies are not overwritten yet (see SECURITY.md, \"Erasing for good\")")
		}
		if path != "" {
			fmt.Fprintf(w, "the hooks' debug log may hold it too (LOCI_DEBUG=1): delete %s\n", termSafe(path))
		}
	}
}
