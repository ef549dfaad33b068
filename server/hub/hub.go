package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/redact"
	"github.com/rs/zerolog"
)

// Options configures the hub.
type Options struct {
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// Version is shown in the page footer.
	Version string
	// PollInterval is how often the live stream reads the palaces' change
	// logs. Default 500ms.
	PollInterval time.Duration
	// KeepAlive is how often an idle live stream sends a comment so that
	// proxies and the browser keep it open. Default 15s.
	KeepAlive time.Duration
}

// MutationHeader must be present (any non-empty value) on every request
// that changes the store. Browsers cannot add it to a cross-site request
// without a CORS preflight, which the hub never answers, so a page on
// another origin cannot forget or approve anything through a user's
// loopback companion.
const MutationHeader = "X-Loci-Hub"

// Hub serves the dashboard and its API. It is safe for concurrent use.
type Hub struct {
	reg  *palace.Registry
	opts Options
	log  zerolog.Logger
	mux  *http.ServeMux
	page asset

	// shutdown holds, per *http.Server the hub is served by, a channel
	// closed when that server starts shutting down: live streams end then
	// instead of holding the graceful shutdown open.
	mu       sync.Mutex
	shutdown map[*http.Server]chan struct{}
}

// Handler returns the hub over the registry's palaces. Mount it at "/"
// (or at "/{$}" and "/hub/"); it answers "/", /hub/assets/ and /hub/api/
// and 404s anything else.
func Handler(reg *palace.Registry, opts Options) http.Handler {
	if opts.PollInterval <= 0 {
		opts.PollInterval = 500 * time.Millisecond
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	h := &Hub{reg: reg, opts: opts, log: opts.Logger, mux: http.NewServeMux(),
		shutdown: map[*http.Server]chan struct{}{}, page: pageAsset(opts.Version)}
	h.routes()
	return h
}

// IsPublicPath reports whether path is part of the page shell (the HTML and
// its static assets), which holds no memory data and may be served without
// the companion's bearer token: a browser cannot attach a header to the
// navigation that loads the page, so the page asks for the token itself.
func IsPublicPath(path string) bool {
	return path == "/" || strings.HasPrefix(path, "/hub/assets/")
}

func (h *Hub) routes() {
	m := h.mux
	m.HandleFunc("GET /{$}", h.index)
	m.Handle("GET /hub/assets/", assetHandler())
	m.HandleFunc("GET /hub/api/overview", h.overview)
	m.HandleFunc("GET /hub/api/palaces", h.palaceCards)
	m.HandleFunc("GET /hub/api/palaces/{palace}/drawers", h.timeline)
	m.HandleFunc("GET /hub/api/palaces/{palace}/drawers/{id}", h.drawerDetail)
	m.HandleFunc("DELETE /hub/api/palaces/{palace}/drawers/{id}", h.forget)
	m.HandleFunc("GET /hub/api/search", h.search)
	m.HandleFunc("GET /hub/api/review", h.reviewQueue)
	m.HandleFunc("POST /hub/api/palaces/{palace}/review/{id}/{action}", h.reviewAction)
	m.HandleFunc("POST /hub/api/palaces/{palace}/undo", h.undo)
	m.HandleFunc("GET /hub/api/palaces/{palace}/kg", h.kgSubjects)
	m.HandleFunc("GET /hub/api/palaces/{palace}/kg/subject", h.kgSubject)
	m.HandleFunc("GET /hub/api/events", h.events)
	m.HandleFunc("/hub/api/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, &apiError{status: http.StatusNotFound, code: "not_found", msg: "no such hub API route: " + r.Method + " " + r.URL.Path})
	})
}

// ServeHTTP serves the page, its assets and the API.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Header.Get(MutationHeader) == "" {
		h.fail(w, r, &apiError{status: http.StatusForbidden, code: "forbidden",
			msg: "requests that change memories must carry the " + MutationHeader + " header"})
		return
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" && strings.HasPrefix(r.URL.Path, "/hub/api/") {
		h.fail(w, r, &apiError{status: http.StatusForbidden, code: "forbidden", msg: "cross-site requests are refused"})
		return
	}
	h.mux.ServeHTTP(w, r)
}

// apiError is an error with its HTTP status and a message fit for a user.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, a ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, code: "invalid", msg: fmt.Sprintf(format, a...)}
}

// fail translates err into the API's error body once, here: palace codes
// and kg validation errors become 4xx with their message; anything else is
// logged and shown as a bare internal error.
func (h *Hub) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	var pe *palace.Error
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &pe) && pe.Code == palace.CodeInvalid:
		ae = &apiError{http.StatusBadRequest, "invalid", pe.Message}
	case errors.As(err, &pe) && pe.Code == palace.CodeNotFound:
		ae = &apiError{http.StatusNotFound, "not_found", pe.Message}
	case errors.As(err, &pe) && pe.Code == palace.CodeConflict:
		ae = &apiError{http.StatusConflict, "conflict", pe.Message}
	case errors.As(err, &pe) && pe.Code == palace.CodeForbidden:
		ae = &apiError{http.StatusForbidden, "forbidden", pe.Message}
	case errors.As(err, &pe) && pe.Code == palace.CodeUnavailable:
		ae = &apiError{http.StatusServiceUnavailable, "unavailable", pe.Message}
	case errors.Is(err, kg.ErrInvalid):
		ae = &apiError{http.StatusBadRequest, "invalid", err.Error()}
	case errors.Is(err, context.Canceled):
		return // the client went away
	default:
		h.log.Error().Err(err).Str("path", r.URL.Path).Msg("hub request failed")
		ae = &apiError{http.StatusInternalServerError, "internal", "internal error; see the server log"}
	}
	writeJSON(w, ae.status, map[string]any{"error": map[string]string{"code": ae.code, "message": ae.msg}})
}

// writeJSON writes v as JSON with secrets redacted, as every face does at
// its output.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"unencodable result"}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(redact.JSON(b), '\n'))
}

// openPalace opens the palace named in the path. The hub never creates
// palaces.
func (h *Hub) openPalace(r *http.Request, name string) (*palace.Palace, error) {
	if err := palace.ValidateName(name); err != nil {
		return nil, err
	}
	return h.reg.Open(r.Context(), name)
}

// palaces opens every palace under the data dir, or only the one named by
// the "palace" query parameter when it is set.
func (h *Hub) palaces(r *http.Request) ([]*palace.Palace, error) {
	if name := r.URL.Query().Get("palace"); name != "" {
		p, err := h.openPalace(r, name)
		if err != nil {
			return nil, err
		}
		return []*palace.Palace{p}, nil
	}
	names, err := h.reg.List()
	if err != nil {
		return nil, err
	}
	names = palace.Visible(r.Context(), names)
	out := make([]*palace.Palace, 0, len(names))
	for _, n := range names {
		p, err := h.reg.Open(r.Context(), n)
		if errors.Is(err, palace.ErrNotFound) {
			continue // removed between List and Open
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// intParam reads an integer query parameter in [lo, hi], def when absent.
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, badRequest("%s must be an integer between %d and %d, got %q", name, lo, hi, s)
	}
	return n, nil
}
