package kg

import (
	"context"
	"fmt"
	"time"
)

// Assertion is the input of Assert.
type Assertion struct {
	Subject    string
	Predicate  string
	Object     string
	Confidence *float64  // nil means 1.0
	Provenance string    // "" means none
	ValidFrom  time.Time // zero means now
}

// Assert records that (Subject, Predicate) has Object from ValidFrom on, and
// returns the active triple.
//
// In one transaction it closes the active triple of (Subject, Predicate), if
// any, by setting its valid_to to the new triple's valid_from, and inserts
// the new triple. Asserting the object that is already active is a no-op: it
// returns the existing triple unchanged (its valid_from, confidence and
// provenance are kept), so re-stating a fact does not fragment its history.
//
// An explicit ValidFrom earlier than the active triple's valid_from is
// rejected (ErrInvalid): kg appends to a pair's timeline, it does not
// rewrite it. When ValidFrom is zero and the clock reads earlier than the
// active triple's valid_from (clock skew between processes), the new triple
// starts where the active one did instead.
//
// Bad input returns a *ValidationError (errors.Is(err, ErrInvalid)) and
// changes nothing.
func (g *Graph) Assert(ctx context.Context, a Assertion) (Triple, error) {
	subject, err := g.term("subject", a.Subject)
	if err != nil {
		return Triple{}, err
	}
	predicate, err := g.term("predicate", a.Predicate)
	if err != nil {
		return Triple{}, err
	}
	object, err := g.term("object", a.Object)
	if err != nil {
		return Triple{}, err
	}
	conf, err := confidence(a.Confidence)
	if err != nil {
		return Triple{}, err
	}
	prov, err := provenance(a.Provenance)
	if err != nil {
		return Triple{}, err
	}
	prov = g.redact(prov)
	explicit := !a.ValidFrom.IsZero()
	if explicit {
		if err := checkTime("valid_from", a.ValidFrom); err != nil {
			return Triple{}, err
		}
	}

	tx, err := g.st.BeginTriples(ctx)
	if err != nil {
		return Triple{}, fmt.Errorf("kg assert: begin: %w", err)
	}
	defer tx.Rollback()

	// The clock is read under the write lock so that, within one machine,
	// successive assertions get non-decreasing times.
	now := g.clock()
	from := now
	if explicit {
		from = a.ValidFrom.UTC().Round(0)
	}

	actives, err := tx.ActivePair(ctx, subject, predicate)
	if err != nil {
		return Triple{}, fmt.Errorf("kg assert: %w", err)
	}
	var same *Triple
	var latest time.Time
	for i := range actives {
		if actives[i].Object == object && same == nil {
			same = &actives[i]
		}
		if actives[i].ValidFrom.After(latest) {
			latest = actives[i].ValidFrom
		}
	}

	if same != nil {
		// No-op. If other objects are also active (the invariant was broken
		// by an import or an outside writer), this assertion supersedes them.
		for _, t := range actives {
			if t.Object != object {
				if err := closeTriple(ctx, tx, t.ID, maxTime(now, t.ValidFrom)); err != nil {
					return Triple{}, fmt.Errorf("kg assert: %w", err)
				}
			}
		}
		if err := tx.Commit(); err != nil {
			return Triple{}, fmt.Errorf("kg assert: commit: %w", err)
		}
		return *same, nil
	}

	if from.Before(latest) {
		if explicit {
			return Triple{}, invalidf("valid_from", "must not precede the active triple's valid_from %s, got %s",
				RFC3339(latest), RFC3339(from))
		}
		from = latest
	}
	for _, t := range actives {
		if err := closeTriple(ctx, tx, t.ID, from); err != nil {
			return Triple{}, fmt.Errorf("kg assert: %w", err)
		}
	}
	t := Triple{
		Subject:    subject,
		Predicate:  predicate,
		Object:     object,
		ValidFrom:  from,
		Confidence: conf,
		Provenance: prov,
		CreatedAt:  now,
	}
	if t.ID, err = tx.Insert(ctx, t); err != nil {
		return Triple{}, fmt.Errorf("kg assert: insert: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Triple{}, fmt.Errorf("kg assert: commit: %w", err)
	}
	return t, nil
}

// Retract closes the active triple of (subject, predicate) without a
// replacement, at the current time, and returns it as closed. It returns
// ErrNotFound when the pair has no active triple. Should several triples be
// active (see MergeDuplicates), all are closed and the latest is returned.
func (g *Graph) Retract(ctx context.Context, subject, predicate string) (Triple, error) {
	subject, err := g.term("subject", subject)
	if err != nil {
		return Triple{}, err
	}
	predicate, err = g.term("predicate", predicate)
	if err != nil {
		return Triple{}, err
	}
	tx, err := g.st.BeginTriples(ctx)
	if err != nil {
		return Triple{}, fmt.Errorf("kg retract: begin: %w", err)
	}
	defer tx.Rollback()

	actives, err := tx.ActivePair(ctx, subject, predicate)
	if err != nil {
		return Triple{}, fmt.Errorf("kg retract: %w", err)
	}
	if len(actives) == 0 {
		return Triple{}, fmt.Errorf("kg retract %q %q: no active triple: %w", subject, predicate, ErrNotFound)
	}
	now := g.clock()
	var last Triple
	for _, t := range actives {
		// Never close before the triple began (clock skew): the interval
		// becomes empty rather than negative.
		t.ValidTo = maxTime(now, t.ValidFrom)
		if err := closeTriple(ctx, tx, t.ID, t.ValidTo); err != nil {
			return Triple{}, fmt.Errorf("kg retract: %w", err)
		}
		last = t
	}
	if err := tx.Commit(); err != nil {
		return Triple{}, fmt.Errorf("kg retract: commit: %w", err)
	}
	return last, nil
}

func closeTriple(ctx context.Context, tx Tx, id int64, at time.Time) error {
	if err := tx.Close(ctx, id, at); err != nil {
		return fmt.Errorf("close triple %d: %w", id, err)
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
