package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// /search refuses a query over 16 KiB with a 422 that names the limit and
// does not echo the query; 16 KiB exactly is served.
func TestSearchQueryLengthIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	e.ok("/api/v1/memory/add", seedAdd(seedTS))
	e.ok("/api/v1/memory/flush", `{"session_id":"demo-002"}`)
	const limit = 16 << 10
	long := strings.Repeat("climb ", limit/6+1)[:limit+1]
	body := func(q string) string {
		b, _ := json.Marshal(map[string]any{"user_id": "alice", "query": q})
		return string(b)
	}
	msg, _ := e.fail("/api/v1/memory/search", body(long), 422)["message"].(string)
	if !strings.Contains(msg, "16384") || len(msg) > 512 {
		t.Errorf("message %q: want the 16384-byte limit named, not the query echoed", msg)
	}
	e.ok("/api/v1/memory/search", body(long[:limit]))
}
