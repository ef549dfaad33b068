package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
)

// The MCP face's one error translator. Every failure of a tool or a
// resource read passes through here, on every transport:
//
//   - bad input (palace.CodeInvalid, kg.ErrInvalid), something that does
//     not exist (CodeNotFound) or already exists (CodeConflict): the
//     message, which the core writes for the caller;
//   - anything else (CodeInternal: SQL, I/O, driver detail; foreign
//     errors): logged with the request, and shown as "internal error (see
//     the server log)", never with its detail.
//
// Seed 003's tools answer the message as a JSON-RPC error (-32603, the code
// the seed gives every tool failure); seed 000's and seed 004's tools as a
// result with isError; resources as a JSON-RPC error whose code says which
// kind of failure it was (-32602, -32002, -32603).

// JSON-RPC 2.0 and MCP error codes.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeResourceNotFound = -32002
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// face is the contract a tool reports its failures under.
type face int

const (
	// rpcErrors: failures are JSON-RPC errors -32603 (seed 003).
	rpcErrors face = iota
	// resultErrors: failures are results with isError (seeds 000, 004).
	resultErrors
)

// internalMessage is what a caller sees of an internal failure.
const internalMessage = "internal error (see the server log)"

// failureText is the message shown for a failed call of what (a tool
// name, a resource): what, a colon, then the core's message or, for an
// internal failure, a pointer to the log, where the detail goes with the
// request's id.
func (s *Server) failureText(what string, id json.RawMessage, err error) string {
	if msg, ok := userMessage(err); ok {
		return what + ": " + msg
	}
	s.logInternal(what, id, err)
	return what + ": " + internalMessage
}

// userMessage returns the message of an error meant for the caller.
func userMessage(err error) (string, bool) {
	var pe *palace.Error
	if errors.As(err, &pe) && pe.Code != palace.CodeInternal {
		return pe.Error(), true
	}
	if errors.Is(err, kg.ErrInvalid) || errors.Is(err, kg.ErrNotFound) {
		return err.Error(), true
	}
	return "", false
}

func (s *Server) logInternal(what string, id json.RawMessage, err error) {
	ev := s.log.Error()
	if errors.Is(err, context.Canceled) {
		ev = s.log.Debug() // a cancelled call: its answer is dropped anyway
	}
	ev.Err(err).Str("call", what).RawJSON("request_id", idOrNull(id)).Msg("MCP call failed")
}

// resourceFailure translates a failed resource read: bad input is invalid
// params, what does not exist is resource-not-found, anything else is
// internal (logged, shown without detail).
func (s *Server) resourceFailure(what string, id json.RawMessage, err error) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	if msg, ok := userMessage(err); ok {
		if palace.ErrorCode(err) == palace.CodeNotFound {
			return &rpcError{Code: codeResourceNotFound, Message: msg}
		}
		return &rpcError{Code: codeInvalidParams, Message: msg}
	}
	s.logInternal(what, id, err)
	return &rpcError{Code: codeInternalError, Message: what + ": " + internalMessage}
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage("null")
	}
	return id
}
