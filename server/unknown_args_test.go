package server_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// An argument a tool does not take is ignored, as JSON Schema allows, and
// said to be: the result is what the call without it gives, with
// "warnings" naming it and the argument it likely meant; a markdown result
// ends with the same sentences; a failure's message goes on with them
// after the contract's own text, and stores nothing.
func TestUnknownArgumentsAreNamed(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	var rem struct {
		DrawerID string `json:"drawer_id"`
	}
	ps.callTool(t, 1, "memory_remember", map[string]any{"text": "We deploy the billing API every Friday", "room": "ops"}, &rem)
	ps.callTool(t, 2, "memory_remember", map[string]any{"text": "The billing API runs on PostgreSQL 16"}, &rem)

	plain, failed := ps.rpc(t, 3, "tools/call", map[string]any{"name": "memory_recall", "arguments": map[string]any{"query": "billing API"}})
	if failed || strings.Contains(plain, "warnings") {
		t.Fatalf("memory_recall without unknown arguments: %s", plain)
	}
	text, failed := ps.rpc(t, 4, "tools/call", map[string]any{"name": "memory_recall", "arguments": map[string]any{
		"query": "billing API", "k": 1, "tags": []string{"x"}, "room_name": "ops",
	}})
	if failed {
		t.Fatalf("memory_recall with unknown arguments failed: %s", text)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	var warnings []string
	json.Unmarshal(got["warnings"], &warnings)
	want := []string{
		"unknown argument 'k' ignored; did you mean 'top_k'?",
		"unknown argument 'room_name' ignored; did you mean 'room'?",
		"unknown argument 'tags' ignored; did you mean 'tag'?",
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
	delete(got, "warnings")
	var without map[string]json.RawMessage
	json.Unmarshal([]byte(plain), &without)
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(without)
	if string(a) != string(b) {
		t.Errorf("the unknown arguments changed the result:\n%s\nagainst\n%s", a, b)
	}
	if !strings.HasSuffix(text, `"warnings":["unknown argument 'k' ignored; did you mean 'top_k'?","unknown argument 'room_name' ignored; did you mean 'room'?","unknown argument 'tags' ignored; did you mean 'tag'?"]}`) {
		t.Errorf("warnings are not the last member: %s", text)
	}

	// No near name: the tool's arguments are listed.
	text, _ = ps.rpc(t, 5, "tools/call", map[string]any{"name": "memory_list", "arguments": map[string]any{"flavour": "x"}})
	if !strings.Contains(text, "unknown argument 'flavour' ignored; memory_list takes palace, room, tag, session, speaker, limit, max_content_chars") {
		t.Errorf("memory_list flavour: %s", text)
	}

	// A markdown result ends with the note.
	text, failed = ps.rpc(t, 6, "tools/call", map[string]any{"name": "mem_search", "arguments": map[string]any{"query": "billing", "limit": 1}})
	if failed || !strings.HasPrefix(text, "# ") || !strings.HasSuffix(text, "\n\n> Note: unknown argument 'limit' ignored; did you mean 'topK'?\n") {
		t.Errorf("mem_search limit: %q", text)
	}

	// A failure says why the required argument is missing, and stores nothing.
	text, failed = ps.rpc(t, 7, "tools/call", map[string]any{"name": "memory_remember", "arguments": map[string]any{"content": "We ship on Tuesdays"}})
	if !failed || text != "memory_remember: missing 'text' (unknown argument 'content' ignored; did you mean 'text'?)" {
		t.Errorf("memory_remember content: failed %v, %q", failed, text)
	}
	text, failed = ps.rpc(t, 8, "tools/call", map[string]any{"name": "memory_forget", "arguments": map[string]any{"id": rem.DrawerID}})
	if !failed || text != "memory_forget: missing 'drawer_id' (unknown argument 'id' ignored; did you mean 'drawer_id'?)" {
		t.Errorf("memory_forget id: failed %v, %q", failed, text)
	}
	var list struct {
		Total int `json:"total"`
	}
	ps.callTool(t, 9, "memory_list", map[string]any{}, &list)
	if list.Total != 2 {
		t.Errorf("after the refused calls the palace holds %d drawers, want 2", list.Total)
	}

	// Seed 004's results are parsed whole (the recall tool's array, the
	// remember tool's line): they are sent as they are.
	bare, _ := ps.rpc(t, 11, "tools/call", map[string]any{"name": "recall", "arguments": map[string]any{"query": "billing"}})
	text, failed = ps.rpc(t, 12, "tools/call", map[string]any{"name": "recall", "arguments": map[string]any{"query": "billing", "k": 3}})
	if failed || text != bare || !json.Valid([]byte(text)) || !strings.HasPrefix(text, "[") {
		t.Errorf("recall with an unknown argument: %q, without: %q", text, bare)
	}
	text, failed = ps.rpc(t, 13, "tools/call", map[string]any{"name": "remember", "arguments": map[string]any{"fact": "I prefer pnpm", "tags": []string{"x"}}})
	if failed || strings.Contains(text, "\n") || strings.Contains(text, "unknown") {
		t.Errorf("remember with an unknown argument: %q", text)
	}

	// An argument's name is the caller's input: a secret in it is redacted,
	// and a long one is cut.
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	long := strings.Repeat("x", 500)
	text, _ = ps.rpc(t, 10, "tools/call", map[string]any{"name": "memory_recall", "arguments": map[string]any{"query": "billing", secret: 1, long: 2}})
	if strings.Contains(text, secret) || !strings.Contains(text, "ghp_[REDACTED]") {
		t.Errorf("a secret argument name is echoed: %s", text)
	}
	if strings.Contains(text, long[:65]) || !strings.Contains(text, long[:64]+"…") {
		t.Errorf("a long argument name is not cut: %.300s", text)
	}
}
