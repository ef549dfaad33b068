package kg

import (
	"context"
	"fmt"
	"time"
)

// term validates and normalises a subject, predicate or object as the
// graph stores it: validated (see validTerm), then redacted, so that a
// lookup finds what an assertion stored.
func (g *Graph) term(field, v string) (string, error) {
	v, err := validTerm(field, v)
	if err != nil {
		return "", err
	}
	return g.redact(v), nil
}

// Query returns the active triples of subject (valid_to NULL), ordered by
// predicate, then valid_from. An unknown subject yields an empty slice.
func (g *Graph) Query(ctx context.Context, subject string) ([]Triple, error) {
	subject, err := g.term("subject", subject)
	if err != nil {
		return nil, err
	}
	return wrap("kg query")(g.st.Triples().Active(ctx, subject))
}

// AsOf returns the triples of subject that were valid at t
// (valid_from <= t < valid_to, or valid_to NULL), ordered by predicate, then
// valid_from. A zero t is invalid.
func (g *Graph) AsOf(ctx context.Context, subject string, t time.Time) ([]Triple, error) {
	subject, err := g.term("subject", subject)
	if err != nil {
		return nil, err
	}
	if t.IsZero() {
		return nil, invalidf("as_of", "must be set")
	}
	if err := checkTime("as_of", t); err != nil {
		return nil, err
	}
	return wrap("kg as-of")(g.st.Triples().ValidAt(ctx, subject, t))
}

// History returns every triple ever asserted for subject, active and
// closed, oldest first (by valid_from, then insertion order).
func (g *Graph) History(ctx context.Context, subject string) ([]Triple, error) {
	subject, err := g.term("subject", subject)
	if err != nil {
		return nil, err
	}
	return wrap("kg history")(g.st.Triples().History(ctx, subject))
}

// QueryObject is the reverse lookup: the active triples whose object is
// object, ordered by subject, predicate, then valid_from.
func (g *Graph) QueryObject(ctx context.Context, object string) ([]Triple, error) {
	object, err := g.term("object", object)
	if err != nil {
		return nil, err
	}
	return wrap("kg query object")(g.st.Triples().ActiveWithObject(ctx, object))
}

// All returns every triple, active and closed, in insertion order (an
// export).
func (g *Graph) All(ctx context.Context) ([]Triple, error) {
	return wrap("kg all")(g.st.Triples().All(ctx))
}

// wrap prefixes a storage error with the operation and turns a nil list
// into an empty one.
func wrap(op string) func([]Triple, error) ([]Triple, error) {
	return func(ts []Triple, err error) ([]Triple, error) {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		if ts == nil {
			ts = []Triple{}
		}
		return ts, nil
	}
}

// SubjectSummary is one row of the subject browser.
type SubjectSummary struct {
	Subject string `json:"subject"`
	Active  int    `json:"active"` // active triples
	Total   int    `json:"total"`  // triples ever asserted, active and closed
}

// Default and maximum page sizes of Subjects.
const (
	DefaultSubjectsLimit = 100
	MaxSubjectsLimit     = 1000
)

// Subjects lists distinct subjects starting with prefix (byte-wise,
// case-sensitive; "" lists all), in subject order, with their triple counts.
// Subjects whose triples are all closed are included with Active 0. limit
// <= 0 means DefaultSubjectsLimit; larger than MaxSubjectsLimit is capped.
func (g *Graph) Subjects(ctx context.Context, prefix string, limit int) ([]SubjectSummary, error) {
	if err := checkText("prefix", prefix); err != nil {
		return nil, err
	}
	if len(prefix) > MaxTermBytes {
		return nil, invalidf("prefix", "must be at most %d bytes, got %d", MaxTermBytes, len(prefix))
	}
	switch {
	case limit <= 0:
		limit = DefaultSubjectsLimit
	case limit > MaxSubjectsLimit:
		limit = MaxSubjectsLimit
	}
	// A byte-wise prefix is the half-open range [prefix, upper). Valid
	// UTF-8 has no 0xFF byte, so incrementing the last byte never carries.
	lower, upper := prefix, "\xff"
	if prefix != "" {
		upper = prefix[:len(prefix)-1] + string([]byte{prefix[len(prefix)-1] + 1})
	}
	out, err := g.st.Triples().Subjects(ctx, lower, upper, limit)
	if err != nil {
		return nil, fmt.Errorf("kg subjects: %w", err)
	}
	if out == nil {
		out = []SubjectSummary{}
	}
	return out, nil
}

// Stats are whole-graph counts.
type Stats struct {
	Active   int `json:"active"`   // active triples
	Total    int `json:"total"`    // all triples, active and closed
	Subjects int `json:"subjects"` // distinct subjects with an active triple
}

// Stats returns the graph's triple counts.
func (g *Graph) Stats(ctx context.Context) (Stats, error) {
	st, err := g.st.Triples().Stats(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("kg stats: %w", err)
	}
	return st, nil
}
