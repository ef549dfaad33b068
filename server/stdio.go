package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/redact"
)

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// maxLine bounds one NDJSON message.
const maxLine = 32 << 20

// DrainTimeout bounds how long shutdown waits for in-flight calls.
const DrainTimeout = 10 * time.Second

// methods are the JSON-RPC methods the stdio loop dispatches; anything
// else is "Method not found".
var methods = map[string]bool{
	"initialize":               true,
	"ping":                     true,
	"tools/list":               true,
	"tools/call":               true,
	"resources/list":           true,
	"resources/read":           true,
	"resources/templates/list": true,
}

// envelope is the part of a JSON-RPC message the loop needs to route it.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// ServeStdio runs the MCP server over newline-delimited JSON-RPC 2.0: one
// message per line read from in, one response per line written to out.
//
// It returns nil when in reaches EOF or ctx is cancelled (a signal), after
// letting in-flight calls finish (at most DrainTimeout). Requests execute
// one at a time in arrival order, so a recall sent after a remember sees
// it; ping and notifications are handled as soon as they are read, so a
// slow call can be cancelled. Notifications never get a response, and
// neither does a request the client cancelled with notifications/cancelled.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	l := &stdioLoop{s: s, w: out, inflight: map[string]*call{}, queue: make(chan job, 256)}
	l.wg.Add(1)
	go l.worker()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readLines(in, lines)
		close(lines)
	}()
	// Calls keep running when ctx is cancelled: shutdown stops reading,
	// then lets them finish.
	callCtx := context.WithoutCancel(ctx)
	for {
		select {
		case <-ctx.Done():
			s.log.Info().Msg("shutdown requested; draining in-flight calls")
			l.drain()
			return nil
		case line, ok := <-lines:
			if !ok {
				l.drain()
				err := <-readErr
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			l.handle(callCtx, line)
		}
	}
}

func readLines(in io.Reader, lines chan<- []byte) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			lines <- line
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads up to '\n'. An over-long line is consumed and replaced by
// a marker that the loop answers with a parse error.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			buf = []byte(tooLongMarker)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			return buf, err
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

const tooLongMarker = "\x00too-long"

type call struct {
	cancel    context.CancelFunc
	cancelled bool
}

type job struct {
	ctx  context.Context
	env  envelope
	line []byte
	c    *call
}

type stdioLoop struct {
	s     *Server
	wg    sync.WaitGroup
	queue chan job

	wmu sync.Mutex
	w   io.Writer

	mu       sync.Mutex
	inflight map[string]*call
}

func (l *stdioLoop) drain() {
	close(l.queue)
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(DrainTimeout):
		l.s.log.Warn().Dur("after", DrainTimeout).Msg("in-flight calls still running at shutdown")
	}
}

// write sends one message as one line. Output passes through the redactor:
// stored text is already clean, this is defence in depth.
func (l *stdioLoop) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		l.s.log.Error().Err(err).Msg("marshal response")
		b, _ = json.Marshal(errorResponse(nil, codeInternalError, "internal error: unencodable response"))
	}
	b = redact.JSON(b)
	b = append(b, '\n')
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if _, err := l.w.Write(b); err != nil {
		l.s.log.Debug().Err(err).Msg("write response")
	}
}

type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorBody    `json:"error"`
}

type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func errorResponse(id json.RawMessage, code int, msg string) rpcError {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorBody{Code: code, Message: msg}}
}

func (l *stdioLoop) handle(ctx context.Context, line []byte) {
	line = bytes.TrimSpace(line)
	if string(line) == tooLongMarker {
		l.write(errorResponse(nil, codeParseError, fmt.Sprintf("Parse error: message longer than %d bytes", maxLine)))
		return
	}
	if !utf8.Valid(line) {
		l.write(errorResponse(nil, codeParseError, "Parse error: message is not valid UTF-8"))
		return
	}
	if !json.Valid(line) {
		l.write(errorResponse(nil, codeParseError, "Parse error: message is not valid JSON"))
		return
	}
	switch line[0] {
	case '[':
		l.write(errorResponse(nil, codeInvalidRequest, "Invalid Request: batch requests are not supported; send one message per line"))
		return
	case '{':
	default:
		l.write(errorResponse(nil, codeInvalidRequest, "Invalid Request: a message must be a JSON object"))
		return
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		l.write(errorResponse(nil, codeInvalidRequest, "Invalid Request: "+err.Error()))
		return
	}
	isNotification := env.ID == nil
	if env.Method == "" {
		if env.Result != nil || env.Error != nil {
			return // a response to a server request; loci sends none, so ignore it
		}
		if !isNotification {
			l.write(errorResponse(env.ID, codeInvalidRequest, "Invalid Request: missing 'method'"))
		}
		return
	}
	if env.JSONRPC != "2.0" {
		if !isNotification {
			l.write(errorResponse(env.ID, codeInvalidRequest, `Invalid Request: 'jsonrpc' must be "2.0"`))
		}
		return
	}
	if isNotification {
		l.notification(ctx, env, line)
		return
	}
	if !validID(env.ID) {
		l.write(errorResponse(nil, codeInvalidRequest, "Invalid Request: 'id' must be a string or a number"))
		return
	}
	if !methods[env.Method] {
		l.write(errorResponse(env.ID, codeMethodNotFound, "Method not found: "+env.Method))
		return
	}
	if env.Method == "tools/call" {
		var p struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(env.Params, &p); err != nil || p.Name == "" {
			l.write(errorResponse(env.ID, codeInvalidParams, "Invalid params: tools/call needs params.name"))
			return
		}
		if !l.s.tools[p.Name] {
			l.write(errorResponse(env.ID, codeInternalError, "unknown tool: "+p.Name))
			return
		}
	}

	if env.Method == "ping" { // answered at once, even behind a slow call
		l.write(l.dispatch(ctx, env, line))
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	c := &call{cancel: cancel}
	l.mu.Lock()
	l.inflight[string(env.ID)] = c
	l.mu.Unlock()
	l.queue <- job{ctx: cctx, env: env, line: line, c: c}
}

// worker executes queued requests in order.
func (l *stdioLoop) worker() {
	defer l.wg.Done()
	for j := range l.queue {
		l.run(j)
	}
}

func (l *stdioLoop) run(j job) {
	defer j.c.cancel()
	key := string(j.env.ID)
	l.mu.Lock()
	skip := j.c.cancelled
	l.mu.Unlock()
	var resp any
	if !skip {
		resp = l.dispatch(j.ctx, j.env, j.line)
	}
	l.mu.Lock()
	dropped := j.c.cancelled
	if l.inflight[key] == j.c {
		delete(l.inflight, key)
	}
	l.mu.Unlock()
	if dropped || resp == nil {
		return
	}
	l.write(resp)
}

func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// dispatch hands a request to mcp-go and adapts the answer: the initialize
// result gains serverInfo.default_palace.
func (l *stdioLoop) dispatch(ctx context.Context, env envelope, line []byte) (resp any) {
	defer func() {
		if r := recover(); r != nil {
			l.s.log.Error().Interface("panic", r).Str("method", env.Method).Msg("request panicked")
			resp = errorResponse(env.ID, codeInternalError, "internal error")
		}
	}()
	if resp, ok := l.s.interceptResourceRead(ctx, env); ok {
		return resp // mem:// and memory:// URIs are parsed by loci (resources.go)
	}
	msg := l.s.mcp.HandleMessage(ctx, line)
	if msg == nil {
		return nil
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return errorResponse(env.ID, codeInternalError, "internal error: "+err.Error())
	}
	// Echo the caller's id byte for byte (mcp-go decodes numbers as floats).
	var out response
	if err := json.Unmarshal(b, &out); err != nil {
		return errorResponse(env.ID, codeInternalError, "internal error: "+err.Error())
	}
	out.JSONRPC, out.ID = "2.0", env.ID
	if env.Method == "initialize" && out.Result != nil {
		out.Result = l.s.decorateInitialize(out.Result)
	}
	return out
}

// response is a JSON-RPC response with its members in the usual order.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// decorateInitialize adds serverInfo.default_palace (mcp-go's
// mcp.Implementation cannot carry it).
func (s *Server) decorateInitialize(raw json.RawMessage) json.RawMessage {
	var res map[string]json.RawMessage
	if json.Unmarshal(raw, &res) != nil {
		return raw
	}
	var info map[string]any
	if json.Unmarshal(res["serverInfo"], &info) != nil || info == nil {
		info = map[string]any{"name": Name, "version": s.cfg.Version}
	}
	if s.cfg.DefaultPalace != "" {
		info["default_palace"] = s.cfg.DefaultPalace
	}
	res["serverInfo"], _ = json.Marshal(info)
	if _, ok := res["instructions"]; !ok {
		res["instructions"], _ = json.Marshal(s.instructions())
	}
	b, err := json.Marshal(res)
	if err != nil {
		return raw
	}
	return b
}

func (s *Server) instructions() string {
	msg := "loci is a local long-term memory. Use memory_recall before answering questions about past work, " +
		"memory_remember to store durable facts, decisions and preferences, and kg_assert/kg_query for facts " +
		"that change over time."
	if s.cfg.DefaultPalace != "" {
		msg += " The default palace is " + s.cfg.DefaultPalace + "; the palace argument may be omitted."
	}
	return msg
}

// notification handles a message without an id. None is ever answered.
func (l *stdioLoop) notification(ctx context.Context, env envelope, line []byte) {
	switch env.Method {
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(env.Params, &p) == nil && len(p.RequestID) > 0 {
			l.mu.Lock()
			if c, ok := l.inflight[string(p.RequestID)]; ok {
				c.cancelled = true
				c.cancel()
			}
			l.mu.Unlock()
		}
	case "notifications/initialized":
		l.s.mcp.HandleMessage(ctx, line)
	default:
		l.s.log.Debug().Str("method", env.Method).Msg("ignored notification")
	}
}
