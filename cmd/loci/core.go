package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/loci-mem/loci/cmd/loci/loadbench"
	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server"
	"github.com/rs/zerolog"
)

// core is what `serve` and `http` share: the dreamer manager, the palace
// registry (starting a dreamer for every palace it opens), the default
// palace and the MCP server.
type core struct {
	dm          *dreamer.Manager
	reg         *palace.Registry
	srv         *server.Server
	stopProfile func()
}

// startCore opens everything a long-running loci needs. Its errors are
// boot failures, worded for stderr.
func startCore(ctx context.Context, h homeFlags, defaultPalace string, log zerolog.Logger) (*core, error) {
	dcfg, err := dreamerConfig(log) // LOCI_DREAM* environment, see dreamer/README.md
	if err != nil {
		return nil, err
	}
	c := &core{dm: dreamer.NewManager(dcfg)}
	// LOCI_PROFILE=prefix writes CPU, block, mutex and allocation profiles
	// of the whole run to prefix.{cpu,block,mutex,allocs} at exit, for `go
	// tool pprof`.
	if prefix := os.Getenv("LOCI_PROFILE"); prefix != "" {
		if c.stopProfile, err = loadbench.StartProfiles(prefix); err != nil {
			c.dm.Close()
			return nil, fmt.Errorf("LOCI_PROFILE: %w", err)
		}
	}
	// Every palace a long-running loci opens gets a dreamer; its in-memory
	// indexes are built at its first search, so that palaces opened only
	// to be listed or watched cost no memory.
	cfg, err := registryConfig(h, log, c.dm.Start)
	if err == nil {
		cfg.Follow = true     // catch indexes up when another node writes (PostgreSQL)
		cfg.EmbedLater = true // a long text's vectors are made after the call returns
		c.reg, err = palace.OpenRegistry(cfg)
	}
	if err != nil {
		c.dm.Close()
		if c.stopProfile != nil {
			c.stopProfile()
		}
		return nil, err
	}
	var warm *palace.Palace
	if defaultPalace != "" {
		if err := palace.ValidateName(defaultPalace); err != nil {
			c.Close()
			return nil, fmt.Errorf("--palace: %w", err)
		}
		p, err := c.reg.OpenOrCreate(ctx, defaultPalace)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("open palace %q: %w", defaultPalace, err)
		}
		warm = p
	}
	delay, _ := strconv.Atoi(os.Getenv("LOCI_DEBUG_TOOL_DELAY_MS"))
	maxContent, err := maxContentChars()
	if err == nil {
		c.srv, err = server.New(server.Config{
			Registry:        c.reg,
			DefaultPalace:   defaultPalace,
			Version:         version,
			Logger:          log,
			ToolDelay:       time.Duration(delay) * time.Millisecond,
			MaxContentChars: maxContent,
		})
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	if warm != nil {
		// The default palace is the one the agent will search: load its
		// indexes in the background, once the handshake is answered (or
		// warmAfter has passed without one: the HTTP faces have none),
		// so that the first recall finds them warm. Loading takes both
		// cores at a million drawers; started at once, it delayed the
		// initialize answer from ~20 ms to 70-250 ms.
		go func() {
			select {
			case <-c.srv.Handshaken():
			case <-time.After(warmAfter):
			case <-ctx.Done():
				return
			}
			if err := warm.WarmIndex(ctx); err != nil {
				log.Debug().Err(err).Msg("warm indexes")
			}
			// Building an index from the store leaves transient garbage
			// (decoded vectors, token lists) of the palace's size; hand it
			// back now rather than letting the process hold its peak.
			debug.FreeOSMemory()
		}()
	}
	return c, nil
}

// warmAfter is how long the index warm-up waits for a handshake: hosts
// send initialize as soon as they spawn the server.
const warmAfter = 100 * time.Millisecond

// Close stops the dreamers (at most their 2 s grace) and closes the palaces.
func (c *core) Close() {
	c.dm.Close()
	c.reg.Close()
	if c.stopProfile != nil {
		c.stopProfile()
	}
}

// maxContentChars is LOCI_MAX_CONTENT_CHARS: how many characters of each
// memory memory_recall and memory_list return when the call does not say
// (server/clip.go); unset or 0, the whole text, as seed 003 has it.
func maxContentChars() (int, error) {
	v := strings.TrimSpace(os.Getenv("LOCI_MAX_CONTENT_CHARS"))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("LOCI_MAX_CONTENT_CHARS=%q: want a whole number of characters, 0 or more (0: memories whole)", v)
	}
	return n, nil
}
