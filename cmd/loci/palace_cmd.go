package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/loci-mem/loci/palace"
)

// palaceCmd is `loci palace list|create|info|warm`.
func palaceCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	if err := subcommandHelp(env, args, "loci palace list|create NAME [--description TEXT]|info [NAME]|warm [NAME]"); err != nil {
		return nil, err
	}
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
		p, err := openNamed(ctx, reg, c.palace, pos)
		if err != nil {
			return nil, err
		}
		in, err := p.Info(ctx)
		if err != nil {
			return nil, err
		}
		return &result{data: in, text: func(w io.Writer) { printInfo(w, in) }}, nil
	case "warm":
		p, err := openNamed(ctx, reg, c.palace, pos)
		if err != nil {
			return nil, err
		}
		name := p.Name()
		// However the warm-up ends, it records how long it took and
		// releases the lock a hook took when it started it (warmInBackground).
		start := time.Now()
		defer func() { warmEnded(p.Dir(), time.Since(start)) }()
		statusf(env, "warming palace %s: loading or building its indexes", name)
		if err := p.WarmIndex(ctx); err != nil {
			return nil, err
		}
		// Whatever was caught up is saved, however little: a hook that
		// ran out of time started this, and the next one loads it.
		if err := p.SaveIndexNow(ctx); err != nil {
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

// openNamed opens the palace a subcommand names: its first argument, else
// --palace, else the one of the working directory (resolvePalace).
func openNamed(ctx context.Context, reg *palace.Registry, flagValue string, pos []string) (*palace.Palace, error) {
	name := flagValue
	if len(pos) > 0 {
		name = pos[0]
	}
	name, err := resolvePalace(name)
	if err != nil {
		return nil, err
	}
	return reg.Open(ctx, name)
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
