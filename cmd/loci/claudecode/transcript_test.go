package claudecode_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hooks "github.com/loci-mem/loci/cmd/loci/claudecode"
)

func fixture(tb testing.TB, names ...string) []byte {
	tb.Helper()
	var out []byte
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "hooks", n))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

func writeFile(tb testing.TB, data []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "session.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

const (
	turn1User      = "How should I handle authentication in the API gateway?"
	turn1Assistant = "Validate JWT bearer tokens at the gateway and pass the user id downstream in a signed header.\n\n" +
		"Done: the middleware now lives in gateway/auth.go and rejects expired tokens with 401."
)

func TestLastTurnMultiLine(t *testing.T) {
	t.Parallel()
	entries, partial := hooks.ParseTranscript(fixture(t, "turn1.jsonl"))
	if partial {
		t.Error("complete file reported partial")
	}
	turn, ok := hooks.LastTurn(entries)
	if !ok || !turn.Complete {
		t.Fatalf("ok=%v complete=%v", ok, turn.Complete)
	}
	if turn.User != turn1User {
		t.Errorf("user = %q (tool results and meta lines must not count)", turn.User)
	}
	if turn.Assistant != turn1Assistant {
		t.Errorf("assistant = %q (text blocks only, merged)", turn.Assistant)
	}
	if turn.ID != "u1" || turn.Start.Format(time.RFC3339Nano) != "2026-02-09T02:20:16.54Z" ||
		turn.End.Format(time.RFC3339Nano) != "2026-02-09T02:20:45.2Z" {
		t.Errorf("id %q start %v end %v", turn.ID, turn.Start, turn.End)
	}
}

func TestLastTurnAfterSnapshotMidSession(t *testing.T) {
	t.Parallel()
	entries, _ := hooks.ParseTranscript(fixture(t, "turn1.jsonl", "turn2.jsonl"))
	turn, ok := hooks.LastTurn(entries)
	if !ok || !turn.Complete {
		t.Fatalf("ok=%v complete=%v", ok, turn.Complete)
	}
	if turn.User != "debug.js 如何使用?" || turn.Assistant != "运行 node debug.js --verbose 查看调试日志。\n\n日志写入 logs/debug.log。" {
		t.Errorf("turn = %+v", turn)
	}
	st := hooks.Stats(entries)
	if st.FirstPrompt != turn1User || st.Prompts != 2 {
		t.Errorf("stats = %+v", st)
	}
	if st.Start.Format(time.RFC3339Nano) != "2026-02-09T02:20:15.5Z" || st.End.Format(time.RFC3339Nano) != "2026-02-09T02:31:06.2Z" {
		t.Errorf("stats times %v .. %v", st.Start, st.End)
	}
}

func TestLastTurnStillBeingWritten(t *testing.T) {
	t.Parallel()
	data := fixture(t, "writing.jsonl")
	entries, _ := hooks.ParseTranscript(data)
	turn, ok := hooks.LastTurn(entries)
	if !ok || turn.Complete {
		t.Fatalf("ok=%v complete=%v, want the open turn", ok, turn.Complete)
	}
	if turn.User != "Raise the Redis session TTL to 30 minutes and update the docs." ||
		turn.Assistant != "Raised sessionTTL to 30 minutes in cache/session.go and noted it in docs/cache.md." {
		t.Errorf("turn = %+v", turn)
	}
	// A line cut in the middle of being written is skipped and reported.
	cut := append(append([]byte{}, data...), []byte(`{"type":"assistant","message":{"role":"assis`)...)
	entries2, partial := hooks.ParseTranscript(cut)
	if !partial || len(entries2) != len(entries) {
		t.Errorf("partial=%v entries %d, want true and %d", partial, len(entries2), len(entries))
	}
	// Before the second prompt arrived, the last turn is the first one.
	lines := strings.SplitAfter(string(data), "\n")
	entries3, _ := hooks.ParseTranscript([]byte(strings.Join(lines[:5], "")))
	if turn, ok := hooks.LastTurn(entries3); !ok || !turn.Complete || turn.ID != "w1" {
		t.Errorf("turn before the second prompt = %+v, %v", turn, ok)
	}
}

func TestLastTurnNothingToSave(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"empty":      "",
		"no prompt":  `{"type":"file-history-snapshot","messageId":"x","snapshot":{}}` + "\n" + `{"type":"system","subtype":"turn_duration","durationMs":1}`,
		"meta only":  `{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: local commands"}}`,
		"cmd output": `{"type":"user","message":{"role":"user","content":"<local-command-stdout>Total cost: $0.12</local-command-stdout>"}}`,
		"sidechain":  `{"type":"user","isSidechain":true,"message":{"role":"user","content":"subagent task"}}`,
		"not json":   "garbage\n{{{\n",
	} {
		entries, _ := hooks.ParseTranscript([]byte(doc))
		if turn, ok := hooks.LastTurn(entries); ok {
			t.Errorf("%s: got turn %+v", name, turn)
		}
	}
}

func TestAPIErrorIsNotAnAnswer(t *testing.T) {
	t.Parallel()
	doc := `{"type":"user","uuid":"q","message":{"role":"user","content":"rename the flag"}}` + "\n" +
		`{"type":"assistant","isApiErrorMessage":true,"message":{"role":"assistant","content":[{"type":"text","text":"API Error: 529 overloaded"}]}}`
	entries, _ := hooks.ParseTranscript([]byte(doc))
	if turn, ok := hooks.LastTurn(entries); !ok || turn.User != "rename the flag" || turn.Assistant != "" {
		t.Errorf("turn = %+v, %v", turn, ok)
	}
}

func TestSlashCommandPrompt(t *testing.T) {
	t.Parallel()
	doc := `{"type":"user","uuid":"c1","message":{"role":"user","content":"<command-message>loci:search is running…</command-message>\n<command-name>/loci:search</command-name>\n<command-args>redis ttl</command-args>"}}`
	entries, _ := hooks.ParseTranscript([]byte(doc))
	if turn, ok := hooks.LastTurn(entries); !ok || turn.User != "/loci:search redis ttl" {
		t.Errorf("turn = %+v, %v", turn, ok)
	}
}

// TestReadLastTurnWaitsForBoundary appends the turn_duration line while
// the reader is retrying, as Claude Code does after the Stop hook starts.
func TestReadLastTurnWaitsForBoundary(t *testing.T) {
	t.Parallel()
	data := fixture(t, "turn1.jsonl")
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	path := writeFile(t, []byte(strings.Join(lines[:len(lines)-1], "")))
	go func() {
		time.Sleep(60 * time.Millisecond) // the scenario, not a sync: the line lands between the reader's retries
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(last + "\n")
			f.Close()
		}
	}()
	turn, ok, err := hooks.ReadLastTurn(context.Background(), path, 20, 20*time.Millisecond)
	if err != nil || !ok || !turn.Complete || turn.Assistant != turn1Assistant {
		t.Fatalf("turn=%+v ok=%v err=%v", turn, ok, err)
	}
	// Without the boundary, it gives up after the attempts and returns the
	// turn as it stands.
	path2 := writeFile(t, []byte(strings.Join(lines[:len(lines)-1], "")))
	start := time.Now()
	turn, ok, err = hooks.ReadLastTurn(context.Background(), path2, 3, 20*time.Millisecond)
	if err != nil || !ok || turn.Complete || turn.User != turn1User {
		t.Fatalf("turn=%+v ok=%v err=%v", turn, ok, err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("returned after %v; it should have retried twice", d)
	}
	if _, _, err := hooks.ReadLastTurn(context.Background(), filepath.Join(t.TempDir(), "missing.jsonl"), 3, time.Millisecond); err == nil {
		t.Error("missing transcript: no error")
	}
}

// TestReadLastTurnLargeTranscript puts a 3 MiB tool result inside the last
// turn, so the tail window must grow to reach the turn's prompt.
func TestReadLastTurnLargeTranscript(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.Write(fixture(t, "turn1.jsonl"))
	b.WriteString(`{"type":"user","uuid":"big1","timestamp":"2026-02-09T03:00:00Z","message":{"role":"user","content":"Summarise the big log file."}}` + "\n")
	huge, _ := json.Marshal(strings.Repeat("log line\n", 3<<20/9))
	b.WriteString(`{"type":"user","uuid":"big2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":` + string(huge) + `}]}}` + "\n")
	b.WriteString(`{"type":"assistant","uuid":"big3","timestamp":"2026-02-09T03:00:09Z","message":{"role":"assistant","content":[{"type":"text","text":"The log is all the same line."}]}}` + "\n")
	b.WriteString(`{"type":"system","subtype":"turn_duration","uuid":"big4","timestamp":"2026-02-09T03:00:10Z"}` + "\n")
	path := writeFile(t, []byte(b.String()))
	turn, ok, err := hooks.ReadLastTurn(context.Background(), path, 1, 0)
	if err != nil || !ok || !turn.Complete {
		t.Fatalf("ok=%v err=%v turn=%+v", ok, err, turn)
	}
	if turn.ID != "big1" || turn.User != "Summarise the big log file." || turn.Assistant != "The log is all the same line." {
		t.Errorf("turn = %+v", turn)
	}
}
