package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// OpenAIConfig configures a remote OpenAI-compatible /v1/embeddings
// provider (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio, ...).
type OpenAIConfig struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1" or
	// "http://127.0.0.1:11434/v1"; "/embeddings" is appended.
	BaseURL string
	Model   string
	APIKey  string // sent as a bearer token when set
	// Dim declares the vector length. When 0 it is learnt from the first
	// response (Dim makes a one-word request if asked before any Embed).
	Dim int
	// Prompts go before every query and every stored text. NewOpenAIFromEnv
	// sets them from the model's name (KnownPrompts) unless the environment
	// names them.
	Prompts Prompts
	// Batch is the most texts sent in one request (default 64).
	Batch int
	// Timeout bounds each HTTP request (default 30s).
	Timeout time.Duration
	// Client overrides the HTTP client (tests).
	Client *http.Client
}

// Environment variables read by NewOpenAIFromEnv.
const (
	EnvEmbedBaseURL = "LOCI_EMBED_BASE_URL"
	EnvEmbedModel   = "LOCI_EMBED_MODEL"
	EnvEmbedAPIKey  = "LOCI_EMBED_API_KEY"
	EnvEmbedDim     = "LOCI_EMBED_DIM"
	// The prompts before queries and stored texts; set, even empty, they
	// replace those KnownPrompts gives the model.
	EnvEmbedQueryPrefix    = "LOCI_EMBED_QUERY_PREFIX"
	EnvEmbedDocumentPrefix = "LOCI_EMBED_DOCUMENT_PREFIX"
)

// ErrNotConfigured is returned when the remote provider lacks settings.
var ErrNotConfigured = errors.New("embedding provider not configured")

// OpenAI is an Embedder backed by a remote /v1/embeddings endpoint. It is
// never the default: the user opts in by configuring it.
type OpenAI struct {
	cfg    OpenAIConfig
	url    string
	client *http.Client

	mu    sync.Mutex
	dim   int
	cutAt int // see send
}

var (
	_ Embedder      = (*OpenAI)(nil)
	_ QueryEmbedder = (*OpenAI)(nil)
)

// NewOpenAIFromEnv configures the provider from LOCI_EMBED_BASE_URL,
// LOCI_EMBED_MODEL, LOCI_EMBED_API_KEY and optionally LOCI_EMBED_DIM,
// LOCI_EMBED_QUERY_PREFIX and LOCI_EMBED_DOCUMENT_PREFIX.
func NewOpenAIFromEnv() (*OpenAI, error) {
	cfg := OpenAIConfig{
		BaseURL: os.Getenv(EnvEmbedBaseURL),
		Model:   os.Getenv(EnvEmbedModel),
		APIKey:  os.Getenv(EnvEmbedAPIKey),
	}
	cfg.Prompts, _ = KnownPrompts(cfg.Model)
	if s, ok := os.LookupEnv(EnvEmbedQueryPrefix); ok {
		cfg.Prompts.Query = s
	}
	if s, ok := os.LookupEnv(EnvEmbedDocumentPrefix); ok {
		cfg.Prompts.Document = s
	}
	if s := os.Getenv(EnvEmbedDim); s != "" {
		d, err := strconv.Atoi(s)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%s=%q: want a positive integer", EnvEmbedDim, s)
		}
		cfg.Dim = d
	}
	return NewOpenAI(cfg)
}

// NewOpenAI checks cfg and returns the provider. It makes no request.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, fmt.Errorf("%w: set %s and %s", ErrNotConfigured, EnvEmbedBaseURL, EnvEmbedModel)
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("%s=%q: want an http:// or https:// URL", EnvEmbedBaseURL, cfg.BaseURL)
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	c := cfg.Client
	if c == nil {
		c = &http.Client{Timeout: cfg.Timeout}
	}
	return &OpenAI{
		cfg:    cfg,
		url:    strings.TrimRight(cfg.BaseURL, "/") + "/embeddings",
		client: c,
		dim:    cfg.Dim,
	}, nil
}

// ID is "openai/<model>", so vectors of different remote models are never
// compared. A document prompt changes every stored vector, so it is part
// of the ID too, as "+doc-" and the first 8 hex digits of its SHA-256
// (a record holds no spaces): changing it asks for `loci reembed`, as a
// change of model does. The query prompt changes no stored vector.
func (o *OpenAI) ID() string {
	id := "openai/" + o.cfg.Model
	if d := o.cfg.Prompts.Document; d != "" {
		sum := sha256.Sum256([]byte(d))
		id += "+doc-" + hex.EncodeToString(sum[:4])
	}
	return id
}

// Prompts returns the prompts sent before queries and stored texts.
func (o *OpenAI) Prompts() Prompts { return o.cfg.Prompts }

// Dim implements Embedder. Without a declared dimension it is learnt from
// the first response, making a probe request if needed; it is 0 if that
// fails.
func (o *OpenAI) Dim() int {
	o.mu.Lock()
	d := o.dim
	o.mu.Unlock()
	if d == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), o.cfg.Timeout)
		defer cancel()
		if _, err := o.Embed(ctx, []string{"dimension"}); err == nil {
			o.mu.Lock()
			d = o.dim
			o.mu.Unlock()
		}
	}
	return d
}

type openAIRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Embed implements Embedder: texts to store, each after the document
// prompt. Blank texts get zero vectors without a request; the rest are sent
// in batches of at most Batch.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return o.embed(ctx, texts, o.cfg.Prompts.Document)
}

// EmbedQueries implements QueryEmbedder: texts to search with, each after
// the query prompt.
func (o *OpenAI) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return o.embed(ctx, texts, o.cfg.Prompts.Query)
}

func (o *OpenAI) embed(ctx context.Context, texts []string, prompt string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var pending []int
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			pending = append(pending, i)
		}
	}
	for len(pending) > 0 {
		n := min(len(pending), o.cfg.Batch)
		idx := pending[:n]
		pending = pending[n:]
		in := make([]string, n)
		for j, i := range idx {
			in[j] = prompt + texts[i]
		}
		vs, err := o.send(ctx, in)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i] = vs[j]
		}
	}
	d := o.knownDim()
	for i := range out {
		if out[i] == nil {
			if d == 0 {
				return nil, fmt.Errorf("embed %s: dimension unknown for blank text: set %s", o.ID(), EnvEmbedDim)
			}
			out[i] = make([]float32, d)
		}
	}
	return out, nil
}

func (o *OpenAI) knownDim() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dim
}

// retryable statuses get two more attempts with a short backoff.
func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// minInputCut is the shortest a refused text is cut to (bytes, prompt
// included): a model whose context cannot hold 512 bytes of text is not
// one an engine serves for retrieval, so a refusal of so short a text is
// taken for what its message says, not for a text too long.
const minInputCut = 512

// send embeds one batch. An engine refuses a batch whole when one of its
// texts is longer than the model's context (Ollama since 0.13.5 whatever
// its truncate option says, vLLM, llama.cpp's server, OpenAI's API past
// 8,191 tokens), and how many bytes a context holds depends on the model
// and the text (code and markup take a token for every few characters).
// So a refused batch is halved until the texts the engine takes are
// embedded and the one it does not is alone; that text is cut to half its
// length, at a character boundary, until the engine takes it, and texts
// sent later are cut to that length first (cutAt). A text is cut only for
// its vector: the drawer keeps it whole, and a long one is found by its
// passages, each well within any context. A refusal that is not about
// length, or of texts no longer than minInputCut, is returned as it is.
func (o *OpenAI) send(ctx context.Context, in []string) ([][]float32, error) {
	in = o.cut(in)
	vs, code, err := o.request(ctx, in)
	if err == nil || !refusedAsTooLong(code, err) || longest(in) <= minInputCut {
		return vs, err
	}
	if len(in) > 1 {
		h := len(in) / 2
		a, err := o.send(ctx, in[:h])
		if err != nil {
			return nil, err
		}
		b, err := o.send(ctx, in[h:])
		if err != nil {
			return nil, err
		}
		return append(a, b...), nil
	}
	for t := in[0]; len(t) > minInputCut; {
		t = cutUTF8(t, max(len(t)/2, minInputCut))
		vs, code, err = o.request(ctx, []string{t})
		if err == nil {
			o.mu.Lock()
			if o.cutAt == 0 || len(t) < o.cutAt {
				o.cutAt = len(t)
			}
			o.mu.Unlock()
			return vs, nil
		}
		if !refusedAsTooLong(code, err) {
			break
		}
	}
	return nil, err
}

// cut returns in with every text longer than the length an earlier
// refusal taught (cutAt) cut to it; in itself when none is.
func (o *OpenAI) cut(in []string) []string {
	o.mu.Lock()
	at := o.cutAt
	o.mu.Unlock()
	if at == 0 || longest(in) <= at {
		return in
	}
	out := make([]string, len(in))
	for i, t := range in {
		out[i] = cutUTF8(t, at)
	}
	return out
}

// CutAt is the length in bytes, prompt included, that texts are cut to
// before they are sent, learnt from the engine's refusals (0: none yet).
func (o *OpenAI) CutAt() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cutAt
}

// refusedAsTooLong reports whether a failed request may have been refused
// for a text longer than the model's context: a client error on the
// request's content (400, 413, 422), or a server error whose message says
// so (llama.cpp's server answers 500 "input is too large to process").
func refusedAsTooLong(code int, err error) bool {
	switch code {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return true
	case http.StatusInternalServerError:
		msg := strings.ToLower(err.Error())
		for _, w := range []string{"too large", "too long", "context length", "maximum context", "exceeds"} {
			if strings.Contains(msg, w) {
				return true
			}
		}
	}
	return false
}

func longest(in []string) int {
	n := 0
	for _, t := range in {
		n = max(n, len(t))
	}
	return n
}

// cutUTF8 is s cut to at most n bytes, at the start of a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// request posts one batch, retrying statuses that say to come back later;
// code is the last answer's HTTP status (0: none came).
func (o *OpenAI) request(ctx context.Context, in []string) (vs [][]float32, code int, err error) {
	body, err := json.Marshal(openAIRequest{Model: o.cfg.Model, Input: in, EncodingFormat: "float"})
	if err != nil {
		return nil, 0, err
	}
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, code, ctx.Err()
			case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
			}
		}
		vs, code, err = o.post(ctx, body, len(in))
		if err == nil || !retryable(code) || ctx.Err() != nil {
			break
		}
	}
	return vs, code, err
}

func (o *OpenAI) post(ctx context.Context, body []byte, n int) ([][]float32, int, error) {
	fail := func(code int, format string, args ...any) ([][]float32, int, error) {
		return nil, code, fmt.Errorf("embed %s via %s: "+format, append([]any{o.ID(), o.url}, args...)...)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(body))
	if err != nil {
		return fail(0, "%w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return fail(0, "%w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fail(resp.StatusCode, "reading response: %w", err)
	}
	var r openAIResponse
	jerr := json.Unmarshal(raw, &r)
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if jerr == nil && r.Error != nil && r.Error.Message != "" {
			msg = r.Error.Message
		}
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		return fail(resp.StatusCode, "HTTP %d: %s", resp.StatusCode, msg)
	}
	if jerr != nil {
		return fail(resp.StatusCode, "bad JSON response: %w", jerr)
	}
	if len(r.Data) != n {
		return fail(resp.StatusCode, "%d embeddings returned for %d inputs", len(r.Data), n)
	}
	sort.Slice(r.Data, func(i, j int) bool { return r.Data[i].Index < r.Data[j].Index })
	out := make([][]float32, n)
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, d := range r.Data {
		if d.Index != i {
			return fail(resp.StatusCode, "response indexes are not 0..%d", n-1)
		}
		if o.dim == 0 {
			o.dim = len(d.Embedding)
		}
		if len(d.Embedding) != o.dim || o.dim == 0 {
			return fail(resp.StatusCode, "embedding %d has %d dimensions, want %d", i, len(d.Embedding), o.dim)
		}
		out[i] = Normalize(d.Embedding)
	}
	return out, resp.StatusCode, nil
}
