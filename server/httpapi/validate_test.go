package httpapi_test

import (
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
)

const okMsg = `{"sender_id":"a","role":"user","timestamp":1779968400000,"content":"hi"}`

// fakeGHP is a made-up GitHub token, assembled so that scanners do not see one.
var fakeGHP = "gh" + "p_" + strings.Repeat("Zq7", 12)

// TestValidationMessages checks seed 001's 422s: only the first error,
// "<message>: <location>", model-level rules without a location.
func TestValidationMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	for _, c := range []struct {
		path, body, want string
	}{
		// /add
		{"add", `{"session_id":"s"}`, "Field required: messages"},
		{"add", `{}`, "Field required: session_id"},
		{"add", `{"session_id":"","messages":[` + okMsg + `]}`, "String should have at least 1 character: session_id"},
		{"add", `{"session_id":"` + strings.Repeat("s", 129) + `","messages":[` + okMsg + `]}`, "String should have at most 128 characters: session_id"},
		{"add", `{"session_id":5,"messages":[` + okMsg + `]}`, "Input should be a valid string: session_id"},
		{"add", `{"session_id":"s","messages":[]}`, "List should have at least 1 item after validation, not 0: messages"},
		{"add", `{"session_id":"s","messages":"hi"}`, "Input should be a valid list: messages"},
		{"add", `{"session_id":"s","messages":[` + strings.TrimSuffix(strings.Repeat(okMsg+",", 501), ",") + `]}`, "List should have at most 500 items after validation, not 501: messages"},
		{"add", `{"session_id":"s","messages":[5]}`, "Input should be a valid dictionary or object to extract fields from: messages.0"},
		{"add", `{"session_id":"s","messages":[{"role":"user","timestamp":1,"content":"x"}]}`, "Field required: messages.0.sender_id"},
		{"add", `{"session_id":"s","messages":[` + okMsg + `,{"sender_id":"","role":"user","timestamp":1,"content":"x"}]}`, "String should have at least 1 character: messages.1.sender_id"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"system","timestamp":1,"content":"x"}]}`, "Input should be 'user', 'assistant' or 'tool': messages.0.role"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":0,"content":"x"}]}`, "Input should be greater than 0: messages.0.timestamp"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1.5,"content":"x"}]}`, "Input should be a valid integer, got a number with a fractional part: messages.0.timestamp"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":"soon","content":"x"}]}`, "Input should be a valid integer, unable to parse string as an integer: messages.0.timestamp"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","content":"x"}]}`, "Field required: messages.0.timestamp"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1}]}`, "Field required: messages.0.content"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1,"content":7}]}`, "Input should be a valid string or a list of content items: messages.0.content"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1,"content":"  "}]}`, "Value error, content is empty: messages.0.content"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1,"content":[{"type":"video","uri":"x"}]}]}`, "Input should be 'text', 'image', 'audio', 'doc', 'pdf', 'html' or 'email': messages.0.content.0.type"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1,"content":[{"type":"text"}]}]}`, "Value error, a 'text' content item needs 'text': messages.0.content.0"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1,"content":[{"type":"image","uri":"file:///x","base64":"AA=="}]}]}`, "Value error, carry the payload in exactly one of text, uri or base64: messages.0.content.0"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1,"content":[{"type":"text","text":"x","extras":[]}]}]}`, "Input should be a valid dictionary: messages.0.content.0.extras"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"assistant","timestamp":1,"content":"x","tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}]}`, "Field required: messages.0.tool_calls.0.id"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"assistant","timestamp":1,"content":"x","tool_calls":[{"id":"c"}]}]}`, "Field required: messages.0.tool_calls.0.function"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"assistant","timestamp":1,"content":"x","tool_calls":[{"id":"c","function":{"name":"f","arguments":{"x":1}}}]}]}`, "Input should be a valid string: messages.0.tool_calls.0.function.arguments"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"a","role":"tool","timestamp":1,"content":"x","tool_call_id":3}]}`, "Input should be a valid string: messages.0.tool_call_id"},
		// scopes
		{"add", `{"session_id":"s","app_id":"..","messages":[` + okMsg + `]}`, "Value error, app_id must not be '.' or '..': app_id"},
		{"add", `{"session_id":"s","project_id":".","messages":[` + okMsg + `]}`, "Value error, project_id must not be '.' or '..': project_id"},
		{"add", `{"session_id":"s","app_id":"a/b","messages":[` + okMsg + `]}`, "String should match pattern '^[a-zA-Z0-9_.-]+$': app_id"},
		{"add", `{"session_id":"s","app_id":"","messages":[` + okMsg + `]}`, "String should have at least 1 character: app_id"},
		{"add", `{"session_id":"s","project_id":"` + strings.Repeat("p", 129) + `","messages":[` + okMsg + `]}`, "String should have at most 128 characters: project_id"},
		{"add", `{"session_id":"s","app_id":null,"messages":[` + okMsg + `]}`, "Input should be a valid string: app_id"},
		// identifiers that hold a credential (fake token), refused unechoed
		{"add", `{"session_id":"s-` + fakeGHP + `","messages":[` + okMsg + `]}`, "Value error, session_id looks like a credential (an access token or key); choose an identifier without one: session_id"},
		{"add", `{"session_id":"s","messages":[{"sender_id":"` + fakeGHP + `","role":"user","timestamp":1,"content":"x"}]}`, "Value error, sender_id looks like a credential (an access token or key); choose an identifier without one: messages.0.sender_id"},
		{"add", `{"session_id":"s","app_id":"a-` + fakeGHP + `","messages":[` + okMsg + `]}`, "Value error, app_id looks like a credential (an access token or key); choose an identifier without one: app_id"},
		// bodies
		{"add", `{"session_id":`, "JSON decode error: 14"},
		{"add", `[1,2]`, "Input should be a valid dictionary or object to extract fields from"},
		{"flush", `{}`, "Field required: session_id"},
		{"flush", `{"session_id":"s","app_id":"x y"}`, "String should match pattern '^[a-zA-Z0-9_.-]+$': app_id"},
		// /search
		{"search", `{"query":"x"}`, "Value error, exactly one of user_id / agent_id must be provided"},
		{"search", `{"query":"x","user_id":"a","agent_id":"b"}`, "Value error, exactly one of user_id / agent_id must be provided"},
		{"search", `{"user_id":"` + fakeGHP + `","query":"x"}`, "Value error, user_id looks like a credential (an access token or key); choose an identifier without one: user_id"},
		{"search", `{"user_id":"a"}`, "Field required: query"},
		{"search", `{"user_id":"a","query":""}`, "String should have at least 1 character: query"},
		{"search", `{"user_id":"","query":"x"}`, "String should have at least 1 character: user_id"},
		{"search", `{"user_id":"a","query":"x","method":"fuzzy"}`, "Input should be 'keyword', 'vector', 'hybrid' or 'agentic': method"},
		{"search", `{"user_id":"a","query":"x","top_k":0}`, "Value error, top_k must be -1 or between 1 and 100: top_k"},
		{"search", `{"user_id":"a","query":"x","top_k":101}`, "Value error, top_k must be -1 or between 1 and 100: top_k"},
		{"search", `{"user_id":"a","query":"x","top_k":-2}`, "Value error, top_k must be -1 or between 1 and 100: top_k"},
		{"search", `{"user_id":"a","query":"x","radius":1.5}`, "Input should be less than or equal to 1: radius"},
		{"search", `{"user_id":"a","query":"x","radius":-0.1}`, "Input should be greater than or equal to 0: radius"},
		{"search", `{"user_id":"a","query":"x","include_profile":"maybe"}`, "Input should be a valid boolean: include_profile"},
		{"search", `{"user_id":"a","query":"x","filters":[]}`, "Input should be a valid dictionary: filters"},
		{"search", `{"user_id":"a","query":"x","filters":{"AND":{}}}`, "Input should be a valid list: filters.AND"},
		{"search", `{"user_id":"a","query":"x","filters":{"OR":[{"AND":[3]}]}}`, "Input should be a valid dictionary: filters.OR.0.AND.0"},
		// /get
		{"get", `{"user_id":"a"}`, "Field required: memory_type"},
		{"get", `{"user_id":"a","memory_type":"fact"}`, "Input should be 'episode', 'profile', 'agent_case' or 'agent_skill': memory_type"},
		{"get", `{"user_id":"a","memory_type":"agent_case"}`, "Value error, memory_type 'agent_case' requires agent_id"},
		{"get", `{"agent_id":"a","memory_type":"profile"}`, "Value error, memory_type 'profile' requires user_id"},
		{"get", `{"memory_type":"episode"}`, "Value error, exactly one of user_id / agent_id must be provided"},
		{"get", `{"user_id":"a","memory_type":"episode","page":0}`, "Input should be greater than or equal to 1: page"},
		{"get", `{"user_id":"a","memory_type":"episode","page_size":0}`, "Input should be greater than or equal to 1: page_size"},
		{"get", `{"user_id":"a","memory_type":"episode","page_size":101}`, "Input should be less than or equal to 100: page_size"},
		{"get", `{"user_id":"a","memory_type":"episode","sort_by":"score"}`, "Input should be 'timestamp' or 'updated_at': sort_by"},
		{"get", `{"user_id":"a","memory_type":"episode","sort_order":"up"}`, "Input should be 'asc' or 'desc': sort_order"},
	} {
		errObj := e.fail("/api/v1/memory/"+c.path, c.body, 422)
		if got := errObj["message"]; got != c.want {
			t.Errorf("%s %.80s\n got: %v\nwant: %s", c.path, c.body, got, c.want)
		}
	}
	// None of it stored anything.
	if names, _ := e.reg.List(); len(names) != 0 {
		t.Errorf("rejected requests created palaces: %v", names)
	}
}

// TestLaxScalars: numbers as strings and booleans as words are accepted,
// as seed 001's server does.
func TestLaxScalars(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	e.ok("/api/v1/memory/add", `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":"1779968400000","content":"hi there"}]}`)
	e.ok("/api/v1/memory/search", `{"user_id":"a","query":"hi","top_k":"5","include_profile":"true","radius":"0.5"}`)
}
