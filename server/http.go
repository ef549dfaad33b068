package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server/hub"
	"github.com/rs/zerolog"
)

// HTTPConfig configures the HTTP companion.
type HTTPConfig struct {
	Server *Server
	// Addr is host:port. The host must be a loopback address unless Token
	// is set: the companion refuses to expose memories unauthenticated.
	Addr string
	// Token, when set, is the owner's: accepted as "Authorization: Bearer
	// <token>" for everything. Users' tokens (`loci token create`) are
	// accepted beside it; when either exists every request but /health
	// and the hub's page shell needs one. Default: $LOCI_HTTP_TOKEN.
	Token string
	// TLSCert and TLSKey, when both set, are PEM files of a certificate
	// (chain) and its key: the companion then speaks HTTPS only.
	TLSCert, TLSKey string
	Logger          zerolog.Logger
}

// HTTP is the HTTP companion: health now; the EverOS API, MCP over HTTP,
// metrics and events mount on the same mux.
type HTTP struct {
	cfg     HTTPConfig
	tls     *tls.Config // nil: plain HTTP
	gate    *tokenGate  // are there user tokens? (http_auth.go)
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
	var tlsCfg *tls.Config
	switch {
	case cfg.TLSCert != "" && cfg.TLSKey != "":
		pair, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("TLS certificate and key: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	case cfg.TLSCert != "" || cfg.TLSKey != "":
		return nil, errors.New("TLS needs both a certificate (--tls-cert) and its key (--tls-key)")
	}
	gate := &tokenGate{reg: cfg.Server.reg}
	if !isLoopbackHost(host) && cfg.Token == "" && !gate.required(context.Background()) {
		return nil, fmt.Errorf("address %q is not loopback: create user tokens (`loci token create`) or set LOCI_HTTP_TOKEN before binding it", cfg.Addr)
	}
	h := &HTTP{cfg: cfg, tls: tlsCfg, gate: gate, mux: http.NewServeMux(), started: time.Now()}
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

// RequiresToken reports whether requests need a bearer token (the
// owner's or a user's).
func (h *HTTP) RequiresToken() bool {
	return h.cfg.Token != "" || h.gate.required(context.Background())
}

// Listen binds the configured address.
func (h *HTTP) Listen() (net.Listener, error) {
	return net.Listen("tcp", h.cfg.Addr)
}

// Scheme is "https" when the companion serves TLS, else "http".
func (h *HTTP) Scheme() string {
	if h.tls != nil {
		return "https"
	}
	return "http"
}

// Serve answers HTTP on ln until ctx is cancelled, then shuts down
// gracefully, letting in-flight requests finish (at most DrainTimeout).
func (h *HTTP) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		TLSConfig:         h.tls,
		Handler:           h.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      h.writeTimeout(), // streams lift it per request
		IdleTimeout:       120 * time.Second,
	}
	errc := make(chan error, 1)
	go func() {
		if h.tls != nil {
			errc <- srv.ServeTLS(ln, "", "") // the certificate is in TLSConfig
			return
		}
		errc <- srv.Serve(ln)
	}()
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
		start := time.Now()
		r, user, status, msg := h.authenticate(r)
		if status != 0 {
			switch status {
			case http.StatusUnauthorized:
				w.Header().Set("WWW-Authenticate", "Bearer")
			case http.StatusServiceUnavailable: // the store holding the tokens is away
				w.Header().Set("Retry-After", "1")
			}
			http.Error(w, msg, status)
			h.logRequest(r, user, status, start)
			return
		}
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		h.logRequest(r, user, rec.status, start)
	})
}

// health answers liveness without a token. What it says about palaces
// (their names, their indexes) it says only to whoever may see them: when
// tokens are required, a request without a valid one learns the status
// and version alone, and a user's token sees the palaces it reaches.
func (h *HTTP) health(w http.ResponseWriter, r *http.Request) {
	out := map[string]any{
		"status":         "ok",
		"version":        h.cfg.Server.cfg.Version,
		"uptime_seconds": int(time.Since(h.started).Seconds()),
	}
	ctx := r.Context()
	if h.cfg.Token != "" || h.gate.required(ctx) {
		r2, user, status, _ := h.authenticateToken(r)
		if status != 0 || user == "" {
			writeJSON(w, http.StatusOK, out)
			return
		}
		ctx = r2.Context()
	}
	reg := h.cfg.Server.reg
	open := []string{}
	for _, p := range reg.Opened() {
		open = append(open, p.Name())
	}
	out["palaces_open"] = palace.Visible(ctx, open)
	if palace.Allow(ctx, h.cfg.Server.cfg.DefaultPalace, palace.AccessRead) == nil {
		out["default_palace"] = h.cfg.Server.cfg.DefaultPalace
	}
	index := h.indexHealth(ctx)
	for name := range index {
		if palace.Allow(ctx, name, palace.AccessRead) != nil {
			delete(index, name)
		}
	}
	out["index"] = index
	writeJSON(w, http.StatusOK, out)
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
