package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// embedStub is a local stand-in for an OpenAI-compatible embedding engine
// (Ollama, vLLM, a hosted API): it answers /v1/embeddings with vectors of
// dim dimensions derived from the words of each input, and records the size
// of every batch it was sent.
type embedStub struct {
	mu      sync.Mutex
	batches []int
}

func (s *embedStub) serve(t *testing.T, dim int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "stub-embed" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.batches = append(s.batches, len(req.Input))
		s.mu.Unlock()
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		for i, text := range req.Input {
			v := make([]float32, dim)
			for _, w := range strings.Fields(strings.ToLower(text)) {
				h := 0
				for _, c := range w {
					h = h*31 + int(c)
				}
				v[(h%dim+dim)%dim]++
			}
			data[i] = item{i, v}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Switching a palace to an embedding engine: recall refuses with a
// conflict whose hint names `loci reembed`; reembed sends the drawers to
// the engine in batches, records the new embedder, and recall answers
// again, now ranked by the engine's vectors.
func TestReembedOntoAnEmbeddingEngine(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	hashEnv := append([]string{"LOCI_EMBEDDER=hash"}, cliEnvVars...)
	for _, fact := range []string{"We deploy on Tuesdays after the smoke tests", "The gateway validates JWT tokens", "Alice owns the billing service"} {
		if _, stderr, code := runLociOnce(t, home, hashEnv, "", "remember", "--palace", "p", "--format", "json", fact); code != 0 {
			t.Fatalf("remember: exit %d: %s", code, stderr)
		}
	}
	if _, stderr, code := runLociOnce(t, home, hashEnv, "", "review", "approve", "mem-0001", "mem-0002", "mem-0003", "--palace", "p"); code != 0 {
		t.Fatalf("approve: exit %d: %s", code, stderr)
	}

	var stub embedStub
	srv := stub.serve(t, 32)
	engine := append([]string{"LOCI_EMBEDDER=openai", "LOCI_EMBED_BASE_URL=" + srv.URL + "/v1", "LOCI_EMBED_MODEL=stub-embed"}, cliEnvVars...)
	stdout, _, code := runLociOnce(t, home, engine, "", "recall", "--palace", "p", "--format", "json", "when do we deploy")
	var env cliEnvelope
	if err := json.Unmarshal([]byte(stdout), &env); err != nil || code != 1 || env.Error == nil || env.Error.Type != "conflict" ||
		!strings.Contains(env.Error.Hint, "loci reembed --palace p") {
		t.Fatalf("recall with another embedder: exit %d, want a conflict naming loci reembed:\n%s", code, stdout)
	}

	stdout, stderr, code := runLociOnce(t, home, engine, "", "reembed", "--palace", "p", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"reembedded":3`) {
		t.Fatalf("reembed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stub.mu.Lock()
	sent := 0
	for _, n := range stub.batches {
		if n > 64 {
			t.Errorf("a batch of %d texts; the provider's limit is 64", n)
		}
		sent += n
	}
	stub.mu.Unlock()
	if sent < 3 {
		t.Errorf("the engine was sent %d texts, want the 3 drawers at least", sent)
	}

	stdout, _, code = runLociOnce(t, home, engine, "", "recall", "--palace", "p", "--format", "json", "when do we deploy")
	if code != 0 || !strings.Contains(stdout, "Tuesdays") {
		t.Fatalf("recall after reembed: exit %d\n%s", code, stdout)
	}
}
