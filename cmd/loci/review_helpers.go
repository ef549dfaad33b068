package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/palace/redact"
)

// Helpers shared by the fact and review-queue commands (remember, recall,
// forget, review, harvest) and the export, import and doctor commands.

// cliPalace opens the registry and the palace a command targets (--palace,
// $LOCI_PALACE, else the git repository's palace). create opens or creates
// it; otherwise a missing palace is not_found. close releases both.
func cliPalace(ctx context.Context, env *cliEnv, c commonFlags, create bool) (p *palace.Palace, reg *palace.Registry, closeFn func(), err error) {
	name, err := resolvePalace(c.palace)
	if err != nil {
		return nil, nil, nil, err
	}
	reg, err = openRegistry(c.homeFlags, newLogger(env.stderr), nil)
	if err != nil {
		return nil, nil, nil, asIOError(err)
	}
	if create {
		p, err = reg.OpenOrCreate(ctx, name)
	} else {
		p, err = reg.Open(ctx, name)
	}
	if err != nil {
		reg.Close()
		if errors.Is(err, palace.ErrNotFound) {
			return nil, nil, nil, &cliError{Type: "not_found", Message: fmt.Sprintf("palace %q does not exist", name),
				Hint: "Run `loci palace list`, or pass --palace NAME", Detail: map[string]any{"palace": name}}
		}
		return nil, nil, nil, err
	}
	return p, reg, func() { reg.Close() }, nil
}

// asIOError classifies a failure to open the data dir: a bad setting is
// invalid_args, anything else a local I/O failure.
func asIOError(err error) error {
	var ce *cliError
	if errors.As(err, &ce) {
		return err
	}
	return &cliError{Type: "io", Message: err.Error(), Hint: "Check --data-dir / $LOCI_HOME and its permissions"}
}

// factError adds review-queue hints to palace errors about facts.
func factError(err error, id string) error {
	var pe *palace.Error
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case palace.CodeNotFound:
		return &cliError{Type: "not_found", Message: pe.Message, Hint: "Run `loci review list --status all` to see the facts",
			Detail: map[string]any{"id": id}}
	case palace.CodeConflict:
		return &cliError{Type: "conflict", Message: pe.Message, Hint: "Run `loci review show " + id + "` to see its status",
			Detail: map[string]any{"id": id}}
	case palace.CodeInvalid:
		return &cliError{Type: "invalid_args", Message: pe.Message, Detail: map[string]any{"id": id}}
	}
	return err
}

// progress writes a diagnostic line to stderr, redacted.
func (e *cliEnv) progress(format string, a ...any) {
	s, _ := redact.String(fmt.Sprintf(format, a...))
	io.WriteString(e.stderr, s+"\n")
}

// factLine is a fact's one-line text form.
func factLine(f facts.Fact) string {
	extra := ""
	if f.ConflictsWith != "" {
		extra = "  conflicts with " + f.ConflictsWith
	}
	return fmt.Sprintf("%s  %-9s [%s] %s  (%.2f)%s", f.ID, f.Status, f.Kind, oneLineText(f.Fact), f.Confidence, extra)
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// uniqueArgs drops repeated positional arguments, keeping the first.
func uniqueArgs(in []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(in))
	for _, a := range in {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
