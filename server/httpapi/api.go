package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/redact"
	"github.com/rs/zerolog"
)

// Config configures the EverOS API and the operational endpoints.
type Config struct {
	Registry *palace.Registry
	Logger   zerolog.Logger
	Version  string
	// Location is the display time zone of every rendered timestamp and
	// of naive filter timestamps; nil means UTC.
	Location *time.Location
	// LLM, when set, drives agentic search and enable_llm_rerank.
	LLM *extract.LLMExtractor
	// Content governs non-text content items of /add.
	Content ContentConfig
	// Dev serves /openapi.json and the /docs page (LOCI_ENV=dev).
	Dev bool
	// DefaultRadius is the cosine threshold applied when top_k is -1 and
	// the request gives no radius; 0 means 0.1.
	DefaultRadius float64
	// DefaultTopK is the per-kind cap when top_k is -1; 0 means 20.
	DefaultTopK int
	// EventPoll is how often /events polls the change logs; 0 means 500ms.
	EventPoll time.Duration
	// Metrics collects request and tool metrics; nil makes a new one.
	Metrics *Metrics
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ConfigFromEnv fills the settings read from the environment:
// LOCI_TIMEZONE, LOCI_ENV, LOCI_LLM_* (agentic search and rerank),
// LOCI_MULTIMODAL_*, LOCI_FILE_URI_MAX_BYTES, LOCI_FILE_URI_ALLOW_DIRS and
// LOCI_ALLOW_HTTP_FETCH.
func ConfigFromEnv(cfg *Config) error {
	loc, err := LoadLocation(os.Getenv("LOCI_TIMEZONE"))
	if err != nil {
		return err
	}
	cfg.Location = loc
	cfg.Dev = strings.EqualFold(strings.TrimSpace(os.Getenv("LOCI_ENV")), "dev")
	if cfg.LLM == nil {
		ext, err := extract.FromEnv()
		if err != nil {
			return err
		}
		if l, ok := ext.(*extract.LLMExtractor); ok {
			cfg.LLM = l
		}
	}
	return cfg.Content.fromEnv()
}

// API serves seed 001's /api/v1/memory endpoints, /metrics, /events and
// (in dev) /openapi.json and /docs.
type API struct {
	cfg     Config
	reg     *palace.Registry
	log     zerolog.Logger
	loc     *time.Location
	metrics *Metrics

	closing   chan struct{}
	closeOnce sync.Once
}

// New checks the configuration and builds the API.
func New(cfg Config) (*API, error) {
	if cfg.Registry == nil {
		return nil, errors.New("httpapi: nil registry")
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.DefaultRadius == 0 {
		cfg.DefaultRadius = 0.1
	}
	if cfg.DefaultTopK == 0 {
		cfg.DefaultTopK = 20
	}
	if cfg.EventPoll <= 0 {
		cfg.EventPoll = 500 * time.Millisecond
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Content.defaults()
	return &API{cfg: cfg, reg: cfg.Registry, log: cfg.Logger, loc: cfg.Location,
		metrics: cfg.Metrics, closing: make(chan struct{})}, nil
}

// Metrics is the API's metrics collector.
func (a *API) Metrics() *Metrics { return a.metrics }

// Close ends the streams (/events) so a graceful shutdown can drain.
func (a *API) Close() { a.closeOnce.Do(func() { close(a.closing) }) }

// Register mounts the routes on mux.
func (a *API) Register(mux *http.ServeMux) {
	mux.Handle("/api/v1/memory/add", a.endpoint("AddRequest", a.add))
	mux.Handle("/api/v1/memory/flush", a.endpoint("FlushRequest", a.flush))
	mux.Handle("/api/v1/memory/search", a.endpoint("SearchRequest", a.search))
	mux.Handle("/api/v1/memory/get", a.endpoint("GetRequest", a.get))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		a.writeError(w, r, newRequestID(), http.StatusNotFound, "Not Found")
	})
	mux.Handle("GET /metrics", a.metrics.Handler(a.reg, a.cfg.Version))
	mux.HandleFunc("GET /events", a.events)
	if a.cfg.Dev {
		mux.HandleFunc("GET /openapi.json", a.openapi)
		mux.HandleFunc("GET /docs", a.docs)
	}
}

// newRequestID is 32 lowercase hex characters.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Error kinds a handler returns; anything else is a 500.
type (
	// mediaError is a content item that cannot be parsed (415).
	mediaError struct{ msg string }
	// httpError carries its own status (413, 405, ...).
	httpError struct {
		status int
		msg    string
	}
)

func (e *mediaError) Error() string { return e.msg }
func (e *httpError) Error() string  { return e.msg }

func mediaErrf(format string, a ...any) error { return &mediaError{msg: fmt.Sprintf(format, a...)} }

type handlerFunc func(ctx context.Context, body map[string]any) (any, error)

// endpoint wraps a seed 001 handler: POST only, JSON only, the body
// limit, validation, the envelopes (with warnings for the fields the body
// of request schema req does not take: unknown.go), and panics as 500s.
func (a *API) endpoint(req string, fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rid := newRequestID()
		w.Header().Set("X-Request-ID", rid)
		defer func() {
			if rec := recover(); rec != nil {
				a.log.Error().Str("request_id", rid).Str("path", r.URL.Path).Interface("panic", rec).Msg("handler panicked")
				a.writeError(w, r, rid, http.StatusInternalServerError, "")
			}
		}()
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			a.writeError(w, r, rid, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			a.writeError(w, r, rid, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
			return
		}
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				a.writeError(w, r, rid, http.StatusRequestEntityTooLarge,
					fmt.Sprintf("Request body is larger than %d bytes", tooBig.Limit))
				return
			}
			a.writeError(w, r, rid, http.StatusBadRequest, "Could not read the request body")
			return
		}
		body, err := decodeBody(raw)
		if err != nil {
			a.fail(w, r, rid, err)
			return
		}
		warnings := unknownFields(req, r.URL.Path, body)
		ctx := r.Context()
		if key := r.Header.Get("Idempotency-Key"); key != "" {
			if !validRequestKey(key) {
				a.writeError(w, r, rid, http.StatusBadRequest, "Idempotency-Key must be 1 to 255 printable ASCII characters", warnings...)
				return
			}
			ctx = context.WithValue(ctx, requestKeyCtx{}, key)
		}
		data, err := fn(ctx, body)
		if err != nil {
			a.fail(w, r, rid, err, warnings...)
			return
		}
		a.writeJSON(w, http.StatusOK, successEnvelope{RequestID: rid, Data: data, Warnings: warnings})
	})
}

// requestKeyCtx carries a request's Idempotency-Key to its handler.
type requestKeyCtx struct{}

// requestKey is the request's Idempotency-Key ("" when it sent none).
func requestKey(ctx context.Context) string {
	k, _ := ctx.Value(requestKeyCtx{}).(string)
	return k
}

func validRequestKey(k string) bool {
	if len(k) == 0 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// fail maps an error to its status once, here at the edge; warnings go
// into the error envelope (a 4xx's).
func (a *API) fail(w http.ResponseWriter, r *http.Request, rid string, err error, warnings ...string) {
	var ve *validationError
	var fe *filterError
	var me *mediaError
	var he *httpError
	var pe *palace.Error
	switch {
	case errors.As(err, &ve):
		a.writeError(w, r, rid, http.StatusUnprocessableEntity, ve.msg, warnings...)
	case errors.As(err, &fe):
		a.writeError(w, r, rid, http.StatusUnprocessableEntity, fe.msg, warnings...)
	case errors.As(err, &me):
		a.writeError(w, r, rid, http.StatusUnsupportedMediaType, me.msg, warnings...)
	case errors.As(err, &he):
		a.writeError(w, r, rid, he.status, he.msg, warnings...)
	case errors.As(err, &pe) && pe.Code == palace.CodeInvalid:
		a.writeError(w, r, rid, http.StatusUnprocessableEntity, "Value error, "+pe.Message, warnings...)
	case errors.As(err, &pe) && pe.Code == palace.CodeForbidden:
		a.writeError(w, r, rid, http.StatusForbidden, pe.Message, warnings...)
	case errors.As(err, &pe) && pe.Code == palace.CodeUnavailable:
		a.log.Warn().Err(err).Str("request_id", rid).Str("path", r.URL.Path).Msg("store unavailable")
		w.Header().Set("Retry-After", "1")
		a.writeError(w, r, rid, http.StatusServiceUnavailable, "")
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client went away; nobody reads the answer.
		a.log.Debug().Str("request_id", rid).Msg("request cancelled by the client")
	default:
		a.log.Error().Err(err).Str("request_id", rid).Str("path", r.URL.Path).Msg("request failed")
		a.writeError(w, r, rid, http.StatusInternalServerError, "")
	}
}

// writeError writes seed 001's error envelope. 5xx carry code SYSTEM_ERROR
// and a fixed message ("Internal server error"; for 503, that the store
// cannot be reached, with Retry-After); 4xx carry HTTP_ERROR, and the
// warnings of a body's unknown fields (a 5xx's are dropped with its
// detail).
func (a *API) writeError(w http.ResponseWriter, r *http.Request, rid string, status int, msg string, warnings ...string) {
	code := "HTTP_ERROR"
	switch {
	case status == http.StatusServiceUnavailable:
		code, msg, warnings = "SYSTEM_ERROR", "Service unavailable: the memory store cannot be reached; retry", nil
	case status >= 500:
		code, msg, warnings = "SYSTEM_ERROR", "Internal server error", nil
	}
	a.writeJSON(w, status, errorEnvelope{RequestID: rid, Error: errorBody{
		Code: code, Message: msg, Timestamp: formatErrorTime(a.cfg.Now(), a.loc), Path: r.URL.Path,
	}, Warnings: warnings})
}

// The envelopes of seed 001.
type (
	successEnvelope struct {
		RequestID string `json:"request_id"`
		Data      any    `json:"data"`
		// Warnings (loci's, not the seed's) name the body's fields the
		// endpoint does not take (unknown.go); absent when there are none.
		Warnings []string `json:"warnings,omitempty"`
	}
	errorEnvelope struct {
		RequestID string    `json:"request_id"`
		Error     errorBody `json:"error"`
		Warnings  []string  `json:"warnings,omitempty"`
	}
	errorBody struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Timestamp string `json:"timestamp"`
		Path      string `json:"path"`
	}
)

// writeJSON encodes v, redacts secrets (defence in depth: stored text is
// already redacted) and writes it.
func (a *API) writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		a.log.Error().Err(err).Msg("encode response")
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":{"code":"SYSTEM_ERROR","message":"Internal server error"}}` + "\n")
	}
	out := redact.JSON(buf.Bytes())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(status)
	_, _ = w.Write(out)
}
