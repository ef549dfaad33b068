package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/server/httpapi"
)

func TestDecompose(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][]string{
		"Where do I climb and what coffee do I like?": {"hybrid:Where do I climb", "hybrid:what coffee do I like"},
		"pnpm":                                 nil,
		"What is Caroline's identity?":         nil, // one part: the hybrid search alone
		"What did Caroline and Melanie build?": nil, // names joined, not questions
		"When did Caroline meet her friends, family, and mentors?": nil, // a list within a question
		"What did Ann paint on October 13, 2023?":                  nil,
		"According to Gina, what makes Jon a good mentor?":         {"hybrid:According to Gina", "hybrid:what makes Jon a good mentor"},
		"When did we ship the API, and who reviewed it?":           {"hybrid:When did we ship the API", "hybrid:who reviewed it"},
		"Which database did we pick or how do we migrate?":         {"hybrid:Which database did we pick", "hybrid:how do we migrate"},
		"deploy schedule, rollback plan; on-call rota":             {"hybrid:deploy schedule", "hybrid:rollback plan", "hybrid:on-call rota"},
	} {
		if got := httpapi.Decompose(q); !reflect.DeepEqual(got, want) {
			t.Errorf("decompose(%q) = %q, want %q", q, got, want)
		}
	}
}

// llmStub answers query rewriting with fixed queries and reranking by
// reversing the order; it records the prompts it saw.
type llmStub struct {
	mu      sync.Mutex
	prompts []string
}

func (s *llmStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	json.NewDecoder(r.Body).Decode(&body)
	prompt := body.Messages[len(body.Messages)-1].Content
	s.mu.Lock()
	s.prompts = append(s.prompts, prompt)
	s.mu.Unlock()
	reply := `{}`
	switch {
	case strings.Contains(prompt, `{"queries"`):
		reply = `{"queries":["espresso beans"]}`
	case strings.Contains(prompt, `{"order"`):
		var order []int
		for i := 1; ; i++ {
			if !strings.Contains(prompt, fmt.Sprintf("\n%d. ", i)) {
				break
			}
			order = append([]int{i}, order...)
		}
		b, _ := json.Marshal(map[string]any{"order": order})
		reply = string(b)
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": reply}}}})
}

// lastRerank returns the items of the last rerank prompt, in order.
func (s *llmStub) lastRerank() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.prompts) - 1; i >= 0; i-- {
		if !strings.Contains(s.prompts[i], `{"order"`) {
			continue
		}
		var items []string
		for n := 1; ; n++ {
			_, rest, ok := strings.Cut(s.prompts[i], fmt.Sprintf("\n%d. ", n))
			if !ok {
				return items
			}
			line, _, _ := strings.Cut(rest, "\n")
			items = append(items, line)
		}
	}
	return nil
}

func (s *llmStub) saw(substr string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.prompts {
		if strings.Contains(p, substr) {
			return true
		}
	}
	return false
}

func TestAgenticWithLLMAndRerank(t *testing.T) {
	t.Parallel()
	stub := &llmStub{}
	srv := httptest.NewServer(stub)
	defer srv.Close()
	llm := extract.LLM(extract.LLMConfig{BaseURL: srv.URL, Model: "stub", Backoff: time.Millisecond})
	e := newEnv(t, palace.Config{}, func(c *httpapi.Config) { c.LLM = llm })
	for i, txt := range []string{"I drink espresso beans from Ethiopia.", "I drink green tea at night.", "My coffee grinder is a Comandante."} {
		e.ok("/api/v1/memory/add", fmt.Sprintf(`{"session_id":"k%d","messages":[{"sender_id":"eve","role":"user","timestamp":1779968400000,"content":%q}]}`, i, txt))
		e.ok("/api/v1/memory/flush", fmt.Sprintf(`{"session_id":"k%d"}`, i))
	}
	eps := list(e.ok("/api/v1/memory/search", `{"user_id":"eve","query":"coffee","method":"agentic","top_k":3}`)["episodes"])
	if len(eps) == 0 {
		t.Fatal("agentic search found nothing")
	}
	if !stub.saw("Query: coffee") || !stub.saw(`{"queries"`) || !stub.saw(`{"order"`) {
		t.Errorf("the model was not asked to rewrite and rerank: %v", stub.prompts)
	}
	// Scores stay ordered after the rerank.
	for i := 1; i < len(eps); i++ {
		if obj(eps[i])["score"].(float64) > obj(eps[i-1])["score"].(float64) {
			t.Errorf("scores out of order: %v", eps)
		}
	}

	// enable_llm_rerank reorders agent cases in hybrid search: the stub
	// reverses the fused order.
	for i := range 3 {
		e.ok("/api/v1/memory/add", fmt.Sprintf(`{"session_id":"run%d","messages":[
			{"sender_id":"eve","role":"user","timestamp":1779968400000,"content":"Deploy service number %d to staging."},
			{"sender_id":"ops","role":"assistant","timestamp":1779968401000,"content":"Deploying.","tool_calls":[{"id":"c","function":{"name":"deploy","arguments":"{}"}}]},
			{"sender_id":"ops","role":"tool","timestamp":1779968402000,"content":"done","tool_call_id":"c"}]}`, i, i))
		e.ok("/api/v1/memory/flush", fmt.Sprintf(`{"session_id":"run%d"}`, i))
	}
	intents := func(body string) []string {
		var out []string
		for _, c := range list(e.ok("/api/v1/memory/search", body)["agent_cases"]) {
			out = append(out, obj(c)["task_intent"].(string))
		}
		return out
	}
	reranked := intents(`{"agent_id":"ops","query":"deploy service staging","top_k":3,"enable_llm_rerank":true}`)
	asked := stub.lastRerank()
	if len(reranked) != 3 || len(asked) != 3 {
		t.Fatalf("reranked %v, asked %v", reranked, asked)
	}
	for i, intent := range reranked {
		if !strings.Contains(asked[2-i], intent) {
			t.Errorf("reranked[%d] = %q, want the model's order (the reverse of %q)", i, intent, asked)
		}
	}
	// keyword ignores the flag.
	if kw := intents(`{"agent_id":"ops","query":"deploy service staging","method":"keyword","top_k":3,"enable_llm_rerank":true}`); len(kw) != 3 {
		t.Errorf("keyword = %v", kw)
	}
}
