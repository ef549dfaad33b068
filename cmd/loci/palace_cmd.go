package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/loci-mem/loci/palace"
)

// palaceCmd is `loci palace list|create|info|warm`.
func palaceCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	if len(args) == 0 {
		return nil, invalidArgs("missing subcommand", "Use `loci palace list|create NAME|info [NAME]|warm [NAME]`")
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("palace "+sub, flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	desc := fs.String("description", "", "palace description (create)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	reg, err := openRegistry(c.homeFlags, newLogger(env.stderr), nil)
	if err != nil {
		return nil, asIOError(err)
	}
	defer reg.Close()

	switch sub {
	case "list":
		names, err := reg.List()
		if err != nil {
			return nil, err
		}
		return &result{data: map[string]any{"palaces": names, "data_dir": reg.DataDir()}, count: countOf(len(names)),
			text: func(w io.Writer) {
				for _, n := range names {
					fmt.Fprintln(w, n)
				}
			}}, nil
	case "create":
		name := c.palace
		if len(pos) > 0 {
			name = pos[0]
		}
		if name == "" {
			return nil, invalidArgs("missing palace name", "Use `loci palace create NAME`")
		}
		p, err := reg.Create(ctx, name, *desc)
		if err != nil {
			return nil, err
		}
		return &result{data: map[string]any{"palace_id": p.Name(), "status": "created", "data_dir": p.Dir()},
			text: func(w io.Writer) { fmt.Fprintf(w, "created palace %s at %s\n", p.Name(), p.Dir()) }}, nil
	case "info":
		name := c.palace
		if len(pos) > 0 {
			name = pos[0]
		}
		if name, err = resolvePalace(name); err != nil {
			return nil, err
		}
		p, err := reg.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		in, err := p.Info(ctx)
		if err != nil {
			return nil, err
		}
		return &result{data: in, text: func(w io.Writer) { printInfo(w, in) }}, nil
	case "warm":
		name := c.palace
		if len(pos) > 0 {
			name = pos[0]
		}
		if name, err = resolvePalace(name); err != nil {
			return nil, err
		}
		p, err := reg.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		// The lock a hook took when it started this warm-up (warmInBackground)
		// is released however the warm-up ends.
		defer os.Remove(filepath.Join(p.Dir(), warmLockFile))
		start := time.Now()
		statusf(env, "warming palace %s: loading or building its indexes", name)
		if err := p.WarmIndex(ctx); err != nil {
			return nil, err
		}
		took := time.Since(start)
		return &result{data: map[string]any{"palace": name, "took_ms": took.Milliseconds()},
			text: func(w io.Writer) {
				fmt.Fprintf(w, "palace %s: indexes loaded and saved in %v\n", name, took.Round(time.Millisecond))
			}}, nil
	default:
		return nil, invalidArgs("unknown subcommand palace "+sub, "Use list, create, info or warm")
	}
}

func printInfo(w io.Writer, in palace.Info) {
	fmt.Fprintf(w, "palace    %s\n", in.Name)
	if in.Description != "" {
		fmt.Fprintf(w, "about     %s\n", in.Description)
	}
	fmt.Fprintf(w, "drawers   %d active\n", in.DrawerCount)
	for k, n := range in.ByKind {
		fmt.Fprintf(w, "  %-12s %d\n", k, n)
	}
	rooms := slices.Sorted(maps.Keys(in.Rooms))
	for i, r := range rooms {
		label := "rooms"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "%-9s %s (%d)\n", label, palace.RoomLabel(r), in.Rooms[r])
	}
	fmt.Fprintf(w, "triples   %d active\n", in.Triples)
	fmt.Fprintf(w, "data dir  %s\n", in.DataDir)
}
