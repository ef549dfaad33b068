package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
)

// embedStub is a local stand-in for an OpenAI-compatible embedding engine
// (Ollama, vLLM, a hosted API): it answers /v1/embeddings for model (by
// default "stub-embed") with vectors of dim dimensions derived from the
// words of each input, and records every input and the size of every batch
// it took.
type embedStub struct {
	model   string
	limit   int  // >0: a batch with a longer input is refused, as Ollama refuses one
	noise   bool // vectors from the whole text's hash, as a wrong model's are: noise
	mu      sync.Mutex
	batches []int
	inputs  []string
}

func (s *embedStub) serve(t *testing.T, dim int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != cmp.Or(s.model, "stub-embed") {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		for _, in := range req.Input {
			if s.limit > 0 && len(in) > s.limit {
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"error":"the input length exceeds the context length"}`))
				return
			}
		}
		s.mu.Lock()
		s.batches = append(s.batches, len(req.Input))
		s.inputs = append(s.inputs, req.Input...)
		s.mu.Unlock()
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		for i, text := range req.Input {
			v := make([]float32, dim)
			if s.noise {
				r := rand.New(rand.NewPCG(uint64(len(text)), uint64(crc32.ChecksumIEEE([]byte(text)))))
				for j := range v {
					v[j] = float32(r.NormFloat64())
				}
				data[i] = item{i, v}
				continue
			}
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

// doctor measures an engine's model where loci knows nothing of it, and
// warns of one whose cosines cannot tell a restatement from an unrelated
// text (a wrong model, or noise), without failing: recall still works.
func TestDoctorWarnsOfAModelThatTellsNothingApart(t *testing.T) {
	t.Parallel()
	stub := embedStub{noise: true}
	srv := stub.serve(t, 64)
	engine := append([]string{"LOCI_EMBEDDER=openai", "LOCI_EMBED_BASE_URL=" + srv.URL + "/v1", "LOCI_EMBED_MODEL=stub-embed"}, cliEnvVars...)
	stdout, stderr, code := runLociOnce(t, t.TempDir(), engine, "", "doctor", "--format", "text")
	if code != 0 || !strings.Contains(stdout, "warn  embedder scales") || !strings.Contains(stdout, "does not tell a text restated from an unrelated one") {
		t.Errorf("doctor with an engine of noise: exit %d, want a warning about its scales:\n%s\n%s", code, stdout, stderr)
	}
}

// sent returns the inputs the stub has been sent so far and forgets them.
func (s *embedStub) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.inputs
	s.inputs = nil
	return in
}

// An asymmetric model served by an engine reads what is stored after its
// document prompt and what is searched with after its query prompt, as its
// card asks (nomic-embed-text: "search_document: " and "search_query: ").
// The document prompt is part of the palace's embedder, so changing it
// asks for `loci reembed`; the environment can turn both off.
func TestAnEmbeddingEngineReadsItsModelsPrompts(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	stub := embedStub{model: "nomic-embed-text:v1.5"}
	srv := stub.serve(t, 32)
	engine := append([]string{"LOCI_EMBEDDER=openai", "LOCI_EMBED_BASE_URL=" + srv.URL + "/v1", "LOCI_EMBED_MODEL=nomic-embed-text:v1.5"}, cliEnvVars...)
	if _, stderr, code := runLociOnce(t, home, engine, "", "note", "--palace", "p", "--format", "json", "We deploy on Tuesdays after the smoke tests"); code != 0 {
		t.Fatalf("note: exit %d: %s", code, stderr)
	}
	// doctor says what the engine is sent, and where its cosines lie.
	if stdout, stderr, code := runLociOnce(t, home, engine, "", "doctor", "--format", "text"); !strings.Contains(stdout, `searches after "search_query: ", stored texts after "search_document: "`) ||
		!regexp.MustCompile(`ok +embedder scales +cosines of unrelated texts 0\.\d+ ± 0\.\d+, of restatements 0\.\d+ ± 0\.\d+ \(measured now\)`).MatchString(stdout) {
		t.Errorf("doctor (exit %d) does not name the prompts and the scales:\n%s\n%s", code, stdout, stderr)
	}
	// and fails when the engine does not answer.
	gone := append(slices.Clone(engine), "LOCI_EMBED_BASE_URL="+srv.URL+"/gone/v1")
	if stdout, stderr, code := runLociOnce(t, home, gone, "", "doctor", "--format", "text"); code == 0 || !strings.Contains(stdout+stderr, "fail  embedder") {
		t.Errorf("doctor with an engine that does not answer: exit %d, want a failed embedder check:\n%s\n%s", code, stdout, stderr)
	}
	stored := stub.sent()
	if !slices.ContainsFunc(stored, func(s string) bool {
		return strings.HasPrefix(s, "search_document: ") && strings.Contains(s, "We deploy on Tuesdays")
	}) {
		t.Errorf("the stored text was sent as %q, want it after \"search_document: \"", stored)
	}
	stdout, _, code := runLociOnce(t, home, engine, "", "recall", "--all", "--palace", "p", "--format", "json", "when do we deploy")
	if code != 0 || !strings.Contains(stdout, "Tuesdays") {
		t.Fatalf("recall: exit %d\n%s", code, stdout)
	}
	if asked := stub.sent(); !slices.Contains(asked, "search_query: when do we deploy") {
		t.Errorf("the query was sent as %q, want \"search_query: when do we deploy\"", asked)
	}

	bare := append(slices.Clone(engine), "LOCI_EMBED_QUERY_PREFIX=", "LOCI_EMBED_DOCUMENT_PREFIX=")
	stdout, _, code = runLociOnce(t, home, bare, "", "recall", "--all", "--palace", "p", "--format", "json", "when do we deploy")
	var env cliEnvelope
	if err := json.Unmarshal([]byte(stdout), &env); err != nil || code != 1 || env.Error == nil || env.Error.Type != "conflict" ||
		!strings.Contains(env.Error.Hint, "loci reembed --palace p") {
		t.Fatalf("recall with the document prompt turned off: exit %d, want a conflict naming loci reembed:\n%s", code, stdout)
	}
	if stdout, stderr, code := runLociOnce(t, home, bare, "", "reembed", "--palace", "p", "--format", "json"); code != 0 {
		t.Fatalf("reembed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stub.sent()
	stdout, _, code = runLociOnce(t, home, bare, "", "recall", "--all", "--palace", "p", "--format", "json", "when do we deploy")
	if code != 0 || !strings.Contains(stdout, "Tuesdays") {
		t.Fatalf("recall after reembed: exit %d\n%s", code, stdout)
	}
	if asked := stub.sent(); !slices.Contains(asked, "when do we deploy") {
		t.Errorf("with the prompts turned off the query was sent as %q, want it as typed", asked)
	}
}

// An engine whose model holds fewer bytes than a pasted file refuses the
// batch that carries it. Every drawer of an import still gets its vectors,
// the pasted file's whole-text vector from its start, the log says so, and
// the file is found by a phrase from its end.
func TestAnEmbeddingEngineThatRefusesLongTexts(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	stub := embedStub{limit: 1500}
	srv := stub.serve(t, 32)
	engine := append([]string{"LOCI_EMBEDDER=openai", "LOCI_EMBED_BASE_URL=" + srv.URL + "/v1", "LOCI_EMBED_MODEL=stub-embed"}, cliEnvVars...)
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("line %d of the deploy log: step %d finished without warnings", i, i))
	}
	pasted := "Here is the deploy log I was looking at:\n" + strings.Join(lines, "\n") + "\nthe canary rollback hook fired at the very end"
	hashEnv := append([]string{"LOCI_EMBEDDER=hash"}, cliEnvVars...)
	for _, text := range []string{"We deploy on Tuesdays after the smoke tests", pasted, "The gateway validates JWT tokens"} {
		if _, stderr, code := runLociOnce(t, home, hashEnv, text, "note", "--palace", "src", "--format", "json", "-"); code != 0 {
			t.Fatalf("note: exit %d: %s", code, stderr)
		}
	}
	file := filepath.Join(t.TempDir(), "src.jsonl")
	if _, stderr, code := runLociOnce(t, home, hashEnv, "", "export", "--palace", "src", "--out", file); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	// The import embeds the three drawers in one batch.
	stdout, stderr, code := runLociOnce(t, home, engine, "", "import", file, "--palace", "p", "--format", "json")
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "the embedding engine refused texts longer than its model holds") {
		t.Errorf("the import's log does not say that a text was cut for its vector:\n%s", stderr)
	}
	stdout, stderr, code = runLociOnce(t, home, engine, "", "stats", "--palace", "p", "--format", "json")
	var stats struct {
		Data struct {
			Index struct {
				Vector struct {
					Live         int `json:"live"`
					StaleVectors int `json:"stale_vectors"`
				} `json:"vector"`
			} `json:"index"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(stdout), &stats); err != nil || code != 0 || stats.Data.Index.Vector.StaleVectors != 0 || stats.Data.Index.Vector.Live < 3 {
		t.Fatalf("stats: exit %d, %+v; want every drawer with its vectors\n%s\n%s", code, stats.Data.Index.Vector, stdout, stderr)
	}
	stdout, _, code = runLociOnce(t, home, engine, "", "recall", "--all", "--palace", "p", "--format", "json", "did the canary rollback hook fire")
	if code != 0 || !strings.Contains(stdout, "Here is the deploy log") {
		t.Fatalf("recall of the pasted log's last line: exit %d\n%s", code, stdout)
	}
}

// A model behind an engine places its cosines where it will; the prompt
// hook reads them on the scale its threshold was chosen on. The engine's
// scale is measured by the first hook that needs it (the 64 sentences of
// embed.ScaleTexts, as searches and as stored texts) and recorded in the
// palace, so the next hook, a process of its own, sends the engine its
// prompt alone.
func TestAnEngineModelsCosineScaleIsMeasuredOnce(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	stub := embedStub{model: "nomic-embed-text"}
	srv := stub.serve(t, 32)
	engine := append([]string{"LOCI_EMBEDDER=openai", "LOCI_EMBED_BASE_URL=" + srv.URL + "/v1", "LOCI_EMBED_MODEL=nomic-embed-text"}, cliEnvVars...)
	if _, stderr, code := runLociOnce(t, home, engine, "", "note", "--palace", "proj", "--format", "json", "We deploy on Tuesdays after the smoke tests"); code != 0 {
		t.Fatalf("note: exit %d: %s", code, stderr)
	}
	sentence := "search_query: " + embed.ScaleTexts()[0]
	in := `{"session_id":"s","cwd":"` + t.TempDir() + `","hook_event_name":"UserPromptSubmit","prompt":"when do we deploy after the smoke tests?"}`
	for i, want := range []bool{true, false} {
		stub.sent()
		out, stderr, code := runLociOnce(t, home, append(slices.Clone(engine), "LOCI_PALACE=proj"), in, "hook", "prompt-submit", "--budget", "30s")
		if code != 0 || !strings.Contains(out, "We deploy on Tuesdays") {
			t.Fatalf("hook %d: exit %d, want the note injected:\n%s\n%s", i+1, code, out, stderr)
		}
		sent := stub.sent()
		if got := slices.Contains(sent, sentence); got != want {
			t.Errorf("hook %d sent the engine %d texts; measured the scale: %v, want %v", i+1, len(sent), got, want)
		}
		if !slices.Contains(sent, "search_query: when do we deploy after the smoke tests?") {
			t.Errorf("hook %d did not send its prompt", i+1)
		}
	}
}
