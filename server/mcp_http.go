package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/redact"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// MCP over HTTP. The companion mounts mcp-go's streamable HTTP and SSE
// transports; they keep what is theirs — sessions, event streams, the
// transport's own validation, notifications — while every JSON-RPC
// request posted to them is answered by the same dispatcher as stdio
// (dispatch.go). A front placed before each transport decodes the posted
// message once, answers requests itself, and hands the transport
// everything else with the body intact. So an unknown tool, an unknown
// method or a failed resource read gets the same answer on every
// transport.
//
// Requests of protocol revision 2026-07-28 (no handshake, protocol
// version in _meta) go to mcp-go whole: that revision changes the
// transport's rules, and mcp-go implements them. Its tools and resources
// are registered from the same table (newMCPServer), so those requests
// reach the same handlers, with the error codes that revision gives.

// newMCPServer builds the mcp-go server the HTTP transports run on, its
// tools and resources bound to the table.
func (s *Server) newMCPServer(listed []mcp.Tool) *mcpserver.MCPServer {
	hooks := &mcpserver.Hooks{}
	hooks.AddOnRegisterSession(func(ctx context.Context, cs mcpserver.ClientSession) { s.sessions.add(cs.SessionID(), holder(ctx)) })
	hooks.AddOnUnregisterSession(func(_ context.Context, cs mcpserver.ClientSession) { s.sessions.remove(cs.SessionID()) })
	m := mcpserver.NewMCPServer(Name, s.cfg.Version,
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithResourceCapabilities(false, false),
		mcpserver.WithInstructions(s.instructions()),
		mcpserver.WithHooks(hooks),
		mcpserver.WithRecovery(),
	)
	for _, t := range listed {
		name := t.Name
		m.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.Params.RawArguments
			if len(args) == 0 && req.Params.Arguments != nil { // an in-process caller
				args, _ = json.Marshal(req.Params.Arguments)
			}
			text, isError, rerr := s.callTool(ctx, nil, name, args)
			if rerr != nil {
				return nil, errors.New(redactString(rerr.Message))
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(redactString(text))}, IsError: isError}, nil
		})
	}
	read := func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		c, rerr := s.readResource(ctx, nil, req.Params.URI)
		if rerr != nil {
			return nil, errors.New(redactString(rerr.Message))
		}
		c.URI, c.Text = redactString(c.URI), redactString(c.Text)
		return []mcp.ResourceContents{c}, nil
	}
	for _, r := range resourceList() {
		m.AddResource(r, read)
	}
	for _, t := range templateList() {
		m.AddResourceTemplate(t, read)
	}
	return m
}

// MCP returns the mcp-go server the HTTP transports run on.
func (s *Server) MCP() *mcpserver.MCPServer { return s.mcp }

func redactString(s string) string {
	out, _ := redact.String(s)
	return out
}

// sessionSet tracks the sessions mcp-go has open, and who opened each,
// so that the SSE front answers only for sessions whose stream can carry
// the answer, and only their holder.
type sessionSet struct{ m sync.Map } // session id → holder

func (ss *sessionSet) add(id, holder string) { ss.m.Store(id, holder) }
func (ss *sessionSet) remove(id string)      { ss.m.Delete(id) }
func (ss *sessionSet) has(id string) bool    { _, ok := ss.m.Load(id); return id != "" && ok }

// heldByOther reports whether session id is open and was opened by
// someone else than holder.
func (ss *sessionSet) heldByOther(id, holder string) bool {
	h, ok := ss.m.Load(id)
	return id != "" && ok && h != holder
}

// holder names who a request acts for, as the token gate decided
// (http_auth.go): a user token's public id, or "" for the owner and for a
// companion without tokens. An MCP session is bound to its holder (the
// MCP specification's advice against session hijacking): a session id
// seen by someone else — in a log, a proxy, a shared terminal — does not
// let their token post into the session's stream, whose client would
// take the answers for its own, or cancel its requests.
func holder(ctx context.Context) string {
	if c, ok := palace.CallerFrom(ctx); ok {
		return c.TokenID
	}
	return ""
}

// mcpFront answers the JSON-RPC requests posted to one mcp-go transport.
type mcpFront struct {
	s    *Server
	next http.Handler
	// sse, when set, is the SSE transport: answers travel on the session's
	// event stream; otherwise the transport is streamable HTTP and answers
	// are the response body.
	sse      *mcpserver.SSEServer
	sessions mcpserver.SessionIdManager // the streamable transport's

	wg       sync.WaitGroup // answers still being computed for SSE sessions
	mu       sync.Mutex
	inflight map[string]context.CancelFunc // session id + request id
}

func newStreamableFront(s *Server, next http.Handler, sessions mcpserver.SessionIdManager) *mcpFront {
	return &mcpFront{s: s, next: next, sessions: sessions, inflight: map[string]context.CancelFunc{}}
}

func newSSEFront(s *Server, sse *mcpserver.SSEServer) *mcpFront {
	return &mcpFront{s: s, next: sse, sse: sse, inflight: map[string]context.CancelFunc{}}
}

func (f *mcpFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.s.sessions.heldByOther(f.session(r), holder(r.Context())) {
		// Someone else's session (an SSE session, or a streamable one with
		// its GET stream open): answered as an unknown session is, so that
		// the id is not confirmed to whoever does not hold it.
		if f.sse != nil {
			writeRPC(w, http.StatusBadRequest, f.s.encodeError(nil, codeInvalidParams, "Invalid session ID"))
		} else {
			writeRPC(w, http.StatusNotFound, f.s.encodeError(nil, codeInvalidRequest, errUnknownSession))
		}
		return
	}
	if f.sse == nil && f.transportAccepts(r) {
		if status, msg := f.refuseRequest(r); status != 0 {
			if status == http.StatusMethodNotAllowed {
				w.Header().Set("Allow", "GET, POST, DELETE")
			}
			writeRPC(w, status, f.s.encodeError(nil, codeInvalidRequest, msg))
			return
		}
	}
	if r.Method != http.MethodPost || !f.transportAccepts(r) {
		f.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil { // the transport reports it (a body over the limit)
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		f.next.ServeHTTP(w, r)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	m, errResp := f.s.parseMessage(body)
	switch {
	case errResp != nil:
		writeRPC(w, http.StatusBadRequest, errResp)
		return
	case m == nil || modern(r, m):
		f.next.ServeHTTP(w, r)
		return
	}
	sid := f.session(r)
	if f.sse == nil && m.Method != "initialize" {
		if status, msg := f.refuseSession(r); status != 0 {
			writeRPC(w, status, f.s.encodeError(m.ID, codeInvalidRequest, msg))
			return
		}
	}
	if m.isNotification() {
		if m.Method == "notifications/cancelled" {
			f.cancel(r.Context(), sid, m.Params.RequestID)
		}
		f.next.ServeHTTP(w, r)
		return
	}
	if f.sse == nil { // streamable HTTP: the answer is the response
		if m.Method == "initialize" {
			sid = f.sessions.Generate()
			w.Header().Set(mcpserver.HeaderKeySessionID, sid)
		}
		ctx, done := f.track(r.Context(), sid, m.ID)
		resp := f.s.respond(ctx, m)
		if done() {
			writeRPC(w, http.StatusOK, resp)
		}
		return
	}
	// SSE: accept now, answer on the session's stream.
	w.WriteHeader(http.StatusAccepted)
	ctx, done := f.track(context.WithoutCancel(r.Context()), sid, m.ID)
	f.wg.Go(func() {
		resp := f.s.respond(ctx, m)
		if done() {
			f.deliver(sid, resp)
		}
	})
}

// transportAccepts reports whether a request is this front's to check
// and a POST its to answer: on SSE, one for a session whose stream is
// open (the transport answers the others); on streamable HTTP, any but
// those of protocol revision 2026-07-28 by their header, which go to
// mcp-go whole.
func (f *mcpFront) transportAccepts(r *http.Request) bool {
	if f.sse != nil {
		return f.s.sessions.has(r.URL.Query().Get("sessionId"))
	}
	return !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
}

// refuseRequest checks a streamable HTTP request before its body is read:
// a method the transport does not take (405), a POST whose body is not
// JSON (415), a listening stream (GET) or a session's end (DELETE) without
// a session the transport knows (refuseSession; mcp-go would open a stream
// for any id, or none, making the session up, and end none without saying
// so). status is 0 when the request may go on.
func (f *mcpFront) refuseRequest(r *http.Request) (status int, msg string) {
	switch r.Method {
	case http.MethodPost:
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			return http.StatusUnsupportedMediaType, "Invalid Request: the body must be a JSON-RPC message sent as Content-Type: application/json"
		}
		return 0, ""
	case http.MethodGet, http.MethodDelete:
		return f.refuseSession(r)
	}
	return http.StatusMethodNotAllowed, "Invalid Request: MCP over streamable HTTP takes POST, and GET and DELETE for a session"
}

// errUnknownSession answers a session id the transport does not know.
const errUnknownSession = "Invalid Request: unknown or ended session (Mcp-Session-Id); send initialize for a new one"

// refuseSession checks a streamable HTTP message other than initialize as
// the transport would (the specification's status codes: 400 for a
// missing session id or protocol version the server does not speak, 404
// for an unknown or ended session, which tells the client to initialize
// again), so that the answer is a JSON-RPC error rather than the
// transport's plain text. status is 0 when the message may go on.
func (f *mcpFront) refuseSession(r *http.Request) (status int, msg string) {
	if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" && !mcp.IsValidProtocolVersion(v) {
		return http.StatusBadRequest, "Invalid Request: unsupported MCP-Protocol-Version " + strconv.Quote(palace.Truncate(v, 64)) +
			"; supported: " + strings.Join(mcp.ValidProtocolVersions, ", ")
	}
	sid := f.session(r)
	if sid == "" {
		return http.StatusBadRequest, "Invalid Request: the Mcp-Session-Id header is required; send initialize first and echo the id it returns"
	}
	if ended, err := f.sessions.Validate(sid); err != nil || ended {
		return http.StatusNotFound, errUnknownSession
	}
	return 0, ""
}

// session is the transport session a request belongs to.
func (f *mcpFront) session(r *http.Request) string {
	if f.sse != nil {
		return r.URL.Query().Get("sessionId")
	}
	return r.Header.Get(mcpserver.HeaderKeySessionID)
}

// track registers a request so that notifications/cancelled can cancel
// it; done unregisters it and reports whether it must still be answered.
func (f *mcpFront) track(ctx context.Context, sid string, id json.RawMessage) (context.Context, func() bool) {
	ctx, cancel := context.WithCancel(ctx)
	if sid != "" {
		ctx = withConnection(ctx, "mcp:"+sid)
	}
	key := inflightKey(ctx, sid, id)
	f.mu.Lock()
	f.inflight[key] = cancel
	f.mu.Unlock()
	return ctx, func() bool {
		defer cancel()
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.inflight, key)
		return ctx.Err() == nil
	}
}

// cancel cancels the request id of session sid, if ctx's holder made it.
func (f *mcpFront) cancel(ctx context.Context, sid string, id json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cancel, ok := f.inflight[inflightKey(ctx, sid, id)]; ok {
		cancel()
	}
}

// inflightKey names a request in flight: its holder, session and id. The
// streamable transport's sessions are stateless (any well-formed id is
// accepted), so the holder is what keeps one user from cancelling
// another's request.
func inflightKey(ctx context.Context, sid string, id json.RawMessage) string {
	return holder(ctx) + "\x00" + sid + "\x00" + string(id)
}

// deliver queues an answer on an SSE session's stream, waiting while the
// stream's queue is full, until the session ends.
func (f *mcpFront) deliver(sid string, resp []byte) {
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := f.sse.SendEventToSession(sid, json.RawMessage(resp))
		if err == nil || !f.s.sessions.has(sid) {
			return
		}
		time.Sleep(wait)
	}
}

// wait lets the SSE answers being computed finish, at most until ctx ends.
func (f *mcpFront) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// modern reports a request of protocol revision 2026-07-28 or later.
func modern(r *http.Request, m *message) bool {
	if mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
		return true
	}
	if len(m.Params.Meta) == 0 {
		return false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(m.Params.Meta, &meta) != nil {
		return false
	}
	var v string
	_ = json.Unmarshal(meta[mcp.MetaKeyProtocolVersion], &v)
	return mcp.IsModernProtocol(v)
}

func writeRPC(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
