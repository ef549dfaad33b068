package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loci-mem/loci/palace"
)

func init() {
	commands["token"] = command{"manage users' access tokens for the HTTP companion: create, list, revoke", cli(tokenCmd)}
}

// tokenCmd is `loci token create --user NAME [--scope read|write|admin]
// [--palace P1,P2|*]`, `loci token list` and `loci token revoke ID`. The
// tokens live in the store (a team's PostgreSQL catalog, or access.db in
// a SQLite data dir), so every node of the team accepts them at once.
func tokenCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	if err := subcommandHelp(env, args, "loci token create --user NAME [--scope read|write|admin] [--palace P1,P2|*]|list|revoke ID"); err != nil {
		return nil, err
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil, invalidArgs("missing subcommand", "Use `loci token create --user NAME`, `loci token list` or `loci token revoke ID`")
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("token "+sub, flag.ContinueOnError)
	var h homeFlags
	h.register(fs)
	fs.String("format", "auto", "output format: auto, text, json or yaml")
	user := fs.String("user", "", "whom the token is for (create)")
	scope := fs.String("scope", "read", "what it may do: read, write or admin (create)")
	palaces := fs.String("palace", "*", "the palaces it reaches, comma-separated; * is every palace (create)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	reg, err := openRegistry(h, newLogger(env.stderr), nil)
	if err != nil {
		return nil, asIOError(err)
	}
	defer reg.Close()
	switch sub {
	case "create":
		if len(pos) > 0 {
			return nil, invalidArgs("token create takes no arguments", "Use `loci token create --user NAME --scope write --palace team`")
		}
		access, err := palace.ParseAccess(*scope)
		if err != nil {
			return nil, err
		}
		var list []string
		for _, p := range strings.Split(*palaces, ",") {
			if p = strings.TrimSpace(p); p != "" {
				list = append(list, p)
			}
		}
		secret, info, err := reg.CreateToken(ctx, *user, access, list)
		if err != nil {
			return nil, err
		}
		return &result{data: map[string]any{"token": secret, "info": info}, reveal: secret, text: func(w io.Writer) {
			fmt.Fprintf(w, "token for %s (%s on %s):\n\n  %s\n\n", info.User, info.Scope, strings.Join(info.Palaces, ", "), secret)
			fmt.Fprintf(w, "It is shown this once; loci keeps only its hash. Send it as \"Authorization: Bearer <token>\".\n")
			fmt.Fprintf(w, "Revoke it with `loci token revoke %s`.\n", info.ID)
		}}, nil
	case "list":
		list, err := reg.Tokens(ctx)
		if err != nil {
			return nil, err
		}
		return &result{data: map[string]any{"tokens": list}, count: countOf(len(list)), text: func(w io.Writer) {
			if len(list) == 0 {
				fmt.Fprintln(w, "no tokens (`loci token create --user NAME` makes one)")
				return
			}
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tUSER\tSCOPE\tPALACES\tCREATED\tLAST USED\tSTATE")
			for _, t := range list {
				state := "active"
				if !t.RevokedAt.IsZero() {
					state = "revoked " + t.RevokedAt.Format(time.DateOnly)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.User, t.Scope, strings.Join(t.Palaces, ","),
					t.CreatedAt.Format(time.DateOnly), orNever(t.LastUsed), state)
			}
			tw.Flush()
		}}, nil
	case "revoke":
		if len(pos) != 1 {
			return nil, invalidArgs("token revoke takes one token id", "Use `loci token revoke ID` (`loci token list` shows the ids)")
		}
		if err := reg.RevokeToken(ctx, pos[0]); err != nil {
			return nil, err
		}
		return &result{data: map[string]any{"id": pos[0], "status": "revoked"}, text: func(w io.Writer) {
			fmt.Fprintf(w, "revoked token %s: requests with it now fail on every node\n", pos[0])
		}}, nil
	default:
		return nil, invalidArgs("unknown subcommand token "+sub, "Use create, list or revoke")
	}
}

func orNever(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Format(time.DateTime)
}
