package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/loci-mem/loci/server"
)

func init() {
	commands["hub"] = command{"open the Memory Hub dashboard, starting the HTTP companion if none answers", runHub}
}

// defaultHubAddr is where `loci hub` looks for a companion, and where it
// starts one.
const defaultHubAddr = "127.0.0.1:3031"

// runHub is `loci hub [--addr ADDR] [--no-open]`. When a companion already
// answers /health at ADDR it prints the hub's URL and exits; otherwise it
// starts the companion in this process, prints the URL and serves until
// interrupted. The URL goes to stdout in the CLI envelope (data.url);
// progress goes to stderr. No URL ever carries a secret: with
// LOCI_HTTP_TOKEN set, the page asks for the token.
func runHub(ctx context.Context, env *cliEnv, args []string) int {
	var serve func(context.Context) error
	code := cli(func(ctx context.Context, env *cliEnv, args []string) (*result, error) {
		r, s, err := prepareHub(ctx, env, args)
		serve = s
		return r, err
	})(ctx, env, args)
	if code != 0 || serve == nil {
		return code
	}
	if err := serve(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(env.stderr, "loci hub: %v\n", err)
		return 1
	}
	return 0
}

// prepareHub finds or starts the companion. When it starts one, serve runs
// it until ctx ends.
func prepareHub(ctx context.Context, env *cliEnv, args []string) (*result, func(context.Context) error, error) {
	fs := flag.NewFlagSet("hub", flag.ContinueOnError)
	fs.String("format", "auto", "output format: auto, text, json or yaml")
	addr := fs.String("addr", defaultHubAddr, "address of the HTTP companion (host:port)")
	noOpen := fs.Bool("no-open", false, "print the URL without opening a browser")
	var h homeFlags
	h.register(fs)
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, nil, err
	}
	if len(pos) > 0 {
		return nil, nil, invalidArgs(fmt.Sprintf("unexpected argument %q", pos[0]), "Use `loci hub [--addr HOST:PORT] [--no-open]`")
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return nil, nil, invalidArgs(fmt.Sprintf("--addr %q: want host:port", *addr), "For example --addr "+defaultHubAddr)
	}
	tokenHint := func() {
		if os.Getenv("LOCI_HTTP_TOKEN") != "" {
			fmt.Fprintln(env.stderr, "loci hub: the companion requires a bearer token; the page will ask for it (LOCI_HTTP_TOKEN)")
		}
	}

	if companionAnswers(ctx, *addr) {
		url := "http://" + *addr + "/"
		fmt.Fprintf(env.stderr, "loci hub: a companion already answers at %s\n", *addr)
		tokenHint()
		if !*noOpen {
			openBrowser(env.stderr, url)
		}
		return hubResult(url, *addr, false), nil, nil
	}

	log := newLogger(env.stderr)
	reg, err := openRegistry(h, log, nil)
	if err != nil {
		return nil, nil, &cliError{Type: "io", Message: err.Error()}
	}
	srv, err := server.New(server.Config{Registry: reg, Version: version, Logger: log})
	if err != nil {
		reg.Close()
		return nil, nil, err
	}
	hs, err := server.NewHTTP(server.HTTPConfig{Server: srv, Addr: *addr, Logger: log})
	if err != nil {
		reg.Close()
		return nil, nil, invalidArgs(err.Error(), "Bind a loopback address, or set LOCI_HTTP_TOKEN")
	}
	ln, err := hs.Listen()
	if err != nil {
		reg.Close()
		return nil, nil, &cliError{Type: "io", Message: fmt.Sprintf("listen on %s: %v", *addr, err),
			Hint: "Is another program using that port? Pick another with --addr"}
	}
	bound := ln.Addr().String() // the real port when --addr asked for :0
	url := "http://" + bound + "/"
	fmt.Fprintf(env.stderr, "loci hub: serving the Memory Hub at %s for the palaces in %s (Ctrl-C to stop)\n", url, reg.DataDir())
	tokenHint()
	if !*noOpen {
		openBrowser(env.stderr, url)
	}
	serve := func(ctx context.Context) error {
		defer reg.Close()
		return hs.Serve(ctx, ln)
	}
	r := hubResult(url, bound, true)
	r.data.(map[string]any)["data_dir"] = reg.DataDir()
	return r, serve, nil
}

func hubResult(url, addr string, started bool) *result {
	return &result{
		data: map[string]any{"url": url, "addr": addr, "started": started},
		text: func(w io.Writer) {
			if started {
				fmt.Fprintf(w, "Memory Hub: %s\n", url)
			} else {
				fmt.Fprintf(w, "Memory Hub: %s (served by the running companion)\n", url)
			}
		},
	}
}

// companionAnswers reports whether a loci companion answers /health at
// addr.
func companionAnswers(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/health", nil)
	if err != nil {
		return false
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	var h struct {
		Status string `json:"status"`
	}
	return res.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&h) == nil && h.Status == "ok"
}

// openBrowser asks the desktop to open url, without waiting for it. A
// failure is only reported: the URL is printed anyway.
func openBrowser(stderr io.Writer, url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "loci hub: could not open a browser (%v); open %s yourself\n", err, url)
		return
	}
	go cmd.Wait() // reap it
}
