package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loci-mem/loci/palace/archive"
)

func init() {
	commands["export"] = command{"export a palace: lossless JSONL, or readable markdown with --markdown", cli(exportCmd)}
}

// exportCmd is `loci export [--out FILE] [--markdown]`. The file is written
// beside its final name and renamed into place, so a failed export never
// leaves a half-written file under FILE; stdout carries the envelope only.
// Without --out (or with --out -) the export itself goes to stdout and the
// summary to stderr.
func exportCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	out := fs.String("out", "", "file to write (default: the export goes to stdout, the summary to stderr)")
	md := fs.Bool("markdown", false, "write readable markdown instead of the lossless JSONL")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, invalidArgs("export takes no arguments", "Use `loci export --out palace.jsonl`")
	}
	if *out == "" || *out == "-" {
		return exportToStdout(ctx, env, c, *md, args)
	}
	if st, err := os.Stat(*out); err == nil && st.IsDir() {
		return nil, &cliError{Type: "invalid_args", Message: *out + " is a directory", Detail: map[string]any{"flag": "out"}}
	}
	p, _, done, err := cliPalace(ctx, env, c, false)
	if err != nil {
		return nil, err
	}
	defer done()
	tmp, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*")
	if err != nil {
		return nil, &cliError{Type: "io", Message: err.Error(), Detail: map[string]any{"path": *out}}
	}
	defer os.Remove(tmp.Name())
	format := "jsonl"
	var st archive.ExportStats
	if *md {
		format = "markdown"
		st, err = archive.ExportMarkdown(ctx, p, tmp)
	} else {
		bar := newProgress(env, "export", "records")
		st, err = archive.ExportJSONL(ctx, p, &lineCounter{w: tmp, bar: bar})
		bar.Done()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), *out)
	}
	if err != nil {
		return nil, &cliError{Type: "io", Message: "export: " + err.Error(), Detail: map[string]any{"path": *out}}
	}
	abs, _ := filepath.Abs(*out)
	data := map[string]any{"palace": p.Name(), "path": abs, "format": format, "drawers": st.Drawers,
		"triples": st.Triples, "fact_ids": st.FactIDs, "bytes": st.Bytes}
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "exported %s: %d drawers, %d triples → %s (%s, %d bytes)\n", p.Name(), st.Drawers, st.Triples, abs, format, st.Bytes)
	}}, nil
}

// exportToStdout writes the export to stdout, for `loci export > file` and
// pipes; the summary (or an error) goes to stderr.
func exportToStdout(ctx context.Context, env *cliEnv, c commonFlags, md bool, args []string) (*result, error) {
	env.claimStdout(args)
	p, _, done, err := cliPalace(ctx, env, c, false)
	if err != nil {
		return nil, err
	}
	defer done()
	w := bufio.NewWriterSize(env.stdout, 1<<16)
	format := "jsonl"
	var st archive.ExportStats
	if md {
		format = "markdown"
		st, err = archive.ExportMarkdown(ctx, p, w)
	} else {
		bar := newProgress(env, "export", "records")
		st, err = archive.ExportJSONL(ctx, p, &lineCounter{w: w, bar: bar})
		bar.Done()
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return nil, &cliError{Type: "io", Message: "export: " + err.Error(), Hint: "The output on stdout is incomplete; run it again"}
	}
	data := map[string]any{"palace": p.Name(), "path": "-", "format": format, "drawers": st.Drawers,
		"triples": st.Triples, "fact_ids": st.FactIDs, "bytes": st.Bytes}
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "exported %s: %d drawers, %d triples to stdout (%s, %d bytes)\n", p.Name(), st.Drawers, st.Triples, format, st.Bytes)
	}}, nil
}

// lineCounter passes writes through and shows the JSONL records written
// so far on a progress display.
type lineCounter struct {
	w     io.Writer
	bar   *progress
	lines int
}

func (c *lineCounter) Write(b []byte) (int, error) {
	c.lines += bytes.Count(b, []byte{'\n'})
	c.bar.Set(c.lines, 0, "")
	return c.w.Write(b)
}
