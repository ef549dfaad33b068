package claudecode

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTranscript parses arbitrary bytes as a Claude Code transcript: it
// never panics, yields at most one entry per line, extracts valid text no
// larger than the input, and the statistics agree with the entries.
func FuzzTranscript(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-05-28T11:30:36Z","message":{"role":"user","content":"deploy on fridays"}}` + "\n" +
			`{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"noted"},{"type":"tool_use"}]}}` + "\n" +
			`{"type":"system","subtype":"turn_duration"}` + "\n",
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"x"}]}}`,
		`{"type":"user","isMeta":true,"message":{"role":"user","content":"<command-name>/clear</command-name>"}}`,
		"{\"type\":\"user\",\"message\":{\"content\":\"cut",
		"\xff\n\n  \n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, _ := ParseTranscript(data)
		if lines := bytes.Count(data, []byte("\n")) + 1; len(entries) > lines {
			t.Fatalf("%d entries from %d lines", len(entries), lines)
		}
		prompts := 0
		for _, e := range entries {
			if e.Kind == KindPrompt {
				prompts++
			}
			if !utf8.ValidString(e.Text) && utf8.Valid(data) {
				t.Fatalf("entry text is not valid UTF-8: %q", e.Text)
			}
		}
		if st := Stats(entries); st.Prompts > prompts {
			t.Fatalf("stats count %d prompts of %d", st.Prompts, prompts)
		}
		if turn, ok := LastTurn(entries); ok && len(turn.User)+len(turn.Assistant) > 2*len(data)+64 && !strings.Contains(string(data), `\u`) {
			t.Fatalf("turn text (%d bytes) larger than the input (%d)", len(turn.User)+len(turn.Assistant), len(data))
		}
	})
}
