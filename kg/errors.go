package kg

import (
	"errors"
	"fmt"
)

// Sentinel errors. Faces map them onto their own contracts with errors.Is.
var (
	// ErrInvalid marks bad input. Nothing is written when it is returned.
	// The concrete error is a *ValidationError naming the field.
	ErrInvalid = errors.New("kg: invalid input")

	// ErrNotFound means there was nothing to act on, e.g. Retract of a
	// (subject, predicate) with no active triple.
	ErrNotFound = errors.New("kg: not found")
)

// ValidationError is bad input to one field. It matches ErrInvalid under
// errors.Is; its message is meant for the caller, e.g.
// "confidence must be in [0,1], got 1.5". kg returns it unwrapped, without
// an operation prefix, so faces can show it verbatim.
type ValidationError struct {
	Field string // subject, predicate, object, confidence, provenance, valid_from, ...
	Msg   string // the whole human-readable message, field name included
}

func (e *ValidationError) Error() string { return e.Msg }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

func invalidf(field, format string, args ...any) error {
	return &ValidationError{Field: field, Msg: field + " " + fmt.Sprintf(format, args...)}
}
