package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/loci-mem/loci/server"
)

// defaultHTTPAddr is where `loci http` listens without --addr.
const defaultHTTPAddr = "127.0.0.1:3031"

func init() {
	commands["http"] = command{"run the HTTP companion alone (EverOS API, MCP over HTTP, metrics, events)", runHTTP}
}

// runHTTP is `loci http [--addr ADDR] [--palace P]`: the HTTP companion
// without the stdio loop, until SIGINT or SIGTERM. Boot failures go to
// stderr with exit 1; bad flags exit 2.
func runHTTP(ctx context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("http", flag.ContinueOnError)
	addr := fs.String("addr", "", "address to listen on (default $LOCI_HTTP_ADDR or "+defaultHTTPAddr+")")
	palaceName := fs.String("palace", "", "default palace for MCP tool calls that omit 'palace' (created if missing)")
	var h homeFlags
	h.register(fs)
	tlsCert := fs.String("tls-cert", "", "PEM certificate (chain) to serve HTTPS with (with --tls-key)")
	tlsKey := fs.String("tls-key", "", "PEM private key of --tls-cert")
	if err := quietParse(env, fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return flagFailure(env, "http", err.Error()+meantSuffix(flagMeant(fs, err)))
	}
	if fs.NArg() > 0 {
		return flagFailure(env, "http", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if *addr == "" {
		*addr = os.Getenv("LOCI_HTTP_ADDR")
	}
	if *addr == "" {
		*addr = defaultHTTPAddr
	}
	log := newLogger(env.stderr)
	boot := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "loci http: "+format+"\n", a...)
		return 1
	}
	c, err := startCore(ctx, h, *palaceName, log)
	if err != nil {
		return boot("%v", err)
	}
	defer c.Close()
	reg, srv := c.reg, c.srv
	hs, err := server.NewHTTP(server.HTTPConfig{Server: srv, Addr: *addr, Logger: log, TLSCert: *tlsCert, TLSKey: *tlsKey})
	if err != nil {
		return boot("%v", err)
	}
	ln, err := hs.Listen()
	if err != nil {
		return boot("listen on %s: %v", *addr, err)
	}
	fmt.Fprintf(env.stderr, "loci http: listening on %s://%s (data dir %s)\n", hs.Scheme(), ln.Addr(), reg.DataDir())
	fmt.Fprint(env.stderr, mcpClientConfig(hs.Scheme()+"://"+ln.Addr().String(), hs.RequiresToken()))
	if err := hs.Serve(ctx, ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return boot("%v", err)
	}
	return 0
}

// mcpClientConfig is ready-to-paste client configuration for the MCP
// endpoint at base (scheme://host:port). The token itself is never
// printed: the header names the variable that holds it.
func mcpClientConfig(base string, token bool) string {
	url := base + "/mcp"
	header, flagPart := "", ""
	if token {
		header = `, "headers": {"Authorization": "Bearer ${LOCI_HTTP_TOKEN}"}`
		flagPart = ` --header "Authorization: Bearer $LOCI_HTTP_TOKEN"`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "MCP over HTTP at %s. To connect a client:\n", url)
	fmt.Fprintf(&b, "  Claude Code:  claude mcp add --transport http loci %s%s\n", url, flagPart)
	fmt.Fprintf(&b, "  JSON config (Cursor .cursor/mcp.json, Windsurf, Gemini CLI; VS Code calls mcpServers \"servers\"):\n")
	fmt.Fprintf(&b, "    {\"mcpServers\": {\"loci\": {\"type\": \"http\", \"url\": \"%s\"%s}}}\n", url, header)
	return b.String()
}
