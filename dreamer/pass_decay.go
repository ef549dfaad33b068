package dreamer

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
)

// Importance decay. Importance only orders the top-importance layer (L1)
// and breaks ties between equally relevant search hits, so decay changes
// ranking weight and nothing else: no drawer is hidden or deleted by it.
//
// For an active drawer with base importance b (what its writer set):
//
//	age  = now − max(created_at, last_access)      access restarts the clock
//	f    = 2^(−age / HalfLife)
//	f'   = f + (1 − f) · AccessBoost · min(1, ln(1+accesses) / ln(33))
//	lo   = min(b, Floor)
//	w    = lo + (b − lo) · f'
//
// Pinned drawers keep b. A change smaller than decayEpsilon is not
// written. The pass is a pure function of the drawers and now: running it
// twice at the same now changes nothing the second time. The base is
// remembered (dream_decay) so decay never compounds, and a drawer whose
// importance was edited since the last pass takes the edit as its new base.

const decayEpsilon = 0.005

// decayed computes w for one drawer.
func decayed(s Settings, base float64, created, lastAccess time.Time, accesses int64, pinned bool, now time.Time) float64 {
	if pinned {
		return base
	}
	ref := created
	if lastAccess.After(ref) {
		ref = lastAccess
	}
	age := max(now.Sub(ref), 0)
	f := math.Exp2(-float64(age) / float64(s.HalfLife))
	boost := min(1, math.Log1p(float64(max(accesses, 0)))/math.Log(33))
	f += (1 - f) * min(max(s.AccessBoost, 0), 1) * boost
	lo := min(base, s.Floor)
	return lo + (base-lo)*f
}

type decayChange struct {
	d       palace.Drawer
	base, w float64
}

func runDecay(ctx context.Context, e *passEnv) error {
	bases, err := dreamlog.Of(e.p).DecayBases(ctx)
	if err != nil {
		return err
	}
	sum := &DecaySummary{}
	e.rep.Decay = sum
	var plan []decayChange
	var drop float64
	err = e.p.Scan(ctx, palace.ScanOptions{}, func(d *palace.Drawer, _ []float32) error {
		e.rep.Examined++
		if e.rep.Examined%1024 == 0 && e.overBudget() {
			return errBudget
		}
		base := d.Importance
		if b, ok := bases[d.ID]; ok && math.Abs(b.Applied-d.Importance) < 1e-9 {
			base = b.Base
		}
		if d.Pinned {
			sum.Pinned++
		}
		w := decayed(e.s, base, d.CreatedAt, d.LastAccess, d.AccessCount, d.Pinned, e.now)
		if math.Abs(w-d.Importance) < decayEpsilon {
			return nil
		}
		if w < d.Importance {
			sum.Decayed++
			drop += d.Importance - w
		} else {
			sum.Restored++
		}
		plan = append(plan, decayChange{d: palace.Drawer{ID: d.ID, Seq: d.Seq, Importance: d.Importance}, base: base, w: w})
		return nil
	})
	if errors.Is(err, errBudget) {
		e.rep.Status, e.rep.Note = PassPartial, "time budget spent before every drawer was weighed"
	} else if err != nil {
		return err
	}
	if sum.Decayed > 0 {
		sum.MeanDrop = math.Round(drop/float64(sum.Decayed)*1e4) / 1e4
	}
	if e.dry || len(plan) == 0 {
		e.rep.Changed = len(plan)
		return nil
	}
	tx, err := e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i := range plan {
		if i == len(plan)/2 {
			if err := e.midApply(ctx); err != nil {
				return err
			}
		}
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		c := &plan[i]
		if _, err := tx.Decay(&c.d, c.base, c.w); err != nil {
			return err
		}
	}
	e.rep.Changed = tx.Changes()
	return tx.Commit()
}
