package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/loci-mem/loci/server"
)

// runServe is `loci serve [--palace NAME] [--http ADDR]`: the MCP server on
// stdin/stdout, NDJSON JSON-RPC 2.0. Boot failures go to stderr, exit 1.
func runServe(ctx context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	palaceName := fs.String("palace", "", "default palace for tool calls that omit 'palace' (created if missing); \"auto\": the project palace of the working directory's git repository, else \"default\"")
	httpAddr := fs.String("http", "", "also serve the HTTP companion on this address (e.g. 127.0.0.1:3031)")
	var h homeFlags
	h.register(fs)
	tlsCert := fs.String("tls-cert", "", "with --http: PEM certificate (chain) to serve HTTPS with (with --tls-key)")
	tlsKey := fs.String("tls-key", "", "with --http: PEM private key of --tls-cert")
	if err := quietParse(env, fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return flagFailure(env, "serve", err.Error()+meantSuffix(flagMeant(fs, err)))
	}
	if fs.NArg() > 0 {
		return flagFailure(env, "serve", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if *palaceName == "auto" { // for MCP configs shared by every project (see cmd/loci/claudecode/README.md)
		if wd, err := os.Getwd(); err == nil {
			*palaceName = autoPalace(wd)
		} else {
			*palaceName = "default"
		}
	}
	log := newLogger(env.stderr)
	boot := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "loci serve: "+format+"\n", a...)
		return 1
	}

	c, err := startCore(ctx, h, *palaceName, log)
	if err != nil {
		return boot("%v", err)
	}
	defer c.Close()
	reg, srv := c.reg, c.srv

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	httpDone := make(chan error, 1)
	if *httpAddr != "" {
		hs, err := server.NewHTTP(server.HTTPConfig{Server: srv, Addr: *httpAddr, Logger: log, TLSCert: *tlsCert, TLSKey: *tlsKey})
		if err != nil {
			return boot("--http: %v", err)
		}
		ln, err := hs.Listen()
		if err != nil {
			return boot("--http: %v", err)
		}
		log.Info().Str("addr", ln.Addr().String()).Str("scheme", hs.Scheme()).Msg("HTTP companion listening")
		go func() {
			err := hs.Serve(ctx, ln)
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error().Err(err).Msg("HTTP companion stopped")
			}
			httpDone <- err
			cancel() // the HTTP loop ending stops the stdio loop too
		}()
	} else {
		close(httpDone)
	}

	log.Info().Str("palace", *palaceName).Str("data_dir", reg.DataDir()).Msg("serving MCP on stdio")
	if isTerminal(env.stdin) {
		// A person ran it by hand (make run): say what it is waiting for
		// rather than leave what looks like a hung terminal. stdout stays
		// the protocol's.
		fmt.Fprint(env.stderr, serveBanner(*palaceName, reg.DataDir(), *httpAddr))
	}
	err = srv.ServeStdio(ctx, env.stdin, env.stdout)
	cancel() // stdio ended (EOF or signal): stop the HTTP loop
	<-httpDone
	if err != nil {
		log.Error().Err(err).Msg("stdio loop")
		return 1
	}
	return 0
}

// serveBanner is what `loci serve` tells a person at a terminal.
func serveBanner(palaceName, dataDir, httpAddr string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "loci serve: an MCP server on stdin/stdout (palace %q, data in %s).\n", cmp.Or(palaceName, "none: tools take a palace argument"), dataDir)
	b.WriteString("It waits for JSON-RPC from an MCP client; hosts such as Claude Code or Cursor start it themselves.\n")
	b.WriteString("  set a host up:   loci install   (finds the agent hosts on this machine and asks which)\n")
	b.WriteString("  try it by hand:  loci remember \"We deploy on Tuesdays\"; loci review; loci recall deploy\n")
	b.WriteString("  see the memory:  loci hub\n")
	if httpAddr != "" {
		fmt.Fprintf(&b, "  HTTP companion:  %s\n", httpAddr)
	}
	b.WriteString("Press Ctrl-D or Ctrl-C to stop.\n")
	return b.String()
}
