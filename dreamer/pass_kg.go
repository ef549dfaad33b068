package dreamer

import (
	"context"
	"time"
)

// Knowledge-graph hygiene: identical active triples (same subject,
// predicate and object, which concurrent writers or imports can leave) are
// folded into one by kg's MergeDuplicates (the earliest survives with the
// highest confidence; one transaction), and subjects whose objects keep
// changing are reported (kg's Churn over ChurnWindow, at least ChurnMin
// changes). Folding identical triples loses no fact, so it is not recorded
// for undo.

const maxChurn = 20

func runKG(ctx context.Context, e *passEnv) error {
	store := e.p.KG()
	sum := &KGSummary{}
	e.rep.KG = sum
	st, err := store.Stats(ctx)
	if err != nil {
		return err
	}
	e.rep.Examined = st.Active
	if e.dry {
		n, err := countDuplicateTriples(ctx, e)
		if err != nil {
			return err
		}
		sum.Merged, e.rep.Changed = n, n
	} else {
		n, err := store.MergeDuplicates(ctx)
		if err != nil {
			return err
		}
		sum.Merged, e.rep.Changed = n, n
	}
	churn, err := store.Churn(ctx, e.now.Add(-e.s.ChurnWindow).Truncate(time.Second), e.s.ChurnMin)
	if err != nil {
		return err
	}
	if len(churn) > maxChurn {
		e.rep.Omitted += len(churn) - maxChurn
		churn = churn[:maxChurn]
	}
	sum.Churn = churn
	return nil
}

// countDuplicateTriples counts what MergeDuplicates would remove.
func countDuplicateTriples(ctx context.Context, e *passEnv) (int, error) {
	return e.p.KG().DuplicateCount(ctx)
}
