package claudecode_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hooks "github.com/loci-mem/loci/cmd/loci/claudecode"
	"github.com/loci-mem/loci/palace"
)

// Turns are every turn of a transcript: between boundaries, the last one
// open while it is written; without boundaries, a turn at each prompt
// after a reply.
func TestTurns(t *testing.T) {
	t.Parallel()
	entries, _ := hooks.ParseTranscript(fixture(t, "turn1.jsonl", "turn2.jsonl"))
	turns := hooks.Turns(entries)
	if len(turns) != 2 || turns[0].ID != "u1" || turns[0].User != turn1User || !turns[0].Complete || turns[1].ID != "u4" || !turns[1].Complete {
		t.Fatalf("turns %+v", turns)
	}
	if last, _ := hooks.LastTurn(entries); last != turns[1] {
		t.Errorf("the last of Turns %+v is not LastTurn's %+v", turns[1], last)
	}
	open, _ := hooks.ParseTranscript(fixture(t, "writing.jsonl"))
	if turns := hooks.Turns(open); len(turns) != 2 || !turns[0].Complete || turns[1].Complete {
		t.Errorf("a transcript being written: %+v", turns)
	}
	var unbounded []string
	for _, line := range strings.SplitAfter(string(fixture(t, "turn1.jsonl", "turn2.jsonl")), "\n") {
		if !strings.Contains(line, `"turn_duration"`) {
			unbounded = append(unbounded, line)
		}
	}
	entries, _ = hooks.ParseTranscript([]byte(strings.Join(unbounded, "")))
	if turns := hooks.Turns(entries); len(turns) != 2 || turns[0].User != turn1User || turns[0].Assistant != turn1Assistant || turns[1].ID != "u4" {
		t.Errorf("a transcript without boundaries: %+v", turns)
	}
}

// A transcript imported is stored as the hooks store a session: its turns
// (one the Stop hook saved already is the same drawer, not stored twice),
// the session buffer flushed and the session summarised; importing it again
// stores nothing.
func TestImportTranscript(t *testing.T) {
	t.Parallel()
	reg := mustRegistry(t)
	ctx := context.Background()
	now := mustTime(t, "2026-02-10T09:00:00Z")
	r := newRunner(reg, now)
	if _, err := r.Run(ctx, hooks.EventStop, hooks.Input{SessionID: sid, TranscriptPath: writeFile(t, fixture(t, "turn1.jsonl")), HookEventName: hooks.EventStop}); err != nil {
		t.Fatal(err)
	}
	p, err := reg.Open(ctx, "proj")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.WriteFile(path, fixture(t, "turn1.jsonl", "turn2.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, warnings, err := hooks.ImportTranscript(ctx, p, path, hooks.Owners{}, now)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("import: %v, %v", err, warnings)
	}
	if st != (hooks.ImportStats{Session: sid, Turns: 2, Stored: 1, Skipped: 1, Summary: true}) {
		t.Errorf("import: %+v", st)
	}
	if n, _ := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindTurn}}); n != 2 {
		t.Errorf("%d turn drawers, want 2", n)
	}
	summary, err := p.Get(ctx, hooks.SessionDrawerID(sid))
	if err != nil || !strings.Contains(summary.Content, "2 turns") || !strings.Contains(summary.Content, "ended: imported") {
		t.Errorf("summary %q (%v)", summary.Content, err)
	}
	again, _, err := hooks.ImportTranscript(ctx, p, path, hooks.Owners{}, now)
	if err != nil || again != (hooks.ImportStats{Session: sid, Turns: 2, Skipped: 2}) {
		t.Errorf("imported again: %+v, %v", again, err)
	}
	if _, _, err := hooks.ImportTranscript(ctx, p, filepath.Join(t.TempDir(), "none.jsonl"), hooks.Owners{}, now); err == nil {
		t.Error("a missing transcript imported")
	}
}
