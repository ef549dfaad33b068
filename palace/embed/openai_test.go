package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/embed"
)

// stub serves /v1/embeddings with vectors derived from each input's
// length, in reverse index order (clients must sort), and counts requests.
func stub(t *testing.T, dim int, requests *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"Incorrect API key provided"}}`))
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "test-embed" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			v := make([]float32, dim)
			v[0] = float32(len(req.Input[i]))
			v[1] = 1
			data = append(data, item{i, v})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenAIFromEnv(t *testing.T) {
	var n atomic.Int32
	srv := stub(t, 8, &n)
	t.Setenv("LOCI_EMBED_BASE_URL", srv.URL+"/v1/")
	t.Setenv("LOCI_EMBED_MODEL", "test-embed")
	t.Setenv("LOCI_EMBED_API_KEY", "sk-test")
	t.Setenv("LOCI_EMBED_DIM", "8")
	e, err := embed.Lookup("openai")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.ID(), "openai/test-embed"; got != want {
		t.Errorf("ID = %q, want %q", got, want)
	}
	if got := embed.LanguageShare(e); got != 0 {
		t.Errorf("LanguageShare = %v, want 0: a remote model is taken to read code", got)
	}
	if e.Dim() != 8 || n.Load() != 0 {
		t.Fatalf("Dim = %d after %d requests; want 8 without a request", e.Dim(), n.Load())
	}
	texts := make([]string, 130)
	for i := range texts {
		texts[i] = strings.Repeat("x", i%7+1)
	}
	texts[5] = "   "
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 3 { // 129 non-blank texts in batches of 64
		t.Errorf("%d requests, want 3", got)
	}
	for i, v := range vs {
		if i == 5 {
			if embed.Dot(v, v) != 0 || len(v) != 8 {
				t.Errorf("blank text: want a zero vector of 8, got %v", v)
			}
			continue
		}
		l := float64(len(texts[i]))
		want := float32(l / math.Sqrt(l*l+1)) // normalised [len, 1, 0...]
		if math.Abs(float64(v[0]-want)) > 1e-6 {
			t.Fatalf("vector %d: v[0] = %v, want %v (order or normalisation wrong)", i, v[0], want)
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	var n atomic.Int32
	srv := stub(t, 4, &n)
	ctx := context.Background()

	if _, err := embed.NewOpenAI(embed.OpenAIConfig{}); !errors.Is(err, embed.ErrNotConfigured) {
		t.Errorf("empty config: err = %v, want ErrNotConfigured", err)
	}
	t.Setenv("LOCI_EMBED_BASE_URL", "")
	if _, err := embed.Lookup("openai"); !errors.Is(err, embed.ErrNotConfigured) {
		t.Errorf("Lookup without env: err = %v", err)
	}
	t.Setenv("LOCI_EMBED_BASE_URL", srv.URL)
	t.Setenv("LOCI_EMBED_MODEL", "m")
	t.Setenv("LOCI_EMBED_DIM", "many")
	if _, err := embed.NewOpenAIFromEnv(); err == nil || !strings.Contains(err.Error(), "LOCI_EMBED_DIM") {
		t.Errorf("bad LOCI_EMBED_DIM: err = %v", err)
	}

	bad, _ := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "test-embed", APIKey: "wrong"})
	_, err := bad.Embed(ctx, []string{"hi"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Errorf("wrong key: err = %v", err)
	}

	// Dimension learnt from the first response, and enforced.
	ok, _ := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "test-embed", APIKey: "sk-test"})
	if d := ok.Dim(); d != 4 {
		t.Errorf("probed Dim = %d, want 4", d)
	}
	wrongDim, _ := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "test-embed", APIKey: "sk-test", Dim: 5})
	if _, err := wrongDim.Embed(ctx, []string{"hi"}); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("dimension mismatch: err = %v", err)
	}

	// A server that hangs is cut off by the timeout.
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)
	s, _ := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: slow.URL, Model: "m", Timeout: 100 * time.Millisecond})
	t0 := time.Now()
	if _, err := s.Embed(ctx, []string{"hi"}); err == nil {
		t.Error("hanging server: want a timeout error")
	}
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("timeout took %v", el)
	}
}

func TestRegistry(t *testing.T) {
	if _, err := embed.Lookup("no-such-model"); !errors.Is(err, embed.ErrUnknown) {
		t.Errorf("unknown name: err = %v", err)
	}
	e, err := embed.Lookup("hash")
	if err != nil || e.ID() != embed.HashID {
		t.Fatalf("Lookup(hash) = %v, %v", e, err)
	}
	// Without palace/embed/builtin linked, Default falls back to hash.
	if got := embed.Default().ID(); got != embed.HashID {
		t.Errorf("Default().ID() = %q without builtin, want %q", got, embed.HashID)
	}
}

// engine serves /v1/embeddings as an engine would, for the tests of what
// the provider sends. Every input's vector is [its length, 1]: the
// provider scales it to unit length, and sent reads the length back. It
// keeps every input it embeds and counts requests. With limit > 0, a batch
// holding a longer input is refused whole with code and message, as
// Ollama, vLLM and llama.cpp's server refuse one; with limit < 0, every
// batch is.
type engine struct {
	limit    int
	code     int
	message  string
	requests atomic.Int32
	mu       sync.Mutex
	inputs   []string
}

func (e *engine) serve(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.requests.Add(1)
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, in := range req.Input {
			if e.limit < 0 || e.limit > 0 && len(in) > e.limit {
				w.WriteHeader(e.code)
				json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": e.message}})
				return
			}
			data = append(data, item{i, []float32{float32(len(in)), 1}})
		}
		e.mu.Lock()
		e.inputs = append(e.inputs, req.Input...)
		e.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// take returns the inputs embedded since the last call.
func (e *engine) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	in := e.inputs
	e.inputs = nil
	return in
}

func sent(v []float32) int { return int(math.Round(float64(v[0] / v[1]))) }

func TestOpenAICutsWhatTheModelCannotHold(t *testing.T) {
	ctx := context.Background()
	eng := &engine{limit: 2000, code: http.StatusBadRequest, message: "the input length exceeds the context length"}
	srv := eng.serve(t)
	n := &eng.requests
	e, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 40)
	for i := range texts {
		texts[i] = fmt.Sprintf("a short text, number %d", i)
	}
	long := strings.Repeat("héllo wörld ", 1000) // 14,000 bytes, two-byte letters among them
	texts[23] = long
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatalf("a batch with a text longer than the model holds: %v", err)
	}
	for i, v := range vs {
		if i != 23 && sent(v) != len(texts[i]) {
			t.Errorf("text %d: vector of a %d-byte text, want its own %d bytes", i, sent(v), len(texts[i]))
		}
	}
	cut := e.CutAt()
	if cut < 1000 || cut > 2000 || sent(vs[23]) != cut {
		t.Errorf("the long text was sent as %d bytes, CutAt %d; want it cut to half the model's 2,000 bytes or more", sent(vs[23]), cut)
	}
	if !utf8.ValidString(long[:cut]) {
		t.Errorf("cut inside a character at %d", cut)
	}
	if got := n.Load(); got > 20 {
		t.Errorf("%d requests for one refused text among 40; want the batch halved, not each text sent alone", got)
	}

	// What a refusal taught holds for later texts: one request.
	n.Store(0)
	if vs, err := e.Embed(ctx, []string{long + long}); err != nil || n.Load() != 1 || sent(vs[0]) != cut {
		t.Errorf("a later long text: %v, %d requests, %v sent; want one request of %d bytes", err, n.Load(), vs, cut)
	}

	// llama.cpp's server says it with a 500.
	srv = (&engine{limit: 3000, code: http.StatusInternalServerError, message: "input is too large to process. increase the physical batch size"}).serve(t)
	e, _ = embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Dim: 2})
	if _, err := e.Embed(ctx, []string{long}); err != nil || e.CutAt() > 3000 {
		t.Errorf("a 500 that says the input is too large: %v, cut at %d", err, e.CutAt())
	}
}

func TestOpenAIRefusalsNotAboutLength(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("word ", 4000)
	for _, c := range []struct {
		name    string
		code    int
		message string
		texts   []string
		most    int32
	}{
		// Short texts refused: the refusal is about something else.
		{"short texts", http.StatusBadRequest, "invalid model", []string{"one", "two", "three"}, 1},
		// Refused at any length: halving stops at minInputCut and says why.
		{"every length", http.StatusBadRequest, "invalid model", []string{long, "two", long, "four"}, 20},
		// A 500 that says nothing of length is not halved (nor retried).
		{"a server error", http.StatusInternalServerError, "out of memory", []string{long}, 1},
	} {
		eng := &engine{limit: -1, code: c.code, message: c.message}
		srv := eng.serve(t)
		e, _ := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Dim: 2})
		_, err := e.Embed(ctx, c.texts)
		if n := eng.requests.Load(); err == nil || !strings.Contains(err.Error(), c.message) || n > c.most || e.CutAt() != 0 {
			t.Errorf("%s: %v after %d requests, cut at %d; want the engine's error within %d requests", c.name, err, n, e.CutAt(), c.most)
		}
	}
}
