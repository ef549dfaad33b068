package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
