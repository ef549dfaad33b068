package server_test

import (
	"bufio"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/server"
	"github.com/loci-mem/loci/server/mcptest"
)

var update = flag.Bool("update", false, "rewrite the server sections of testdata/transcripts with the current output")

// TestTranscripts replays every testdata/transcripts/*.txtar against the
// server in this process, over pipes, as `loci serve` would run it. A
// transcript has sections:
//
//	-- args --    the serve command line after "loci" (only --palace counts here)
//	-- env --     optional KEY=VALUE lines
//	-- client --  one JSON-RPC message per line (blank and # lines skipped);
//	              $DRAWER_ID is replaced by the latest drawer_id seen
//	-- server --  the expected responses, normalised (mcptest.Normalize)
//
// A notification gets no response; any other line exactly one. `go test
// ./server -run Transcripts -args -update` rewrites the server sections.
// cmd/loci replays some of them through a real process too, for framing.
//
// Not parallel: a transcript's env (LOCI_AUTOPROMOTE) is the process's.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("../testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) { replay(t, file) })
	}
}

func replay(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := mcptest.ParseTxtar(raw)
	cfg := server.Config{Version: "test", Logger: zerolog.Nop()}
	args := strings.Fields(ar.Get("args"))
	for i, a := range args {
		if (a == "--palace" || a == "-palace") && i+1 < len(args) {
			cfg.DefaultPalace = args[i+1]
		}
	}
	for _, l := range mcptest.Lines(ar.Get("env")) {
		k, v, _ := strings.Cut(l, "=")
		if k == "LOCI_DEBUG_TOOL_DELAY_MS" {
			ms, _ := strconv.Atoi(v)
			cfg.ToolDelay = time.Duration(ms) * time.Millisecond
			continue
		}
		t.Setenv(k, v)
	}
	home := t.TempDir()
	// The hash embedder: deterministic and weight-free, identical on every
	// CPU, as cmd/loci's process replays use.
	reg, err := palace.OpenRegistry(palace.Config{DataDir: home, Embedder: embed.NewHash(embed.HashDim), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if cfg.DefaultPalace != "" { // as serve does: the default palace exists from the start
		if _, err := reg.OpenOrCreate(context.Background(), cfg.DefaultPalace); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Registry = reg
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	responses := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			responses <- sc.Text()
		}
		close(responses)
	}()

	var got []string
	drawerID := ""
	for _, line := range mcptest.Lines(ar.Get("client")) {
		line = strings.ReplaceAll(line, "$DRAWER_ID", drawerID)
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if mcptest.IsNotification(line) {
			continue
		}
		var out string
		select {
		case r, ok := <-responses:
			if !ok {
				t.Fatalf("the server stopped before answering %s", line)
			}
			out = r
		case <-time.After(20 * time.Second):
			t.Fatalf("no response to %s", line)
		}
		if id := mcptest.FindDrawerID(out); id != "" {
			drawerID = id
		}
		got = append(got, mcptest.Normalize(t, out, home))
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("ServeStdio after EOF: %v", err)
	}
	if extra, ok := <-responses; ok {
		t.Errorf("a response nobody asked for: %s", extra)
	}

	want := mcptest.Lines(ar.Get("server"))
	if *update {
		ar.Set("server", strings.Join(got, "\n")+"\n")
		if err := os.WriteFile(file, ar.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%d responses, golden has %d (run with -update to accept):\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("response %d differs\n got: %s\nwant: %s", i+1, got[i], want[i])
		}
	}
}
