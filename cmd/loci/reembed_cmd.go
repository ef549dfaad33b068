package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/loci-mem/loci/palace"
)

func init() {
	commands["reembed"] = command{"re-embed drawers whose vectors came from another embedder", cli(reembedCmd)}
}

// reembedCmd is `loci reembed [--palace P] [--batch N]`: re-embed every
// drawer whose vector is missing or was made by another embedder than the
// configured one (LOCI_EMBEDDER), and every long drawer whose passage
// vectors an earlier release made in another window, printing progress on
// stderr.
func reembedCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("reembed", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	batch := fs.Int("batch", palace.DefaultReembedBatch, "drawers embedded and stored per transaction (1-4096)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, invalidArgs("unexpected argument "+pos[0], "Use `loci reembed [--palace NAME] [--batch N]`")
	}
	if *batch < 1 || *batch > 4096 {
		return nil, invalidArgs(fmt.Sprintf("--batch must be between 1 and 4096, got %d", *batch), "")
	}
	name, err := resolvePalace(c.palace)
	if err != nil {
		return nil, err
	}
	log := newLogger(env.stderr)
	reg, err := openRegistry(c.homeFlags, log, nil)
	if err != nil {
		return nil, &cliError{Type: "io", Message: err.Error()}
	}
	defer reg.Close()
	p, err := reg.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	total := 0
	bar := newProgress(env, "reembed", "drawers")
	n, err := p.ReembedWithProgress(ctx, *batch, func(done, all int) {
		total = all
		bar.Set(done, all, "")
	})
	bar.Done()
	if err != nil {
		return nil, err
	}
	h, err := p.IndexHealth(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.SaveIndex(ctx); err != nil {
		log.Warn().Err(err).Msg("save vector index snapshot")
	}
	data := map[string]any{"palace": p.Name(), "model": p.Embedder().ID(), "reembedded": n, "needed": total,
		"remaining": h.StaleVectors, "stale_passages": h.StalePassages, "took_ms": time.Since(start).Milliseconds()}
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "re-embedded %d of %d drawer(s) with %s in %v; %d left\n", n, total, p.Embedder().ID(),
			time.Since(start).Round(time.Millisecond), h.StaleVectors)
	}}, nil
}
