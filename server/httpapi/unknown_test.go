package httpapi_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// A body's fields that its endpoint does not take are ignored, as seed
// 001's server ignores them, and named: the envelope gains "warnings",
// each with the field meant, on a success and a 4xx alike; a body with
// none gets no such member; nothing a refused body holds is stored.
func TestUnknownFieldsAreNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	e.ok("/api/v1/memory/add", seedAdd(seedTS))
	e.ok("/api/v1/memory/flush", `{"session_id":"demo-002"}`)
	e.ok("/api/v1/memory/add", `{"session_id":"s2","messages":[{"sender_id":"alice","role":"user","timestamp":1779968400000,"content":"buffered"}]}`)

	warned := func(m map[string]any, want ...string) {
		t.Helper()
		var got []string
		for _, w := range list(m["warnings"]) {
			got = append(got, w.(string))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("warnings %q, want %q", got, want)
		}
	}

	// A misspelt count and filter: the answer is the one without them.
	plain := e.ok("/api/v1/memory/search", `{"user_id":"alice","query":"climbing"}`)
	code, m := e.post("/api/v1/memory/search", `{"user_id":"alice","query":"climbing","topk":1,"filter":{"session_id":"s2"}}`)
	if code != 200 {
		t.Fatalf("search with unknown fields: %d %v", code, m)
	}
	warned(m, "unknown field 'filter' ignored; did you mean 'filters'?", "unknown field 'topk' ignored; did you mean 'top_k'?")
	if got := obj(m["data"]); !sameEpisodes(got, plain) || len(list(got["unprocessed_messages"])) != 0 {
		t.Errorf("search with unknown fields answered %v, want %v", got, plain)
	}
	if len(m) != 3 {
		t.Errorf("envelope %v: want request_id, data and warnings", m)
	}
	code, m = e.post("/api/v1/memory/get", `{"user_id":"alice","memory_type":"episode","pagesize":1,"flavour":"x"}`)
	if code != 200 {
		t.Fatalf("get: %d %v", code, m)
	}
	warned(m, "unknown field 'flavour' ignored; /api/v1/memory/get takes agent_id, app_id, filters, memory_type, page, page_size, project_id, sort_by, sort_order, user_id",
		"unknown field 'pagesize' ignored; did you mean 'page_size'?")

	// Nested: a message's text under another name is a 422 for the
	// field required, and the warning says where it went; a content
	// item's and a tool call's are named too. Nothing is buffered.
	code, m = e.post("/api/v1/memory/add", `{"session_id":"s3","messages":[{"sender_id":"bob","role":"user","timestamp":1779968400000,"text":"hello"}]}`)
	if code != 422 || obj(m["error"])["message"] != "Field required: messages.0.content" {
		t.Fatalf("add without content: %d %v", code, m)
	}
	warned(m, "unknown field 'messages.0.text' ignored; did you mean 'content'?")
	code, m = e.post("/api/v1/memory/add", `{"session_id":"s3","messages":[
		{"sender_id":"bob","role":"user","timestamp":1779968400000,"content":[{"type":"text","text":"hi","txt":"x"}]},
		{"sender_id":"bot","role":"assistant","timestamp":1779968401000,"content":"","tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{}","args":"{}"}}]}]}`)
	if code != 200 {
		t.Fatalf("add with nested unknown fields: %d %v", code, m)
	}
	warned(m, "unknown field 'messages.0.content.0.txt' ignored; ContentItem takes base64, ext, extras, name, text, type, uri",
		"unknown field 'messages.1.tool_calls.0.function.args' ignored; ToolFunction takes arguments, name")
	data := e.ok("/api/v1/memory/search", `{"user_id":"bob","query":"hello","filters":{"session_id":"s3"}}`)
	if um := list(data["unprocessed_messages"]); len(um) != 2 {
		t.Errorf("session s3 buffered %d messages, want the 2 of the accepted add only", len(um))
	}

	// At most five named, the rest counted; a name is cut, and a
	// credential sent as a name is redacted as every answer is.
	code, m = e.post("/api/v1/memory/search", `{"user_id":"alice","query":"climbing","a1":1,"a2":1,"a3":1,"a4":1,"a5":1,"a6":1,"a7":1}`)
	if ws := list(m["warnings"]); code != 200 || len(ws) != 6 || ws[5] != "2 more unknown fields ignored" {
		t.Errorf("seven unknown fields: %d %v", code, m["warnings"])
	}
	token := "ghp_" + strings.Repeat("a1B2", 9)
	long := strings.Repeat("z", 300)
	raw, _ := json.Marshal(map[string]any{"user_id": "alice", "query": "climbing", token: 1, long: 2})
	code, m = e.post("/api/v1/memory/search", string(raw))
	text, _ := json.Marshal(m)
	if code != 200 || strings.Contains(string(text), token) || strings.Contains(string(text), strings.Repeat("z", 65)) || len(list(m["warnings"])) != 2 {
		t.Errorf("a token and a long name as fields: %d %s", code, text)
	}

	// A filter's own fields are the DSL's: an unknown one is refused.
	e.fail("/api/v1/memory/search", `{"user_id":"alice","query":"x","filters":{"sesion_id":"s2"}}`, 422)
}

// sameEpisodes reports whether two search answers hold the same episodes
// in the same order.
func sameEpisodes(a, b map[string]any) bool {
	ea, eb := list(a["episodes"]), list(b["episodes"])
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		if obj(ea[i])["id"] != obj(eb[i])["id"] {
			return false
		}
	}
	return true
}
