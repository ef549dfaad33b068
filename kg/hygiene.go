package kg

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// MergeDuplicates merges active triples that repeat the same (subject,
// predicate, object), which Assert never creates but concurrent writers
// outside kg's transactions or imports can. In each group the triple with
// the earliest valid_from (then lowest id) survives, takes the group's
// highest confidence and, if it has none, the earliest non-empty provenance;
// the others are deleted. Everything happens in one transaction. It returns
// the number of triples removed.
//
// Active triples of one pair with different objects are left alone here;
// the next Assert of that pair closes them.
func (s *Store) MergeDuplicates(ctx context.Context) (merged int, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("kg merge duplicates: begin: %w", err)
	}
	defer tx.Rollback()

	rows, err := tx.QueryContext(ctx, `SELECT `+tripleColumns+` FROM kg_triples AS t
		WHERE valid_to IS NULL AND EXISTS (
			SELECT 1 FROM kg_triples AS d
			WHERE d.subject = t.subject AND d.predicate = t.predicate
			  AND d.valid_to IS NULL AND d.object = t.object AND d.id <> t.id)
		ORDER BY subject, predicate, object, valid_from, id`)
	if err != nil {
		return 0, fmt.Errorf("kg merge duplicates: select: %w", err)
	}
	dups, err := scanTriples(rows)
	if err != nil {
		return 0, fmt.Errorf("kg merge duplicates: %w", err)
	}

	for start := 0; start < len(dups); {
		end := start + 1
		for end < len(dups) && sameFact(dups[start], dups[end]) {
			end++
		}
		n, err := mergeGroup(ctx, tx, dups[start:end])
		if err != nil {
			return 0, fmt.Errorf("kg merge duplicates: %w", err)
		}
		merged += n
		start = end
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("kg merge duplicates: commit: %w", err)
	}
	return merged, nil
}

func sameFact(a, b Triple) bool {
	return a.Subject == b.Subject && a.Predicate == b.Predicate && a.Object == b.Object
}

// mergeGroup folds group (ordered by valid_from, id) into its first triple.
func mergeGroup(ctx context.Context, tx *sql.Tx, group []Triple) (int, error) {
	keep := group[0]
	conf, prov := keep.Confidence, keep.Provenance
	for _, t := range group[1:] {
		conf = max(conf, t.Confidence)
		if prov == "" {
			prov = t.Provenance
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM kg_triples WHERE id = ?`, t.ID); err != nil {
			return 0, fmt.Errorf("delete triple %d: %w", t.ID, err)
		}
	}
	var provArg any
	if prov != "" {
		provArg = prov
	}
	if _, err := tx.ExecContext(ctx, `UPDATE kg_triples SET confidence = ?, provenance = ? WHERE id = ?`,
		conf, provArg, keep.ID); err != nil {
		return 0, fmt.Errorf("update triple %d: %w", keep.ID, err)
	}
	return len(group) - 1, nil
}

// ChurnReport describes a (subject, predicate) whose object keeps changing.
type ChurnReport struct {
	Subject   string    `json:"subject"`
	Predicate string    `json:"predicate"`
	Changes   int       `json:"changes"` // assertions since the cut-off that replaced a different object
	Objects   int       `json:"objects"` // distinct objects those changes asserted
	First     time.Time `json:"first"`   // valid_from of the first change counted
	Last      time.Time `json:"last"`    // valid_from of the last change counted
	Active    string    `json:"active"`  // the currently active object, "" if retracted
}

// Churn reports the (subject, predicate) pairs whose object changed at
// least minChanges times with valid_from at or after since (zero: all time).
// A change is a triple whose object differs from that of the pair's
// previous triple in time order, wherever that previous triple lies; a
// pair's first triple ever is not a change, and neither is re-asserting the
// object a retraction closed. minChanges below 1 counts as 1. Reports are
// ordered by most changes, then subject and predicate.
func (s *Store) Churn(ctx context.Context, since time.Time, minChanges int) ([]ChurnReport, error) {
	if !since.IsZero() {
		if err := checkTime("since", since); err != nil {
			return nil, err
		}
	}
	minChanges = max(minChanges, 1)
	cut := ""
	if !since.IsZero() {
		cut = formatTime(since)
	}
	// Only pairs with a triple in the window are sequenced.
	rows, err := s.db.QueryContext(ctx, `
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
		return nil, fmt.Errorf("kg churn: %w", err)
	}
	defer rows.Close()
	out := []ChurnReport{}
	for rows.Next() {
		var (
			r           ChurnReport
			first, last string
		)
		if err := rows.Scan(&r.Subject, &r.Predicate, &r.Changes, &r.Objects, &first, &last, &r.Active); err != nil {
			return nil, fmt.Errorf("kg churn: %w", err)
		}
		if r.First, err = parseTime(first); err != nil {
			return nil, fmt.Errorf("kg churn: %w", err)
		}
		if r.Last, err = parseTime(last); err != nil {
			return nil, fmt.Errorf("kg churn: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("kg churn: %w", err)
	}
	return out, nil
}
