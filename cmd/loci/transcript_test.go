package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/server/mcptest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/ (tool schema snapshots, INTEGRATION.md's tools/list) with the current output")

// TestTranscriptsThroughAProcess replays the transcripts that exercise
// framing and the process around the server (the handshake with and
// without a default palace, notifications and cancellation, malformed
// lines) against a real `loci serve` process. Every transcript, tool
// behaviour included, is replayed in process by package server's
// TestTranscripts, which also rewrites them (`go test ./server -run
// Transcripts -args -update`).
func TestTranscriptsThroughAProcess(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"handshake", "handshake_palace", "notifications", "errors"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runTranscript(t, filepath.Join("..", "..", "testdata", "transcripts", name+".txtar"))
		})
	}
}

func runTranscript(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := mcptest.ParseTxtar(raw)
	home := t.TempDir()
	env := mcptest.Lines(ar.Get("env"))
	p := startLoci(t, home, env, strings.Fields(strings.TrimSpace(ar.Get("args")))...)
	var got []string
	drawerID := ""
	for _, line := range mcptest.Lines(ar.Get("client")) {
		line = strings.ReplaceAll(line, "$DRAWER_ID", drawerID)
		p.send(line)
		if mcptest.IsNotification(line) {
			continue
		}
		out := p.next(20 * time.Second)
		if id := mcptest.FindDrawerID(out); id != "" {
			drawerID = id
		}
		got = append(got, mcptest.Normalize(t, out, home))
	}
	if code := p.closeAndWait(5 * time.Second); code != 0 {
		t.Fatalf("exit code %d after EOF, want 0", code)
	}
	want := mcptest.Lines(ar.Get("server"))
	if len(got) != len(want) {
		t.Fatalf("%d responses, golden has %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("response %d differs\n got: %s\nwant: %s", i+1, got[i], want[i])
		}
	}
}
