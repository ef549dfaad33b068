package server_test

import "testing"

// Names refuse control and bidi characters on the MCP face (issue 13.7):
// room, tag, palace and fact kind; nothing is stored by a refused call.
func TestNamesRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	id := 100
	refused := func(tool string, args map[string]any) {
		t.Helper()
		id++
		if text, failed := ps.rpc(t, id, "tools/call", map[string]any{"name": tool, "arguments": args}); !failed {
			t.Errorf("%s %v was accepted: %s", tool, args, text)
		}
	}
	refused("memory_remember", map[string]any{"text": "x", "room": "R\u0000\u001b"})
	refused("memory_remember", map[string]any{"text": "x", "tags": []string{"ok", "t\u202e"}})
	refused("palace_create", map[string]any{"name": "p\u0007"})
	refused("memory_recall", map[string]any{"query": "x", "room": "R\u001b[2J"})
	refused("remember", map[string]any{"fact": "I like tea", "kind": "pref\u0000"})
	var list struct {
		Drawers []any `json:"drawers"`
	}
	ps.callTool(t, 1, "memory_list", map[string]any{}, &list)
	if len(list.Drawers) != 0 {
		t.Errorf("refused calls stored %d drawers", len(list.Drawers))
	}
}
