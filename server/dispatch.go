package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/redact"
	"github.com/mark3labs/mcp-go/mcp"
)

// The one dispatch path. A JSON-RPC message is decoded once (parseMessage:
// the envelope together with the params of every method loci serves),
// answered by respond, and its response encoded once and redacted once
// (encodeResponse). The stdio loop and the HTTP transports both call
// these, so every transport gives the same answer to the same request.

// message is one decoded JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  params          `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	// badParams is set when params is not an object of the expected shape.
	badParams bool
}

// params holds the parameters of every method loci serves.
type params struct {
	Name            string          `json:"name"`            // tools/call
	Arguments       json.RawMessage `json:"arguments"`       // tools/call
	URI             string          `json:"uri"`             // resources/read
	ProtocolVersion string          `json:"protocolVersion"` // initialize
	RequestID       json.RawMessage `json:"requestId"`       // notifications/cancelled
	Meta            json.RawMessage `json:"_meta"`
}

// isNotification reports a message without an id: it never gets an answer.
func (m *message) isNotification() bool { return m.ID == nil }

// isResponse reports a response to a server request (loci sends none).
func (m *message) isResponse() bool { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// parseMessage decodes one message. When the message cannot be served, it
// returns instead the encoded error response to send (nil when the message
// must go unanswered).
func (s *Server) parseMessage(line []byte) (*message, []byte) {
	line = bytes.TrimSpace(line)
	if !utf8.Valid(line) {
		return nil, s.encodeError(nil, codeParseError, "Parse error: message is not valid UTF-8")
	}
	if len(line) == 0 || line[0] != '{' {
		switch {
		case !json.Valid(line):
			return nil, s.encodeError(nil, codeParseError, "Parse error: message is not valid JSON")
		case line[0] == '[':
			return nil, s.encodeError(nil, codeInvalidRequest, "Invalid Request: batch requests are not supported; send one message per line")
		}
		return nil, s.encodeError(nil, codeInvalidRequest, "Invalid Request: a message must be a JSON object")
	}
	m := &message{}
	if err := json.Unmarshal(line, m); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, s.encodeError(nil, codeParseError, "Parse error: message is not valid JSON")
		case errors.As(err, &te) && (te.Field == "params" || strings.HasPrefix(te.Field, "params.")):
			m.badParams = true
		case errors.As(err, &te):
			if m.ID == nil || !validID(m.ID) {
				return nil, nil
			}
			return nil, s.encodeError(m.ID, codeInvalidRequest, "Invalid Request: '"+te.Field+"' must be a "+te.Type.String())
		default:
			return nil, s.encodeError(nil, codeInvalidRequest, "Invalid Request: "+err.Error())
		}
	}
	if m.Method == "" {
		if m.isResponse() || m.isNotification() {
			return nil, nil // a response (loci sends no requests), or nothing at all
		}
		return nil, s.encodeError(m.ID, codeInvalidRequest, "Invalid Request: missing 'method'")
	}
	if m.JSONRPC != "2.0" {
		if m.isNotification() {
			return nil, nil
		}
		return nil, s.encodeError(m.ID, codeInvalidRequest, `Invalid Request: 'jsonrpc' must be "2.0"`)
	}
	if !m.isNotification() && !validID(m.ID) {
		return nil, s.encodeError(nil, codeInvalidRequest, "Invalid Request: 'id' must be a string or a number")
	}
	return m, nil
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

// methods are the requests loci answers; any other is "Method not found".
var methods = map[string]bool{
	"initialize":               true,
	"ping":                     true,
	"tools/list":               true,
	"tools/call":               true,
	"resources/list":           true,
	"resources/read":           true,
	"resources/templates/list": true,
}

// respond answers a request (not a notification) with its encoded,
// redacted response line.
func (s *Server) respond(ctx context.Context, m *message) (resp []byte) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error().Interface("panic", r).Str("method", m.Method).RawJSON("request_id", idOrNull(m.ID)).Msg("request panicked")
			resp = s.encodeError(m.ID, codeInternalError, "internal error (see the server log)")
		}
	}()
	if !methods[m.Method] {
		return s.encodeError(m.ID, codeMethodNotFound, "Method not found: "+m.Method)
	}
	switch m.Method {
	case "initialize":
		defer s.handshakeOnce.Do(func() { close(s.handshake) })
		return s.encodeResult(m.ID, s.initializeResult(m.Params.ProtocolVersion))
	case "ping":
		return s.encodeResult(m.ID, struct{}{})
	case "tools/list":
		return s.encodeResult(m.ID, s.toolsList)
	case "resources/list":
		return s.encodeResult(m.ID, s.resourcesList)
	case "resources/templates/list":
		return s.encodeResult(m.ID, s.templatesList)
	case "tools/call":
		if m.badParams || m.Params.Name == "" {
			return s.encodeError(m.ID, codeInvalidParams, "Invalid params: tools/call needs params.name")
		}
		text, isError, rerr := s.callTool(ctx, m.ID, m.Params.Name, m.Params.Arguments)
		if rerr != nil {
			return s.encodeError(m.ID, rerr.Code, rerr.Message)
		}
		return s.encodeResult(m.ID, toolResult{Content: []mcp.TextContent{{Type: "text", Text: text}}, IsError: isError})
	default: // resources/read
		if m.badParams || strings.TrimSpace(m.Params.URI) == "" {
			return s.encodeError(m.ID, codeInvalidParams, "Invalid params: resources/read needs params.uri")
		}
		c, rerr := s.readResource(ctx, m.ID, m.Params.URI)
		if rerr != nil {
			return s.encodeError(m.ID, rerr.Code, rerr.Message)
		}
		return s.encodeResult(m.ID, readResult{Contents: []mcp.TextResourceContents{c}})
	}
}

// toolResult is a tools/call result: one text item.
type toolResult struct {
	Content []mcp.TextContent `json:"content"`
	IsError bool              `json:"isError,omitempty"`
}

// readResult is a resources/read result: one text item.
type readResult struct {
	Contents []mcp.TextResourceContents `json:"contents"`
}

// initializeResult answers the handshake: the negotiated protocol version
// (the client's when loci speaks it, else the newest handshake-era one),
// the capabilities and serverInfo, with seed 003's default_palace.
func (s *Server) initializeResult(version string) any {
	type capability struct{}
	type serverInfo struct {
		DefaultPalace string `json:"default_palace,omitempty"`
		Name          string `json:"name"`
		Version       string `json:"version"`
	}
	return struct {
		Capabilities struct {
			Resources capability `json:"resources"`
			Tools     capability `json:"tools"`
		} `json:"capabilities"`
		Instructions    string     `json:"instructions"`
		ProtocolVersion string     `json:"protocolVersion"`
		ServerInfo      serverInfo `json:"serverInfo"`
	}{
		Instructions:    s.instructions(),
		ProtocolVersion: mcp.NegotiateLegacyVersion(version),
		ServerInfo:      serverInfo{DefaultPalace: s.cfg.DefaultPalace, Name: Name, Version: s.cfg.Version},
	}
}

// response is a JSON-RPC response.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func (s *Server) encodeResult(id json.RawMessage, result any) []byte {
	return s.encode(response{JSONRPC: "2.0", ID: idOrNull(id), Result: result})
}

func (s *Server) encodeError(id json.RawMessage, code int, msg string) []byte {
	return s.encode(response{JSONRPC: "2.0", ID: idOrNull(id), Error: &rpcError{Code: code, Message: msg}})
}

// encode renders a response as one line, redacted: stored text is already
// clean, but error messages and resource URIs echo the caller's input.
func (s *Server) encode(r response) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		s.log.Error().Err(err).Msg("encode response")
		b.Reset()
		_ = enc.Encode(response{JSONRPC: "2.0", ID: idOrNull(r.ID), Error: &rpcError{Code: codeInternalError, Message: "internal error: unencodable response"}})
	}
	return redact.JSON(b.Bytes())
}
