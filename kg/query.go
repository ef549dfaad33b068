package kg

import (
	"context"
	"fmt"
	"time"
)

// Query returns the active triples of subject (valid_to NULL), ordered by
// predicate, then valid_from. An unknown subject yields an empty slice.
func (s *Store) Query(ctx context.Context, subject string) ([]Triple, error) {
	subject, err := term("subject", subject)
	if err != nil {
		return nil, err
	}
	return s.triples(ctx, "kg query", `WHERE subject = ? AND valid_to IS NULL
		ORDER BY predicate, valid_from, id`, subject)
}

// AsOf returns the triples of subject that were valid at t
// (valid_from <= t < valid_to, or valid_to NULL), ordered by predicate, then
// valid_from. A zero t is invalid.
func (s *Store) AsOf(ctx context.Context, subject string, t time.Time) ([]Triple, error) {
	subject, err := term("subject", subject)
	if err != nil {
		return nil, err
	}
	if t.IsZero() {
		return nil, invalidf("as_of", "must be set")
	}
	if err := checkTime("as_of", t); err != nil {
		return nil, err
	}
	at := formatTime(t)
	return s.triples(ctx, "kg as-of", `WHERE subject = ? AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)
		ORDER BY predicate, valid_from, id`, subject, at, at)
}

// History returns every triple ever asserted for subject, active and
// closed, oldest first (by valid_from, then insertion order).
func (s *Store) History(ctx context.Context, subject string) ([]Triple, error) {
	subject, err := term("subject", subject)
	if err != nil {
		return nil, err
	}
	return s.triples(ctx, "kg history", `WHERE subject = ? ORDER BY valid_from, id`, subject)
}

// QueryObject is the reverse lookup: the active triples whose object is
// object, ordered by subject, predicate, then valid_from.
func (s *Store) QueryObject(ctx context.Context, object string) ([]Triple, error) {
	object, err := term("object", object)
	if err != nil {
		return nil, err
	}
	return s.triples(ctx, "kg query object", `WHERE object = ? AND valid_to IS NULL
		ORDER BY subject, predicate, valid_from, id`, object)
}

func (s *Store) triples(ctx context.Context, op, where string, args ...any) ([]Triple, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+tripleColumns+` FROM kg_triples `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	ts, err := scanTriples(rows)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return ts, nil
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
func (s *Store) Subjects(ctx context.Context, prefix string, limit int) ([]SubjectSummary, error) {
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
	rows, err := s.db.QueryContext(ctx, `SELECT subject,
			COALESCE(SUM(valid_to IS NULL), 0), COUNT(*)
		FROM kg_triples
		WHERE subject >= ? AND subject < ?
		GROUP BY subject ORDER BY subject LIMIT ?`, lower, upper, limit)
	if err != nil {
		return nil, fmt.Errorf("kg subjects: %w", err)
	}
	defer rows.Close()
	out := []SubjectSummary{}
	for rows.Next() {
		var ss SubjectSummary
		if err := rows.Scan(&ss.Subject, &ss.Active, &ss.Total); err != nil {
			return nil, fmt.Errorf("kg subjects: %w", err)
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("kg subjects: %w", err)
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
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.db.QueryRowContext(ctx, `SELECT
			(SELECT COUNT(*) FROM kg_triples WHERE valid_to IS NULL),
			(SELECT COUNT(*) FROM kg_triples),
			(SELECT COUNT(DISTINCT subject) FROM kg_triples WHERE valid_to IS NULL)`).
		Scan(&st.Active, &st.Total, &st.Subjects)
	if err != nil {
		return Stats{}, fmt.Errorf("kg stats: %w", err)
	}
	return st, nil
}
