package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server/hub"
)

// Who may use the HTTP companion. Two kinds of bearer token are accepted:
//
//   - the owner's, $LOCI_HTTP_TOKEN (HTTPConfig.Token): everything, as at
//     the terminal;
//   - a user's, made with `loci token create` and kept hashed in the store
//     (palace.Registry.Authenticate): only the palaces and access level it
//     was made for, which the core enforces (palace.Caller).
//
// A token is required when either kind exists; with neither (and a
// loopback address) the companion is open, as a single user's is. Every
// request is logged with the user it acted for (info level).

// tokensRecheck is how long the answer to "are there user tokens?" is
// kept: a token made or revoked with the CLI counts within this time.
const tokensRecheck = 2 * time.Second

type tokenGate struct {
	reg   *palace.Registry
	mu    sync.Mutex
	at    time.Time
	exist bool
}

// required reports whether the store holds a user token that is not
// revoked. A store it cannot read counts as holding one: fail closed.
func (g *tokenGate) required(ctx context.Context) bool {
	exist, err := g.check(ctx)
	return exist || err != nil
}

// check reports whether the store holds a user token that is not
// revoked, or why it cannot tell. Only an answer is kept for
// tokensRecheck: while the store cannot be read, each request asks again.
func (g *tokenGate) check(ctx context.Context) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if time.Since(g.at) < tokensRecheck {
		return g.exist, nil
	}
	exist, err := g.reg.HasTokens(ctx)
	if err != nil {
		return false, err
	}
	g.exist, g.at = exist, time.Now()
	return exist, nil
}

// authenticate decides who r acts for. It returns r with the caller in
// its context, the user's name for the log, and, when r may not proceed,
// the status and message to answer.
func (h *HTTP) authenticate(r *http.Request) (*http.Request, string, int, string) {
	if r.URL.Path == "/health" || hub.IsPublicPath(r.URL.Path) {
		return r, "", 0, ""
	}
	if h.cfg.Token == "" {
		need, err := h.gate.check(r.Context())
		if _, has := bearer(r); err != nil && !has {
			// Fail closed, and say why: whether a token is needed is
			// written in the store, which cannot be read. A 401 would tell
			// a client that never needed a token to go and find one.
			status, msg := h.storeFailure(err, "read whether user tokens exist")
			return r, "", status, msg
		}
		if err == nil && !need {
			return r, "", 0, ""
		}
	}
	return h.authenticateToken(r)
}

// bearer returns r's bearer token, and whether it carries one. The scheme
// is case-insensitive (RFC 9110 §11.1): "bearer" is Bearer.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// storeFailure is the answer to a request that a failure of the store
// stops: 503 while it cannot be reached, else 500, logged as op.
func (h *HTTP) storeFailure(err error, op string) (int, string) {
	if errors.Is(err, palace.ErrUnavailable) {
		return http.StatusServiceUnavailable, "the memory store cannot be reached; retry"
	}
	h.cfg.Logger.Error().Err(err).Msg(op)
	return http.StatusInternalServerError, "internal error; see the server log"
}

// authenticateToken checks r's bearer token, as authenticate does for
// every route that needs one.
func (h *HTTP) authenticateToken(r *http.Request) (*http.Request, string, int, string) {
	got, ok := bearer(r)
	if !ok {
		return r, "", http.StatusUnauthorized, "missing bearer token"
	}
	if h.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(h.cfg.Token)) == 1 {
		return r, "owner", 0, ""
	}
	c, err := h.cfg.Server.reg.Authenticate(r.Context(), got)
	if errors.Is(err, palace.ErrBadToken) {
		return r, "", http.StatusUnauthorized, "missing or wrong bearer token"
	}
	if err != nil {
		status, msg := h.storeFailure(err, "authenticate")
		return r, "", status, msg
	}
	return r.WithContext(palace.WithCaller(r.Context(), c)), c.User, 0, ""
}

// statusRecorder remembers the status a handler wrote, for the log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Flush passes through: event streams type-assert http.Flusher.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		if s.status == 0 {
			s.status = http.StatusOK
		}
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the writer's Flush and
// deadlines (streams need them).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logRequest writes the access log line of a request.
func (h *HTTP) logRequest(r *http.Request, user string, status int, start time.Time) {
	if user == "" {
		user = "-"
	}
	h.cfg.Logger.Info().Str("method", r.Method).Str("path", r.URL.Path).Int("status", status).
		Str("user", user).Dur("took", time.Since(start)).Msg("http request")
}
