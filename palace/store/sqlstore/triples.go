package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/loci-mem/loci/kg"
)

// triples reads and writes kg_triples. Times are stored as kg.StoredTime
// text, so string order is time order.
type triples struct{ c conn }

const tripleCols = `id, subject, predicate, object, valid_from, valid_to, confidence, provenance, created_at`

func scanTriple(sc scanner) (kg.Triple, error) {
	var (
		t                   kg.Triple
		from, created       string
		validTo, provenance sql.NullString
	)
	if err := sc.Scan(&t.ID, &t.Subject, &t.Predicate, &t.Object, &from, &validTo, &t.Confidence, &provenance, &created); err != nil {
		return kg.Triple{}, err
	}
	var err error
	if t.ValidFrom, err = kg.ParseStoredTime(from); err != nil {
		return kg.Triple{}, fmt.Errorf("triple %d valid_from: %w", t.ID, err)
	}
	if validTo.Valid {
		if t.ValidTo, err = kg.ParseStoredTime(validTo.String); err != nil {
			return kg.Triple{}, fmt.Errorf("triple %d valid_to: %w", t.ID, err)
		}
	}
	if t.CreatedAt, err = kg.ParseStoredTime(created); err != nil {
		return kg.Triple{}, fmt.Errorf("triple %d created_at: %w", t.ID, err)
	}
	t.Provenance = provenance.String
	return t, nil
}

func (r triples) list(ctx context.Context, where string, args ...any) ([]kg.Triple, error) {
	return queryAll(ctx, r.c, scanTriple, `SELECT `+tripleCols+` FROM kg_triples `+where, args...)
}

func (r triples) Active(ctx context.Context, subject string) ([]kg.Triple, error) {
	return r.list(ctx, `WHERE subject = ? AND valid_to IS NULL ORDER BY predicate, valid_from, id`, subject)
}

func (r triples) ActivePair(ctx context.Context, subject, predicate string) ([]kg.Triple, error) {
	return r.list(ctx, `WHERE subject = ? AND predicate = ? AND valid_to IS NULL ORDER BY valid_from, id`, subject, predicate)
}

func (r triples) ValidAt(ctx context.Context, subject string, t time.Time) ([]kg.Triple, error) {
	at := kg.StoredTime(t)
	return r.list(ctx, `WHERE subject = ? AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)
		ORDER BY predicate, valid_from, id`, subject, at, at)
}

func (r triples) History(ctx context.Context, subject string) ([]kg.Triple, error) {
	return r.list(ctx, `WHERE subject = ? ORDER BY valid_from, id`, subject)
}

func (r triples) ActiveWithObject(ctx context.Context, object string) ([]kg.Triple, error) {
	return r.list(ctx, `WHERE object = ? AND valid_to IS NULL ORDER BY subject, predicate, valid_from, id`, object)
}

func (r triples) All(ctx context.Context) ([]kg.Triple, error) {
	return r.list(ctx, `ORDER BY id`)
}

func (r triples) Duplicates(ctx context.Context) ([]kg.Triple, error) {
	return r.list(ctx, `AS t WHERE valid_to IS NULL AND EXISTS (
			SELECT 1 FROM kg_triples AS d
			WHERE d.subject = t.subject AND d.predicate = t.predicate
			  AND d.valid_to IS NULL AND d.object = t.object AND d.id <> t.id)
		ORDER BY subject, predicate, object, valid_from, id`)
}

func (r triples) Subjects(ctx context.Context, lower, upper string, limit int) ([]kg.SubjectSummary, error) {
	rows, err := r.c.QueryContext(ctx, `SELECT subject, COALESCE(SUM(CASE WHEN valid_to IS NULL THEN 1 ELSE 0 END), 0), COUNT(*)
		FROM kg_triples WHERE subject >= ? AND subject < ?
		GROUP BY subject ORDER BY subject LIMIT ?`, lower, upper, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []kg.SubjectSummary{}
	for rows.Next() {
		var s kg.SubjectSummary
		if err := rows.Scan(&s.Subject, &s.Active, &s.Total); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (r triples) Stats(ctx context.Context) (kg.Stats, error) {
	var st kg.Stats
	err := r.c.QueryRowContext(ctx, `SELECT
			(SELECT COUNT(*) FROM kg_triples WHERE valid_to IS NULL),
			(SELECT COUNT(*) FROM kg_triples),
			(SELECT COUNT(DISTINCT subject) FROM kg_triples WHERE valid_to IS NULL)`).
		Scan(&st.Active, &st.Total, &st.Subjects)
	return st, err
}

// Churn sequences only the pairs with a triple in the window.
func (r triples) Churn(ctx context.Context, since time.Time, minChanges int) ([]kg.ChurnReport, error) {
	cut := ""
	if !since.IsZero() {
		cut = kg.StoredTime(since)
	}
	rows, err := r.c.QueryContext(ctx, `
		WITH recent AS (
			SELECT DISTINCT subject, predicate FROM kg_triples WHERE valid_from >= ?1
		), seq AS (
			SELECT t.subject, t.predicate, t.object, t.valid_from,
				LAG(t.object) OVER (PARTITION BY t.subject, t.predicate ORDER BY t.valid_from, t.id) AS prev
			FROM kg_triples AS t
			JOIN recent AS r ON r.subject = t.subject AND r.predicate = t.predicate
		)
		SELECT subject, predicate, COUNT(*), COUNT(DISTINCT object), MIN(valid_from), MAX(valid_from),
			COALESCE((SELECT a.object FROM kg_triples AS a
				WHERE a.subject = seq.subject AND a.predicate = seq.predicate AND a.valid_to IS NULL
				ORDER BY a.valid_from DESC, a.id DESC LIMIT 1), '')
		FROM seq
		WHERE valid_from >= ?1 AND prev IS NOT NULL AND prev <> object
		GROUP BY subject, predicate
		HAVING COUNT(*) >= ?2
		ORDER BY COUNT(*) DESC, subject, predicate`, cut, minChanges)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []kg.ChurnReport{}
	for rows.Next() {
		var (
			c           kg.ChurnReport
			first, last string
		)
		if err := rows.Scan(&c.Subject, &c.Predicate, &c.Changes, &c.Objects, &first, &last, &c.Active); err != nil {
			return nil, err
		}
		if c.First, err = kg.ParseStoredTime(first); err != nil {
			return nil, err
		}
		if c.Last, err = kg.ParseStoredTime(last); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (r triples) Insert(ctx context.Context, t kg.Triple) (int64, error) {
	var validTo any
	if !t.ValidTo.IsZero() {
		validTo = kg.StoredTime(t.ValidTo)
	}
	var id int64
	err := r.c.QueryRowContext(ctx, `INSERT INTO kg_triples
		(subject, predicate, object, valid_from, valid_to, confidence, provenance, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		t.Subject, t.Predicate, t.Object, kg.StoredTime(t.ValidFrom), validTo, t.Confidence,
		nullable(t.Provenance), kg.StoredTime(t.CreatedAt)).Scan(&id)
	return id, err
}

func (r triples) Close(ctx context.Context, id int64, at time.Time) error {
	_, err := r.c.ExecContext(ctx, `UPDATE kg_triples SET valid_to = ? WHERE id = ? AND valid_to IS NULL`, kg.StoredTime(at), id)
	return err
}

func (r triples) Delete(ctx context.Context, id int64) error {
	_, err := r.c.ExecContext(ctx, `DELETE FROM kg_triples WHERE id = ?`, id)
	return err
}

func (r triples) SetConfidence(ctx context.Context, id int64, confidence float64, provenance string) error {
	_, err := r.c.ExecContext(ctx, `UPDATE kg_triples SET confidence = ?, provenance = ? WHERE id = ?`,
		confidence, nullable(provenance), id)
	return err
}
