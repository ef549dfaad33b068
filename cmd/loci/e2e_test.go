package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

func TestEOFExitsZero(t *testing.T) {
	t.Parallel()
	p := startLoci(t, t.TempDir(), nil, "serve", "--palace", "eof")
	p.initialize()
	start := time.Now()
	if code := p.closeAndWait(3 * time.Second); code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
	t.Logf("exited %v after EOF", time.Since(start))
}

// TestSIGTERMDuringSlowCall: the call that is running completes and is
// answered, then the process exits 0, all within 3 s.
func TestSIGTERMDuringSlowCall(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startLoci(t, t.TempDir(), []string{"LOCI_DEBUG_TOOL_DELAY_MS=1200"}, "serve", "--palace", "slow")
			p.initialize()
			p.send(`{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"memory_remember","arguments":{"text":"written during shutdown"}}}`)
			palacetest.WaitFor(t, 10*time.Second, "the call to sleep inside the tool", func() bool {
				return strings.Contains(p.stderr.String(), "tool call delayed")
			})
			start := time.Now()
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			line := p.next(3 * time.Second)
			if !strings.Contains(line, `"id":77`) || !strings.Contains(line, `stored`) {
				t.Fatalf("in-flight call not completed: %s", line)
			}
			if code := p.wait(3 * time.Second); code != 0 {
				t.Fatalf("exit code %d, want 0", code)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("shutdown took %v", d)
			}
		})
	}
}

// TestCancelledCallGetsNoResponse: a request cancelled while running is not
// answered; the next request is.
func TestCancelledCallGetsNoResponse(t *testing.T) {
	t.Parallel()
	p := startLoci(t, t.TempDir(), []string{"LOCI_DEBUG_TOOL_DELAY_MS=500"}, "serve", "--palace", "cancel")
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"palace_list","arguments":{}}}`)
	palacetest.WaitFor(t, 10*time.Second, "call 5 to run", func() bool { return strings.Contains(p.stderr.String(), "tool call delayed") })
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user gave up"}}`)
	p.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"palace_list","arguments":{}}}`)
	line := p.next(5 * time.Second)
	if !strings.Contains(line, `"id":6`) {
		t.Fatalf("got %s, want the response to id 6 only", line)
	}
	if code := p.closeAndWait(3 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestInvalidUTF8IsParseError(t *testing.T) {
	t.Parallel()
	p := startLoci(t, t.TempDir(), nil, "serve")
	p.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\xfe\"}")
	line := p.next(5 * time.Second)
	if !strings.Contains(line, `"code":-32700`) || !strings.Contains(line, `"id":null`) {
		t.Fatalf("got %s", line)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if line := p.next(5 * time.Second); !strings.Contains(line, `"id":2`) {
		t.Fatalf("server did not recover: %s", line)
	}
	p.closeAndWait(3 * time.Second)
}

// TestTwoProcessesOnePalace: two servers write one palace concurrently;
// nothing is lost and each recalls the other's drawers.
func TestTwoProcessesOnePalace(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t, "shared")
	const n = 40
	var wg sync.WaitGroup
	for i, p := range []*proc{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < n; j++ {
				p.tool("memory_remember", map[string]any{"text": fmt.Sprintf("process %c wrote note %d about the quokka migration", 'A'+i, j)}, nil)
			}
		}()
	}
	wg.Wait()
	for i, p := range []*proc{a, b} {
		var list struct {
			Total int `json:"total"`
		}
		p.tool("memory_list", map[string]any{"limit": 1}, &list)
		if list.Total != 2*n {
			t.Fatalf("process %d sees %d drawers, want %d", i, list.Total, 2*n)
		}
		other := 'B' - rune(i)
		var rec struct {
			Results []struct{ Content string } `json:"results"`
		}
		p.tool("memory_recall", map[string]any{"query": fmt.Sprintf("process %c quokka migration", other), "top_k": 5}, &rec)
		found := false
		for _, r := range rec.Results {
			found = found || strings.HasPrefix(r.Content, fmt.Sprintf("process %c", other))
		}
		if !found {
			t.Fatalf("process %d does not recall the other's drawers: %+v", i, rec.Results)
		}
	}
	a.closeAndWait(3 * time.Second)
	b.closeAndWait(3 * time.Second)
}

// twoServers starts two `loci serve` processes on one palace of a new
// data dir, initialized, and returns the dir.
func twoServers(t *testing.T, name string) (string, *proc, *proc) {
	t.Helper()
	home := t.TempDir()
	a := startLoci(t, home, nil, "serve", "--palace", name)
	b := startLoci(t, home, nil, "serve", "--palace", name)
	a.initialize()
	b.initialize()
	return home, a, b
}

// TestKill9KeepsAcknowledgedWrites: SIGKILL in the middle of a stream of
// writes loses nothing that was acknowledged, and a corrupt index snapshot
// is rebuilt on the next start.
func TestKill9KeepsAcknowledgedWrites(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := startLoci(t, home, nil, "serve", "--palace", "crash")
	p.initialize()
	var acked []string
	for i := 0; i < 60; i++ {
		var r struct {
			DrawerID string `json:"drawer_id"`
		}
		p.tool("memory_remember", map[string]any{"text": fmt.Sprintf("durable fact number %d about the walrus", i)}, &r)
		acked = append(acked, r.DrawerID)
		if i == 30 {
			p.tool("memory_recall", map[string]any{"query": "walrus"}, nil) // load the index mid-stream
		}
	}
	// One more write is in flight when the process dies.
	p.send(`{"jsonrpc":"2.0","id":999,"method":"tools/call","params":{"name":"memory_remember","arguments":{"text":"maybe"}}}`)
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	// Damage the index snapshot if one exists: it is only a cache.
	snap := filepath.Join(home, "palaces", "crash", "vectors.idx")
	if _, err := os.Stat(snap); err == nil {
		os.WriteFile(snap, []byte("garbage"), 0o600)
	}

	q := startLoci(t, home, nil, "serve", "--palace", "crash")
	q.initialize()
	var list struct {
		Drawers []struct {
			DrawerID string `json:"drawer_id"`
		} `json:"drawers"`
	}
	q.tool("memory_list", map[string]any{"limit": 1000}, &list)
	have := map[string]bool{}
	for _, d := range list.Drawers {
		have[d.DrawerID] = true
	}
	for _, id := range acked {
		if !have[id] {
			t.Fatalf("acknowledged drawer %s lost after kill -9", id)
		}
	}
	var rec struct {
		Results []json.RawMessage `json:"results"`
	}
	q.tool("memory_recall", map[string]any{"query": "durable fact about the walrus", "top_k": 100}, &rec)
	if len(rec.Results) < len(acked) {
		t.Fatalf("recall after restart returned %d results, want at least %d", len(rec.Results), len(acked))
	}
	q.closeAndWait(3 * time.Second)
}

func TestBootFailures(t *testing.T) {
	t.Parallel()
	t.Run("unwritable data dir", func(t *testing.T) {
		if os.Geteuid() == 0 {
			// root ignores permissions: use a path under a regular file.
			f := filepath.Join(t.TempDir(), "file")
			os.WriteFile(f, []byte("x"), 0o600)
			p := startLoci(t, filepath.Join(f, "home"), nil, "serve", "--palace", "x")
			if code := p.wait(5 * time.Second); code != 1 {
				t.Fatalf("exit %d, want 1", code)
			}
			if !strings.Contains(p.stderr.String(), "data dir") {
				t.Fatalf("stderr does not explain: %s", p.stderr.String())
			}
			return
		}
		dir := t.TempDir()
		os.Chmod(dir, 0o500)
		defer os.Chmod(dir, 0o700)
		p := startLoci(t, filepath.Join(dir, "home"), nil, "serve", "--palace", "x")
		if code := p.wait(5 * time.Second); code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
	})
	t.Run("corrupt palace", func(t *testing.T) {
		home := t.TempDir()
		dir := filepath.Join(home, "palaces", "bad")
		os.MkdirAll(dir, 0o700)
		os.WriteFile(filepath.Join(dir, "palace.db"), []byte(strings.Repeat("this is not a database ", 400)), 0o600)
		p := startLoci(t, home, nil, "serve", "--palace", "bad")
		if code := p.wait(5 * time.Second); code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		if !strings.Contains(p.stderr.String(), "bad") {
			t.Fatalf("stderr does not name the palace: %s", p.stderr.String())
		}
	})
	t.Run("unsafe palace name", func(t *testing.T) {
		p := startLoci(t, t.TempDir(), nil, "serve", "--palace", "../escape")
		if code := p.wait(5 * time.Second); code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
	})
}

// TestServeEmbedsLongTextsLater: `loci serve` answers memory_remember of a
// long text before its vectors are made, makes them in the background (its
// debug log says so), and finds the text by meaning afterwards; stdin EOF
// while a second one is being embedded still exits 0 within 3 s.
func TestServeEmbedsLongTextsLater(t *testing.T) {
	t.Parallel()
	p := startLoci(t, t.TempDir(), nil, "serve", "--palace", "long")
	p.initialize()
	var b strings.Builder
	words := strings.Fields("the build queue drained after the cache warmed and the workers logged each retry")
	for i := 0; i < 5000; i++ {
		if i == 2500 {
			b.WriteString("Our zeppelin hangar doors jammed on Thursday morning. ")
		}
		b.WriteString(words[i%len(words)] + " ")
	}
	var stored struct {
		DrawerID string `json:"drawer_id"`
	}
	p.tool("memory_remember", map[string]any{"text": b.String()}, &stored)
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(p.stderr.String(), "long text embedded in the background") {
		if time.Now().After(deadline) {
			t.Fatal("no background embedding was logged: was the long text embedded inline?")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var found struct {
		Results []struct {
			DrawerID string `json:"drawer_id"`
		} `json:"results"`
	}
	p.tool("memory_recall_deep", map[string]any{"query": "zeppelin hangar doors jammed", "top_k": 3}, &found)
	if len(found.Results) == 0 || found.Results[0].DrawerID != stored.DrawerID {
		t.Fatalf("the long text is not found after its vectors were made: %+v", found)
	}
	p.tool("memory_remember", map[string]any{"text": b.String() + " again"}, nil)
	start := time.Now()
	if code := p.closeAndWait(3 * time.Second); code != 0 {
		t.Fatalf("exit code %d after EOF during a background embedding", code)
	}
	t.Logf("exited %v after EOF during a background embedding", time.Since(start))
}

// LOCI_MAX_CONTENT_CHARS bounds the memories a served memory_recall
// returns (server/clip.go), and a value that is not a count stops the
// server before it answers anything.
func TestServeBoundsContent(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bad := startLoci(t, home, []string{"LOCI_MAX_CONTENT_CHARS=-5"}, "serve", "--palace", "p")
	if code := bad.wait(30 * time.Second); code != 1 || !strings.Contains(bad.stderr.String(), "LOCI_MAX_CONTENT_CHARS") {
		t.Fatalf("LOCI_MAX_CONTENT_CHARS=-5: exit %d, stderr %q; want 1 and the variable named", code, bad.stderr.String())
	}

	p := startLoci(t, home, []string{"LOCI_MAX_CONTENT_CHARS=400"}, "serve", "--palace", "p")
	p.initialize()
	text := "Release notes, sprint 41\n" + strings.Repeat("Minor fixes to the settings page. ", 150) +
		"The zeppelin telemetry exporter now batches its uploads. " + strings.Repeat("Copy edits. ", 99) + "Copy edits."
	p.tool("memory_remember", map[string]any{"text": text}, nil)
	var got struct {
		Results []struct {
			Content   string `json:"content"`
			Truncated bool   `json:"content_truncated"`
			Chars     int    `json:"content_chars"`
		} `json:"results"`
	}
	p.tool("memory_recall", map[string]any{"query": "zeppelin telemetry exporter"}, &got)
	if len(got.Results) != 1 {
		t.Fatalf("%d results; want the one memory", len(got.Results))
	}
	r := got.Results[0]
	if n := len([]rune(r.Content)); n > 400 || !r.Truncated || r.Chars != len([]rune(text)) ||
		!strings.Contains(r.Content, "zeppelin telemetry exporter") {
		t.Errorf("content of %d characters, truncated %t, content_chars %d (whole %d): %q",
			n, r.Truncated, r.Chars, len([]rune(text)), r.Content)
	}
	got.Results = nil // a field left out must not keep the last answer's value
	p.tool("memory_recall", map[string]any{"query": "zeppelin telemetry exporter", "max_content_chars": 0}, &got)
	if len(got.Results) != 1 || got.Results[0].Content != text || got.Results[0].Truncated {
		t.Errorf("max_content_chars 0 did not return the whole text")
	}
}

// A wall clock without a zone is read in the zone of the machine loci runs
// in: a text remembered in New York as "[30/05/2023, 00:30] Ana: …"
// happened at 04:30 UTC, and is recalled by a question about 30 May. A
// WhatsApp export imported there is read the same way, or in the zone
// --tz names; imported again in another zone, it stores nothing twice.
func TestWallClocksAreThisMachines(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	newYork := []string{"TZ=America/New_York"}
	p := startLoci(t, home, newYork, "serve", "--palace", "tz")
	p.initialize()
	var stored struct {
		DrawerID string `json:"drawer_id"`
	}
	p.tool("memory_remember", map[string]any{"text": "[30/05/2023, 00:30] Ana: the plumber finally fixed the leak"}, &stored)
	p.tool("memory_remember", map[string]any{"text": "(29 May, 2023) Ana: booked the plumber for tomorrow"}, nil)
	var found struct {
		Results []struct {
			DrawerID  string `json:"drawer_id"`
			Timestamp string `json:"timestamp"`
		} `json:"results"`
	}
	p.tool("memory_recall", map[string]any{"query": "what happened on 30 May 2023?", "top_k": 1}, &found)
	if len(found.Results) != 1 || found.Results[0].DrawerID != stored.DrawerID || found.Results[0].Timestamp != "2023-05-30T04:30:00Z" {
		t.Errorf("recall in New York: %+v; want the text written at 00:30 there, 04:30 UTC", found.Results)
	}
	if code := p.closeAndWait(10 * time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	chat := filepath.Join(t.TempDir(), "WhatsApp Chat with Ana.txt")
	os.WriteFile(chat, []byte("30/05/2023, 00:30 - Ana: the plumber finally fixed the leak\n30/05/2023, 00:32 - Ben: at half past midnight?\n"), 0o600)
	importAt := func(env []string, args ...string) cliEnvelope {
		t.Helper()
		stdout, stderr, code := runLociOnce(t, home, append(append([]string{}, cliEnvVars...), env...), "",
			append([]string{"import", chat, "--palace", "chats", "--format", "json"}, args...)...)
		var out cliEnvelope
		if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != 0 {
			t.Fatalf("import %v: %d %s %s", args, code, stdout, stderr)
		}
		return out
	}
	first := func(e cliEnvelope) string { return e.Data["chats"].([]any)[0].(map[string]any)["first"].(string) }
	if e := importAt(newYork, "--dry-run"); first(e) != "2023-05-30T04:30:00Z" {
		t.Errorf("read in New York: first message at %s, want 04:30 UTC", first(e))
	}
	if e := importAt(newYork, "--dry-run", "--tz", "Asia/Tokyo"); first(e) != "2023-05-29T15:30:00Z" {
		t.Errorf("read with --tz Asia/Tokyo: first message at %s, want 15:30 UTC the day before", first(e))
	}
	if e := importAt(newYork); e.Data["stats"].(map[string]any)["stored"] != float64(2) {
		t.Errorf("import in New York: %v", e.Data["stats"])
	}
	if e := importAt([]string{"TZ=UTC"}); e.Data["stats"].(map[string]any)["stored"] != float64(0) || e.Data["stats"].(map[string]any)["skipped"] != float64(2) {
		t.Errorf("the same export imported again in UTC: %v, want both messages skipped", e.Data["stats"])
	}
	stdout, _, code := runLociOnce(t, home, cliEnvVars, "", "import", chat, "--palace", "chats", "--tz", "Mars/Olympus", "--format", "json")
	if code != 2 || !strings.Contains(stdout, "--tz Mars/Olympus names no time zone") {
		t.Errorf("--tz Mars/Olympus: %d %s", code, stdout)
	}
}

// A conversation stored through two processes, each text naming its
// session (memory_remember's session), is read as one: the reply one
// process stores borrows the message the other stored before it, which
// a connection, the process's own, could not give it.
func TestSessionSpansProcesses(t *testing.T) {
	t.Parallel()
	home, a, b := twoServers(t, "shared")
	var asked, answered, alone struct {
		DrawerID string `json:"drawer_id"`
	}
	a.tool("memory_remember", map[string]any{"text": "Ana: do you still go rock climbing on weekends?", "session": "weekend"}, &asked)
	b.tool("memory_remember", map[string]any{"text": "Ben: yes, every spring in Yosemite", "session": "weekend"}, &answered)
	b.tool("memory_remember", map[string]any{"text": "Ben: and the sea kayak in August"}, &alone)
	a.closeAndWait(3 * time.Second)
	b.closeAndWait(3 * time.Second)
	reg, err := palace.OpenRegistry(palace.Config{DataDir: home})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, err := reg.Open(context.Background(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id     string
		borrow bool
	}{{answered.DrawerID, true}, {alone.DrawerID, false}} {
		d, err := p.Get(context.Background(), c.id)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(d.Keywords, "rock climbing"); got != c.borrow {
			t.Errorf("%q keywords %q: borrowed the other process's question %v, want %v", d.Content, d.Keywords, got, c.borrow)
		}
	}
}
