package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/rs/zerolog"
)

// A prompt hook that runs out of time on a cold palace (its indexes never
// built and saved, so every hook process built them from the store and
// exited before it could save them) starts a warm-up of its own, and the
// next prompt finds the indexes saved and is answered in time. Real
// processes: the hook, and the `loci palace warm` it starts.
func TestAColdPalaceIsWarmedForTheNextPrompt(t *testing.T) {
	home := t.TempDir()
	repo, reg, p := projectPalace(t, home)
	ctx := context.Background()
	var ds []*palace.Drawer
	for i := range 3000 {
		ds = append(ds, &palace.Drawer{Kind: palace.KindTurn, SessionID: fmt.Sprintf("s%d", i%50),
			Content: fmt.Sprintf("User: how is the staging deploy %d going\n\nAssistant: the database migration %d ran on staging; rollback plan %d is ready", i, i, i)})
	}
	if err := p.AddMany(ctx, ds); err != nil {
		t.Fatal(err)
	}
	dir := p.Dir()
	reg.Close()
	snapshot := func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "keywords*.bm25"))
		return len(m) > 0
	}
	if snapshot() {
		t.Fatal("the palace should start without a keyword snapshot")
	}

	prompt := func(budget string) string {
		in, _ := json.Marshal(map[string]any{"session_id": "other", "cwd": repo, "hook_event_name": "UserPromptSubmit",
			"prompt": "how did the database migration on staging go"})
		cmd := exec.Command(os.Args[0], "hook", "prompt-submit", "--budget", budget)
		cmd.Env = append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home, "LOCI_EMBEDDER=hash")
		cmd.Stdin = bytes.NewReader(in)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("hook: %v\n%s", err, stderr.String())
		}
		return out.String()
	}
	// A budget too short to build the keyword index of 3,000 drawers.
	if out := prompt("200ms"); strings.Contains(out, "additionalContext") {
		t.Fatalf("the cold palace answered within 200 ms: %s (the test shows nothing)", out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !snapshot() || fileExists(filepath.Join(dir, warmLockFile)) {
		if time.Now().After(deadline) {
			t.Fatalf("no keyword snapshot a minute after the hook ran out of time (lock held: %v)", fileExists(filepath.Join(dir, warmLockFile)))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out := prompt("5s"); !strings.Contains(out, "additionalContext") {
		t.Fatalf("after the warm-up the prompt recalled nothing: %s", out)
	}
}

// projectPalace makes a git repository "project" in home and opens its
// palace (the one the hooks of that repository use) in the data dir home.
func projectPalace(t testing.TB, home string) (repo string, reg *palace.Registry, p *palace.Palace) {
	t.Helper()
	repo = filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	reg, err := openRegistry(homeFlags{dataDir: home}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err = reg.OpenOrCreate(context.Background(), autoPalace(repo))
	if err != nil {
		t.Fatal(err)
	}
	return repo, reg, p
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// `loci palace warm NAME` builds a palace's indexes and saves them, and
// releases a warm-up lock it finds; a palace that does not exist is an
// error in the CLI's envelope.
func TestPalaceWarm(t *testing.T) {
	home := t.TempDir()
	_, reg, p := projectPalace(t, home)
	// Enough for a snapshot (palace.snapshotMinEntries): below that,
	// building from the store is instant and nothing is saved.
	var ds []*palace.Drawer
	for i := range 1200 {
		ds = append(ds, &palace.Drawer{Content: fmt.Sprintf("the staging deploy %d runs on Tuesdays", i)})
	}
	if err := p.AddMany(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	dir, name := p.Dir(), p.Name()
	reg.Close()
	if err := os.WriteFile(filepath.Join(dir, warmLockFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runLociOnce(t, home, []string{"LOCI_EMBEDDER=hash"}, "", "palace", "warm", name, "--format", "json")
	if code != 0 || !strings.Contains(out, `"ok":true`) || !strings.Contains(out, `"took_ms"`) {
		t.Fatalf("palace warm: exit %d\n%s%s", code, out, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "keywords*.bm25")); len(m) == 0 {
		t.Error("no keyword snapshot after the warm-up")
	}
	if fileExists(filepath.Join(dir, warmLockFile)) {
		t.Error("the warm-up left its lock")
	}
	if b, err := os.ReadFile(filepath.Join(dir, warmedFile)); err != nil || strings.TrimSpace(string(b)) == "" {
		t.Errorf("the warm-up left no record of how long it took: %q, %v", b, err)
	}
	out, _, code = runLociOnce(t, home, nil, "", "palace", "warm", "no-such-palace", "--format", "json")
	if code == 0 || !strings.Contains(out, `"not_found"`) {
		t.Errorf("warming a palace that does not exist: exit %d %s", code, out)
	}
}

// A hook that runs out of time starts a warm-up unless one is running, or
// the last one ended less than ten times its own length ago: a palace too
// large for any hook's budget is not warmed one warm-up after the other.
func TestWarmUpsAreSpacedOut(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	lock, warmed := filepath.Join(dir, warmLockFile), filepath.Join(dir, warmedFile)
	at := func(path string, ago time.Duration) {
		t.Helper()
		if err := os.Chtimes(path, now.Add(-ago), now.Add(-ago)); err != nil {
			t.Fatal(err)
		}
	}
	if !warmDue(dir, now) {
		t.Fatal("a palace never warmed is not due a warm-up")
	}
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	at(lock, time.Minute)
	if warmDue(dir, now) {
		t.Error("a warm-up is due while another runs")
	}
	at(lock, warmLockAge+time.Minute)
	if !warmDue(dir, now) {
		t.Error("a lock older than warmLockAge still holds")
	}
	os.Remove(lock)

	warmEnded(dir, 3*time.Second) // a warm-up of three seconds ends now
	if fileExists(lock) {
		t.Error("warmEnded left the lock")
	}
	for _, c := range []struct {
		ago time.Duration
		due bool
	}{{0, false}, {29 * time.Second, false}, {31 * time.Second, true}} {
		at(warmed, c.ago)
		if got := warmDue(dir, now); got != c.due {
			t.Errorf("%v after a warm-up of 3 s: due %v, want %v", c.ago, got, c.due)
		}
	}
	// A record no warm-up wrote is no record.
	if err := os.WriteFile(warmed, []byte("soon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !warmDue(dir, now) {
		t.Error("an unreadable record stopped warm-ups")
	}
}
