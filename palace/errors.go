package palace

import (
	"errors"
	"fmt"

	"github.com/loci-mem/loci/palace/store"
)

// Code classifies a palace error so that each face can translate it into its
// own contract (JSON-RPC code, isError result, HTTP status, CLI exit code)
// once, at its edge.
type Code string

const (
	// CodeInvalid marks bad input: a wrong type, a value out of range, an
	// unsafe name. Nothing was changed.
	CodeInvalid Code = "invalid"
	// CodeNotFound marks a palace or drawer that does not exist.
	CodeNotFound Code = "not_found"
	// CodeConflict marks something that already exists.
	CodeConflict Code = "conflict"
	// CodeInternal marks a failure of the store itself (I/O, SQLite).
	CodeInternal Code = "internal"
	// CodeUnavailable marks a store that cannot be reached for now (a
	// PostgreSQL server restarting or out of reach). Nothing was changed;
	// the same call may succeed when it is back.
	CodeUnavailable Code = "unavailable"
	// CodeForbidden marks a caller whose token does not cover what it
	// asked (another palace, a write with a read token). Nothing was
	// changed.
	CodeForbidden Code = "forbidden"
)

// Error is a palace error with a code and a message fit for a user.
type Error struct {
	Code    Code
	Message string
	// Hint, when set, says what the user can do about it (a command to
	// run, a setting to change); faces show it beside the message.
	Hint string
	Err  error // underlying cause, if any; not shown to users
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNotFound) and friends match on the code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Err == nil && t.Code == e.Code
}

// Sentinels for errors.Is. Each matches any *Error with the same code.
var (
	ErrInvalid     = &Error{Code: CodeInvalid}
	ErrNotFound    = &Error{Code: CodeNotFound}
	ErrConflict    = &Error{Code: CodeConflict}
	ErrInternal    = &Error{Code: CodeInternal}
	ErrUnavailable = &Error{Code: CodeUnavailable}
	ErrForbidden   = &Error{Code: CodeForbidden}
)

// Invalidf returns a CodeInvalid error.
func Invalidf(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// NotFoundf returns a CodeNotFound error.
func NotFoundf(format string, args ...any) error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

// Conflictf returns a CodeConflict error.
func Conflictf(format string, args ...any) error {
	return &Error{Code: CodeConflict, Message: fmt.Sprintf(format, args...)}
}

// internal wraps a store failure, keeping the operation in the message.
// A store that cannot be reached is CodeUnavailable, whose message names
// no driver detail.
func internal(op string, err error) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	if errors.Is(err, store.ErrUnavailable) {
		return &Error{Code: CodeUnavailable, Message: op + ": the memory store is unavailable; retry when it is back",
			Hint: "Check that the database server the store names (--store or LOCI_STORE) is running and reachable", Err: err}
	}
	return &Error{Code: CodeInternal, Message: op + ": " + err.Error(), Err: err}
}

// ErrorCode returns the code of err, CodeInternal for foreign errors.
func ErrorCode(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return CodeInternal
}

// storeErr translates an error from the store boundary: a missing row is
// CodeNotFound, a taken key CodeConflict, bad input a backend found
// CodeInvalid, an unreachable server CodeUnavailable; anything else is a
// store failure (CodeInternal).
func storeErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var inv *store.InvalidError
	switch {
	case errors.As(err, &inv):
		return &Error{Code: CodeInvalid, Message: inv.Msg}
	case errors.Is(err, store.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: op + ": not found", Err: err}
	case errors.Is(err, store.ErrConflict):
		return &Error{Code: CodeConflict, Message: op + ": already exists", Err: err}
	case errors.Is(err, store.ErrReadOnly):
		return &Error{Code: CodeInvalid, Message: op + ": the palace is read-only here (its data dir cannot be written)", Err: err}
	}
	return internal(op, err)
}

// StoreError translates an error of the store boundary for packages built
// on the palace (facts, sessions, the dreamer's journal, the archive): see
// storeErr.
func StoreError(op string, err error) error { return storeErr(op, err) }
