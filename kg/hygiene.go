package kg

import (
	"context"
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
func (g *Graph) MergeDuplicates(ctx context.Context) (merged int, err error) {
	tx, err := g.st.BeginTriples(ctx)
	if err != nil {
		return 0, fmt.Errorf("kg merge duplicates: begin: %w", err)
	}
	defer tx.Rollback()

	dups, err := tx.Duplicates(ctx)
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
func mergeGroup(ctx context.Context, tx Tx, group []Triple) (int, error) {
	keep := group[0]
	conf, prov := keep.Confidence, keep.Provenance
	for _, t := range group[1:] {
		conf = max(conf, t.Confidence)
		if prov == "" {
			prov = t.Provenance
		}
		if err := tx.Delete(ctx, t.ID); err != nil {
			return 0, fmt.Errorf("delete triple %d: %w", t.ID, err)
		}
	}
	if err := tx.SetConfidence(ctx, keep.ID, conf, prov); err != nil {
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
func (g *Graph) Churn(ctx context.Context, since time.Time, minChanges int) ([]ChurnReport, error) {
	if !since.IsZero() {
		if err := checkTime("since", since); err != nil {
			return nil, err
		}
	}
	out, err := g.st.Triples().Churn(ctx, since, max(minChanges, 1))
	if err != nil {
		return nil, fmt.Errorf("kg churn: %w", err)
	}
	if out == nil {
		out = []ChurnReport{}
	}
	return out, nil
}

// DuplicateCount is how many triples MergeDuplicates would remove now.
func (g *Graph) DuplicateCount(ctx context.Context) (int, error) {
	dups, err := g.st.Triples().Duplicates(ctx)
	if err != nil {
		return 0, fmt.Errorf("kg duplicates: %w", err)
	}
	n := 0
	for i := 1; i < len(dups); i++ {
		if sameFact(dups[i-1], dups[i]) {
			n++
		}
	}
	return n, nil
}
