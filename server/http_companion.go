package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loci-mem/loci/server/httpapi"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// The HTTP companion's additions beside /health and the hub: seed 001's
// API and the operational endpoints (package httpapi), MCP over streamable
// HTTP at /mcp and over SSE at /sse + /message (the same tools as stdio),
// and the safety rules: Host and Origin checks against DNS rebinding, a
// constant-time bearer token check, a request body limit, read/write/idle
// timeouts and a graceful shutdown that ends streams and drains requests.

// Defaults of the companion's limits; LOCI_HTTP_MAX_BODY and
// LOCI_HTTP_WRITE_TIMEOUT override the first two.
const (
	DefaultMaxBody      = 32 << 20
	DefaultWriteTimeout = 5 * time.Minute
)

type companion struct {
	api          *httpapi.API
	streamable   *mcpserver.StreamableHTTPServer
	sse          *mcpserver.SSEServer
	maxBody      int64
	writeTimeout time.Duration
	hosts        map[string]bool // extra allowed Host names (LOCI_HTTP_ALLOWED_HOSTS)
	origins      map[string]bool // extra allowed origins (LOCI_HTTP_ALLOWED_ORIGINS)
	anyHost      bool            // bound to every interface: the token guards it

	// streamableFront and sseFront answer the transports' requests (mcp_http.go).
	streamableFront, sseFront *mcpFront
}

// mountCompanion builds the API and MCP transports and mounts them.
func (h *HTTP) mountCompanion() error {
	c := &companion{maxBody: DefaultMaxBody, writeTimeout: DefaultWriteTimeout, hosts: map[string]bool{}, origins: map[string]bool{}}
	if v := strings.TrimSpace(os.Getenv("LOCI_HTTP_MAX_BODY")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("LOCI_HTTP_MAX_BODY %q: want a positive number of bytes", v)
		}
		c.maxBody = n
	}
	if v := strings.TrimSpace(os.Getenv("LOCI_HTTP_WRITE_TIMEOUT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("LOCI_HTTP_WRITE_TIMEOUT %q: want a duration such as 5m", v)
		}
		c.writeTimeout = d
	}
	for _, s := range strings.Split(os.Getenv("LOCI_HTTP_ALLOWED_HOSTS"), ",") {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			c.hosts[s] = true
		}
	}
	for _, s := range strings.Split(os.Getenv("LOCI_HTTP_ALLOWED_ORIGINS"), ",") {
		if s = strings.TrimRight(strings.ToLower(strings.TrimSpace(s)), "/"); s != "" {
			c.origins[s] = true
		}
	}
	bindHost, _, _ := net.SplitHostPort(h.cfg.Addr)
	if ip := net.ParseIP(strings.Trim(bindHost, "[]")); bindHost == "" || (ip != nil && ip.IsUnspecified()) {
		c.anyHost = true
	}

	acfg := httpapi.Config{Registry: h.cfg.Server.reg, Logger: h.cfg.Logger, Version: h.cfg.Server.cfg.Version}
	if err := httpapi.ConfigFromEnv(&acfg); err != nil {
		return err
	}
	acfg.Content.Loopback = isLoopbackHost(bindHost)
	api, err := httpapi.New(acfg)
	if err != nil {
		return err
	}
	c.api = api
	api.Register(h.mux)

	srv := h.cfg.Server
	metrics := api.Metrics()
	srv.ObserveTools(metrics.ObserveTool)
	// Our guard checks Host and Origin for every route, so mcp-go's own
	// loopback check is redundant (and would refuse LOCI_HTTP_ALLOWED_HOSTS).
	// Each transport sits behind a front that answers its JSON-RPC requests
	// through the same dispatcher as stdio (mcp_http.go).
	sessionIDs := &mcpserver.StatelessGeneratingSessionIdManager{}
	c.streamable = mcpserver.NewStreamableHTTPServer(srv.MCP(), mcpserver.WithEndpointPath("/mcp"),
		mcpserver.WithDisableLocalhostProtection(true), mcpserver.WithSessionIdManager(sessionIDs))
	c.sse = mcpserver.NewSSEServer(srv.MCP(), mcpserver.WithSSEEndpoint("/sse"), mcpserver.WithMessageEndpoint("/message"),
		mcpserver.WithSSEDisableLocalhostProtection(true))
	c.streamableFront = newStreamableFront(srv, c.streamable, sessionIDs)
	c.sseFront = newSSEFront(srv, c.sse)
	h.mux.Handle("/mcp", streaming(c.streamableFront, http.MethodGet))
	h.mux.Handle("/sse", streaming(c.sse, ""))
	h.mux.Handle("/message", c.sseFront)
	h.comp = c
	return nil
}

// streaming lifts the write timeout for long-lived responses (all methods
// when method is "", else only that one).
func streaming(next http.Handler, method string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if method == "" || r.Method == method {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		}
		next.ServeHTTP(w, r)
	})
}

// handler is the companion's full handler chain: metrics around the
// guard around the routes.
func (h *HTTP) handler() http.Handler {
	inner := h.guard(h.mux)
	if h.comp == nil {
		return inner
	}
	return h.comp.api.Metrics().Middleware(h.mux, inner)
}

// hostAllowed reports whether a request's Host may reach us: loopback
// names always, the bound host, LOCI_HTTP_ALLOWED_HOSTS, and any host when
// bound to every interface (where the token is required).
func (h *HTTP) hostAllowed(host string) bool {
	if isLoopbackHost(host) {
		return true
	}
	bindHost, _, _ := net.SplitHostPort(h.cfg.Addr)
	if strings.EqualFold(host, strings.Trim(bindHost, "[]")) {
		return true
	}
	if h.comp == nil {
		return false
	}
	return h.comp.anyHost || h.comp.hosts[strings.ToLower(host)]
}

// originAllowed accepts requests without an Origin (non-browser clients),
// same-origin requests, and LOCI_HTTP_ALLOWED_ORIGINS.
func (h *HTTP) originAllowed(r *http.Request) bool {
	origin := strings.TrimSpace(r.Header.Get("Origin"))
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return h.comp != nil && (h.comp.origins[strings.TrimRight(strings.ToLower(origin), "/")] || h.comp.origins["*"])
}

// limitBody caps request bodies.
func (h *HTTP) limitBody(w http.ResponseWriter, r *http.Request) {
	if h.comp != nil && r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, h.comp.maxBody)
	}
}

func (h *HTTP) writeTimeout() time.Duration {
	if h.comp != nil {
		return h.comp.writeTimeout
	}
	return DefaultWriteTimeout
}

// shutdownStreams ends the long-lived responses so that the server's
// graceful shutdown can drain the rest.
func (h *HTTP) shutdownStreams(ctx context.Context) {
	if h.comp == nil {
		return
	}
	h.comp.api.Close()
	h.comp.sseFront.wait(ctx)
	_ = h.comp.sse.Shutdown(ctx)
	_ = h.comp.streamable.Shutdown(ctx)
}

// indexHealth reports, per open palace, how many drawer changes its vector
// index has not replayed yet (it catches up on the next search).
func (h *HTTP) indexHealth(ctx context.Context) map[string]any {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out := map[string]any{}
	for _, p := range h.cfg.Server.reg.Opened() {
		in := p.IndexInfo()
		lag, err := p.IndexLag(ctx)
		if err != nil {
			continue
		}
		out[p.Name()] = map[string]any{"lag": lag, "loaded": in.Loaded, "vectors": in.Vectors}
	}
	return out
}
