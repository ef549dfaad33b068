package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/loci-mem/loci/server/hub"
	"github.com/rs/zerolog"
)

// HTTPConfig configures the HTTP companion.
type HTTPConfig struct {
	Server *Server
	// Addr is host:port. The host must be a loopback address unless Token
	// is set: the companion refuses to expose memories unauthenticated.
	Addr string
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every request but /health. Default: $LOCI_HTTP_TOKEN.
	Token  string
	Logger zerolog.Logger
}

// HTTP is the HTTP companion: health now; the EverOS API, MCP over HTTP,
// metrics and events mount on the same mux.
type HTTP struct {
	cfg     HTTPConfig
	mux     *http.ServeMux
	started time.Time
	comp    *companion // the EverOS API, MCP over HTTP, metrics, events (http_companion.go)
}

// NewHTTP validates the address and builds the handler tree.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	if cfg.Server == nil {
		return nil, errors.New("http: nil server")
	}
	if cfg.Token == "" {
		cfg.Token = os.Getenv("LOCI_HTTP_TOKEN")
	}
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: want host:port, e.g. 127.0.0.1:3031", cfg.Addr)
	}
	if !isLoopbackHost(host) && cfg.Token == "" {
		return nil, fmt.Errorf("address %q is not loopback: set LOCI_HTTP_TOKEN to require a bearer token before binding it", cfg.Addr)
	}
	h := &HTTP{cfg: cfg, mux: http.NewServeMux(), started: time.Now()}
	h.mux.HandleFunc("GET /health", h.health)
	// The Memory Hub: its page at "/", its assets and API under /hub/.
	hubHandler := hub.Handler(cfg.Server.reg, hub.Options{Logger: cfg.Logger, Version: cfg.Server.cfg.Version})
	h.mux.Handle("/{$}", hubHandler)
	h.mux.Handle("/hub/", hubHandler)
	if err := h.mountCompanion(); err != nil {
		return nil, err
	}
	return h, nil
}

// Mux exposes the route table so other faces can mount on it.
func (h *HTTP) Mux() *http.ServeMux { return h.mux }

// RequiresToken reports whether requests need the bearer token.
func (h *HTTP) RequiresToken() bool { return h.cfg.Token != "" }

// Listen binds the configured address.
func (h *HTTP) Listen() (net.Listener, error) {
	return net.Listen("tcp", h.cfg.Addr)
}

// Serve answers HTTP on ln until ctx is cancelled, then shuts down
// gracefully, letting in-flight requests finish (at most DrainTimeout).
func (h *HTTP) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           h.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      h.writeTimeout(), // streams lift it per request
		IdleTimeout:       120 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), DrainTimeout)
		defer cancel()
		h.shutdownStreams(sctx)
		if err := srv.Shutdown(sctx); err != nil {
			return err
		}
		return nil
	}
}

// guard rejects requests whose Host header is not one we serve and
// cross-origin browser requests (DNS rebinding), caps the request body,
// and, when a token is configured, rejects requests without it.
func (h *HTTP) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		if strings.TrimSpace(host) == "" {
			// Without a Host there is nothing to check against DNS rebinding.
			http.Error(w, "missing Host header", http.StatusBadRequest)
			return
		}
		if !h.hostAllowed(host) {
			http.Error(w, "forbidden host", http.StatusForbidden)
			return
		}
		if !h.originAllowed(r) {
			http.Error(w, "forbidden origin", http.StatusForbidden)
			return
		}
		h.limitBody(w, r)
		// The hub's page shell holds no data; it asks for the token itself.
		if h.cfg.Token != "" && r.URL.Path != "/health" && !hub.IsPublicPath(r.URL.Path) {
			if !h.tokenOK(r) {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (h *HTTP) health(w http.ResponseWriter, r *http.Request) {
	reg := h.cfg.Server.reg
	open := []string{}
	for _, p := range reg.Opened() {
		open = append(open, p.Name())
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"status":         "ok",
		"version":        h.cfg.Server.cfg.Version,
		"palaces_open":   open,
		"default_palace": h.cfg.Server.cfg.DefaultPalace,
		"uptime_seconds": int(time.Since(h.started).Seconds()),
		"index":          h.indexHealth(r.Context()),
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
