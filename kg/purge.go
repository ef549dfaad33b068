package kg

import (
	"context"
	"fmt"
)

// Timeline returns every triple of subject, or of (subject, predicate)
// when predicate is not "", active and closed, oldest first: what Purge
// would erase. ErrNotFound when there is none, as Purge says it.
func (g *Graph) Timeline(ctx context.Context, subject, predicate string) ([]Triple, error) {
	subject, predicate, err := g.pair(subject, predicate)
	if err != nil {
		return nil, err
	}
	ts, err := timeline(ctx, g.st.Triples(), subject, predicate)
	if err != nil {
		return nil, fmt.Errorf("kg timeline: %w", err)
	}
	if len(ts) == 0 {
		return nil, noTriple(subject, predicate)
	}
	return ts, nil
}

// Purge erases subject's triples for good, or only those of (subject,
// predicate) when predicate is not "": every triple of the timeline, the
// active one and those closed before it, with their provenance. It returns
// what it erased, oldest first; ErrNotFound when there was nothing.
//
// Retract and a new Assert keep the history, which is the graph's point:
// what was true when. Purge is for what must not stay at all (a secret an
// agent asserted, a fact about someone who asked to be forgotten), and
// nothing restores it.
func (g *Graph) Purge(ctx context.Context, subject, predicate string) ([]Triple, error) {
	subject, predicate, err := g.pair(subject, predicate)
	if err != nil {
		return nil, err
	}
	tx, err := g.st.BeginTriples(ctx)
	if err != nil {
		return nil, fmt.Errorf("kg purge: begin: %w", err)
	}
	defer tx.Rollback()
	gone, err := timeline(ctx, tx, subject, predicate)
	if err != nil {
		return nil, fmt.Errorf("kg purge: %w", err)
	}
	if len(gone) == 0 {
		return nil, noTriple(subject, predicate)
	}
	for _, t := range gone {
		if err := tx.Delete(ctx, t.ID); err != nil {
			return nil, fmt.Errorf("kg purge: delete triple %d: %w", t.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("kg purge: commit: %w", err)
	}
	return gone, nil
}

// noTriple is the ErrNotFound of a subject, or a pair, without triples.
func noTriple(subject, predicate string) error {
	what := fmt.Sprintf("%q", subject)
	if predicate != "" {
		what += fmt.Sprintf(" %q", predicate)
	}
	return fmt.Errorf("kg purge %s: no triple: %w", what, ErrNotFound)
}

// pair validates and normalises a subject and an optional predicate.
func (g *Graph) pair(subject, predicate string) (string, string, error) {
	subject, err := g.term("subject", subject)
	if err != nil || predicate == "" {
		return subject, "", err
	}
	predicate, err = g.term("predicate", predicate)
	return subject, predicate, err
}

// timeline reads subject's history from r, keeping predicate's triples
// when predicate is not "".
func timeline(ctx context.Context, r Reader, subject, predicate string) ([]Triple, error) {
	history, err := r.History(ctx, subject)
	if err != nil || predicate == "" {
		return history, err
	}
	var out []Triple
	for _, t := range history {
		if t.Predicate == predicate {
			out = append(out, t)
		}
	}
	return out, nil
}
