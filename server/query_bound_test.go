package server_test

import (
	"net/url"
	"strings"
	"testing"
)

// Every MCP tool and resource that takes a query refuses one over 16 KiB
// with a clear error that does not echo it, and accepts 16 KiB exactly. (A
// 10 MB query once took 19 s and stayed in memory; see issue 13.)
func TestQueryLengthIsBounded(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	var rem struct {
		DrawerID string `json:"drawer_id"`
	}
	ps.callTool(t, 1, "memory_remember", map[string]any{"text": "We deploy the API every Friday"}, &rem)
	const limit = 16 << 10
	long := strings.Repeat("deploy ", limit/7+1)[:limit+1]
	okQuery := long[:limit]
	id := 10
	send := func(method string, params map[string]any) (string, bool) {
		id++
		msg, failed := ps.rpc(t, id, method, params)
		if failed && len(msg) > 1024 {
			t.Errorf("%s: a %d-byte error message (the query echoed?)", method, len(msg))
		}
		return msg, !failed
	}
	tools := []struct{ name, arg string }{
		{"memory_recall", "query"}, {"memory_recall_deep", "query"}, {"mem_search", "query"},
		{"mem_context", "query"}, {"recall", "query"},
	}
	for _, tc := range tools {
		if msg, ok := send("tools/call", map[string]any{"name": tc.name, "arguments": map[string]any{tc.arg: long}}); ok ||
			!strings.Contains(msg, "16384") {
			t.Errorf("%s with a %d-byte query: ok=%v %q; want a refusal naming the 16384-byte limit", tc.name, len(long), ok, msg)
		}
		if msg, ok := send("tools/call", map[string]any{"name": tc.name, "arguments": map[string]any{tc.arg: okQuery}}); !ok {
			t.Errorf("%s with a %d-byte query: %q", tc.name, len(okQuery), msg)
		}
	}
	for _, uri := range []string{"mem://search?q=", "mem://search?query="} {
		if msg, ok := send("resources/read", map[string]any{"uri": uri + url.QueryEscape(long)}); ok || !strings.Contains(msg, "16384") {
			t.Errorf("%s with a %d-byte query: ok=%v %q", uri, len(long), ok, msg)
		}
	}
}
