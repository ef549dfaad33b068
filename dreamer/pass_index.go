package dreamer

import (
	"context"
	"errors"
	"fmt"
)

// Index maintenance. The vector index is a cache of the vectors stored in
// SQLite, so this pass never risks a memory:
//
//   - drawers whose vector is missing or was made by another embedder, or
//     whose vectors are of an earlier layout (passage vectors of another
//     window, a text's identifiers read without their words), are
//     re-embedded (palace.Reembed), active ones first, in batches that each
//     commit on their own (a batch is atomic; a cancelled pass keeps the
//     batches already stored, which are complete and correct);
//   - when the share of tombstones reaches TombstoneRatio, or the index
//     itself asks for it (a degraded graph), the index is compacted
//     without them and its graph built again, a large one in the
//     background (palace.CompactIndex);
//   - a graph that was never calibrated, or has doubled since, chooses its
//     beam width again on the palace's own queries (and a choice that
//     kept the scan on a width's cost alone is timed again);
//   - the snapshot is saved (written to a temporary file and renamed).

func runIndex(ctx context.Context, e *passEnv) error {
	before, err := e.p.IndexHealth(ctx)
	if err != nil {
		return err
	}
	sum := &IndexSummary{Before: before}
	e.rep.Index = sum
	e.rep.Examined = before.Live
	rebuild := before.NeedsRebuild || (before.Tombstones > 0 && before.TombstoneRatio >= e.s.TombstoneRatio)
	if e.dry {
		if before.StaleVectors > 0 {
			e.rep.Changed += int(before.StaleVectors)
		}
		sum.Rebuilt = rebuild
		sum.Vectors = before.Live
		if rebuild {
			e.rep.Note = "would rebuild the vector index"
		}
		return nil
	}
	if before.StaleVectors > 0 || before.StalePassages {
		bctx, cancel := context.WithDeadline(ctx, e.deadline)
		n, err := e.p.Reembed(bctx, e.s.ReembedBatch)
		cancel()
		sum.Reembedded = n
		e.rep.Changed += n
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			e.rep.Status = PassPartial
			e.rep.Note = fmt.Sprintf("time budget spent after re-embedding %d of %d drawers", n, before.StaleVectors)
			if before.StalePassages {
				e.rep.Note = fmt.Sprintf("time budget spent after re-embedding %d drawers (%d without a vector of this embedder, and texts embedded in an earlier layout: long texts in another passage window, identifiers without their words)",
					n, before.StaleVectors)
			}
		default:
			return err
		}
	}
	if rebuild && e.rep.Status != PassPartial {
		// Compacted in place: a large graph is built again in the
		// background while searches scan, where a rebuild from the store
		// held every search of the process for a minute and more at
		// 100k drawers (palace.CompactIndex).
		if _, err := e.p.CompactIndex(ctx); err != nil {
			return err
		}
		sum.Rebuilt = true
	}
	// A graph that grew to twice the size it was measured at is measured
	// again (palace.CalibrateIndex); the choice goes into the snapshot.
	if _, err := e.p.CalibrateIndex(ctx); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err := e.p.SaveIndex(ctx); err != nil {
		e.rep.Note = "snapshot not saved: " + err.Error()
	} else {
		sum.Saved = true
	}
	after, err := e.p.IndexHealth(ctx)
	if err == nil {
		sum.Vectors = after.Live
	}
	return nil
}
