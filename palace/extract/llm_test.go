package extract_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/extract"
)

// stub is an OpenAI-compatible chat endpoint replying from a script.
type stub struct {
	mu      sync.Mutex
	replies []string // content of each reply; "HTTP500" fails the call
	calls   []map[string]any
	auth    []string
}

func (s *stub) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("stub: bad request body: %v", err)
		}
		s.mu.Lock()
		s.calls = append(s.calls, body)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		reply := `{}`
		if len(s.replies) > 0 {
			reply, s.replies = s.replies[0], s.replies[1:]
		}
		s.mu.Unlock()
		if reply == "HTTP500" {
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (s *stub) nCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

func TestLLMExtractValidatesAndRetries(t *testing.T) {
	st := &stub{replies: []string{
		"HTTP500",
		"not json at all",
		`{"episodes":[{"subject":"","summary":"x","narrative":"y"}]}`,
		"```json\n" + `{"episodes":[{"subject":"Climbing","summary":"Alice climbs.","narrative":"On May 28, 2026 Alice said she climbs in Yosemite.","facts":["Alice climbs in Yosemite."]}],"profile":{"hobbies":["climbing"]}}` + "\n```",
	}}
	srv := st.serve(t)
	l := extract.LLM(extract.LLMConfig{BaseURL: srv.URL, Model: "m", APIKey: "k", Attempts: 4, Backoff: time.Millisecond})
	if got, want := l.Name(), "llm:m"; got != want {
		t.Errorf("name = %q, want %q", got, want)
	}
	r, err := l.Extract(context.Background(), "alice", false, convo())
	if err != nil {
		t.Fatal(err)
	}
	if st.nCalls() != 4 {
		t.Errorf("%d calls, want 4", st.nCalls())
	}
	if len(r.Episodes) != 1 || r.Episodes[0].Subject != "Climbing" || r.Episodes[0].Facts[0] != "Alice climbs in Yosemite." {
		t.Fatalf("result = %+v", r)
	}
	if !r.Episodes[0].Timestamp.Equal(t0) {
		t.Errorf("episode timestamp = %v, want the first message's", r.Episodes[0].Timestamp)
	}
	if r.Profile["hobbies"] == nil {
		t.Errorf("profile = %v", r.Profile)
	}
	if st.auth[0] != "Bearer k" {
		t.Errorf("authorization = %q", st.auth[0])
	}
	// The retry after an invalid reply carries the validation error.
	last := st.calls[3]["messages"].([]any)
	fb := last[len(last)-1].(map[string]any)["content"].(string)
	if !strings.Contains(fb, "subject") {
		t.Errorf("feedback %q does not name the problem", fb)
	}
}

func TestLLMFailureReturnsError(t *testing.T) {
	st := &stub{replies: []string{"{}", "{}", "{}"}}
	srv := st.serve(t)
	l := extract.LLM(extract.LLMConfig{BaseURL: srv.URL + "/v1", Model: "m", Attempts: 3, Backoff: time.Millisecond})
	r, err := l.Extract(context.Background(), "alice", false, convo())
	if err == nil || !strings.Contains(err.Error(), "episodes") {
		t.Fatalf("err = %v, want a validation failure", err)
	}
	if len(r.Episodes) != 0 {
		t.Errorf("partial result returned: %+v", r)
	}
}

func TestLLMAgentCasesFactsBoundary(t *testing.T) {
	st := &stub{replies: []string{
		`{"agent_cases":[{"task_intent":"Set up the repo","approach":"Ran pnpm install","quality_score":1.5,"key_insight":""}]}`,
		`{"agent_cases":[{"task_intent":"Set up the repo","approach":"Ran pnpm install","quality_score":0.9,"key_insight":null}]}`,
		`{"facts":[{"fact":"I prefer pnpm","kind":"colour","confidence":0.9}]}`,
		`{"facts":[{"fact":"I prefer pnpm","kind":"tooling","confidence":0.9}]}`,
		`{"boundary":false}`,
	}}
	srv := st.serve(t)
	l := extract.LLM(extract.LLMConfig{BaseURL: srv.URL, Model: "m", Attempts: 2, Backoff: time.Millisecond})
	ctx := context.Background()
	r, err := l.Extract(ctx, "bot", true, convo())
	if err != nil || len(r.Cases) != 1 || r.Cases[0].QualityScore != 0.9 || r.Cases[0].KeyInsight != "" {
		t.Fatalf("cases = %+v, %v", r, err)
	}
	fs, err := l.Facts(ctx, convo())
	if err != nil || len(fs) != 1 || fs[0].Kind != "tooling" {
		t.Fatalf("facts = %+v, %v", fs, err)
	}
	m := convo()
	b, err := l.Boundary(ctx, m[:1], m[1])
	if err != nil || b {
		t.Fatalf("boundary = %v, %v", b, err)
	}
	// A new calendar day is a boundary without asking the model.
	n := st.nCalls()
	next := m[1]
	next.Timestamp = t0.Add(30 * time.Hour)
	if b, err := l.Boundary(ctx, m[:1], next); err != nil || !b {
		t.Fatalf("day change boundary = %v, %v", b, err)
	}
	if st.nCalls() != n {
		t.Error("day change asked the model")
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv("LOCI_LLM_BASE_URL", "")
	t.Setenv("LOCI_LLM_MODEL", "")
	e, err := extract.FromEnv()
	if err != nil || e.Name() != extract.HeuristicName {
		t.Fatalf("default = %v, %v", e, err)
	}
	t.Setenv("LOCI_LLM_MODEL", "m")
	if _, err := extract.FromEnv(); err == nil {
		t.Error("model without base URL accepted")
	}
	t.Setenv("LOCI_LLM_BASE_URL", "http://127.0.0.1:1/v1")
	e, err = extract.FromEnv()
	if err != nil || e.Name() != "llm:m" {
		t.Fatalf("llm = %v, %v", e, err)
	}
}
