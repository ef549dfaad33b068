package kg

import (
	"time"
)

// Graph is the knowledge graph of one palace. It is safe for concurrent
// use by many goroutines, and many processes (or machines) may hold a Graph
// over the same storage: every write is one transaction, and Storage
// serialises the writers.
type Graph struct {
	st     Storage
	now    func() time.Time
	redact func(string) string
}

// Option configures a Graph.
type Option func(*Graph)

// WithNow replaces the clock (time.Now by default). Tests use it to pin
// valid_from and created_at.
func WithNow(now func() time.Time) Option {
	return func(g *Graph) {
		if now != nil {
			g.now = now
		}
	}
}

// WithRedactor makes every text the graph stores (subject, predicate,
// object, provenance) pass through redact first, so that secrets never
// reach the store. The palace passes its secret redactor.
func WithRedactor(redact func(string) string) Option {
	return func(g *Graph) {
		if redact != nil {
			g.redact = redact
		}
	}
}

// New returns the graph kept in st.
func New(st Storage, opts ...Option) *Graph {
	g := &Graph{st: st, now: time.Now, redact: func(s string) string { return s }}
	for _, o := range opts {
		o(g)
	}
	return g
}

// clock returns the graph's current time in UTC without a monotonic
// reading.
func (g *Graph) clock() time.Time {
	return g.now().UTC().Round(0)
}
