package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/archive"
)

func init() {
	commands["import"] = command{"import a palace export (JSONL) into a palace", cli(importCmd)}
}

// importCmd is `loci import FILE [--on-conflict skip|fail]`; FILE "-"
// reads stdin. The target palace (--palace, else the repository's) is
// created if needed. The import is one transaction: all or nothing.
func importCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	flags := flag.NewFlagSet("import", flag.ContinueOnError)
	var c commonFlags
	c.register(flags)
	onConflict := flags.String("on-conflict", "skip", "a drawer id the palace has already: skip or fail")
	pos, err := parseFlags(env, flags, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, invalidArgs("import needs exactly one FILE", "Use `loci import palace.jsonl --palace NAME` (- reads stdin)")
	}
	if *onConflict != "skip" && *onConflict != "fail" {
		return nil, &cliError{Type: "invalid_args", Message: "--on-conflict must be skip or fail, got " + *onConflict,
			Detail: map[string]any{"flag": "on-conflict"}}
	}
	var in io.Reader = env.stdin
	path := pos[0]
	if path != "-" {
		f, err := openInput(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	p, _, done, err := cliPalace(ctx, env, c, true)
	if err != nil {
		return nil, err
	}
	defer done()
	log := newLogger(env.stderr)
	log.Debug().Str("path", path).Msg("import reading")
	bar := newProgress(env, "import", "drawers")
	st, err := archive.ImportJSONL(ctx, p, in, archive.ImportOptions{OnConflict: *onConflict,
		Progress: func(phase string, done, total int) { bar.Set(done, total, phase) }})
	bar.Done()
	if err != nil {
		var pe *palace.Error
		if errors.As(err, &pe) && pe.Code == palace.CodeInvalid {
			return nil, &cliError{Type: "invalid_args", Message: path + ": " + pe.Message,
				Hint: "Nothing was imported. The file must be a `loci export` JSONL", Detail: map[string]any{"path": path}}
		}
		return nil, err
	}
	return &result{data: map[string]any{"palace": p.Name(), "path": path, "stats": st}, text: func(w io.Writer) {
		fmt.Fprintf(w, "imported into %s: %d drawers (%d skipped), %d triples (%d skipped)", p.Name(), st.Drawers, st.Skipped, st.Triples, st.TriplesSkipped)
		if st.Renumbered > 0 {
			fmt.Fprintf(w, ", %d facts renumbered", st.Renumbered)
		}
		fmt.Fprintln(w)
	}}, nil
}

func openInput(path string) (*os.File, error) {
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &cliError{Type: "not_found", Message: path + " does not exist", Detail: map[string]any{"path": path}}
	case err != nil:
		return nil, &cliError{Type: "io", Message: err.Error(), Detail: map[string]any{"path": path}}
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &cliError{Type: "invalid_args", Message: path + " is a directory", Detail: map[string]any{"path": path}}
	}
	return f, nil
}
