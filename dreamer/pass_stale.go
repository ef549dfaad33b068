package dreamer

import (
	"context"
	"errors"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/facts"
)

// Staleness. An active fact (kind fact: Engram remember, mem_save_fact)
// that has not been confirmed within the horizon becomes stale: it leaves
// recall and stays in history (get by id, the review queue, undo). When it
// was last confirmed is the same rule the facts' own read path uses: meta
// confirmed_at, else the drawer's last change. The horizon is the palace's
// (LOCI_FACT_HORIZON or the config file, default 180 days) unless
// Settings.FactHorizon overrides it.

func runStale(ctx context.Context, e *passEnv) error {
	horizon := e.s.FactHorizon
	if horizon == 0 {
		h, err := e.p.StaleHorizon()
		if err != nil {
			return err
		}
		horizon = h
	}
	if horizon <= 0 {
		e.rep.Status, e.rep.Note = PassSkipped, "staleness is off (fact horizon 0)"
		return nil
	}
	cutoff := e.now.Add(-horizon)
	var plan []palace.Drawer
	err := e.p.Scan(ctx, palace.ScanOptions{Filter: palace.Filter{Kinds: []string{palace.KindFact}}},
		func(d *palace.Drawer, _ []float32) error {
			e.rep.Examined++
			if e.rep.Examined%1024 == 0 && e.overBudget() {
				return errBudget
			}
			confirmed := facts.FromDrawer(d).ConfirmedAt
			if confirmed.IsZero() {
				confirmed = d.UpdatedAt
			}
			if !confirmed.Before(cutoff) {
				return nil
			}
			plan = append(plan, palace.Drawer{ID: d.ID, Seq: d.Seq})
			if len(e.rep.Stale) < maxListed {
				engram, _ := d.Meta[palace.MetaEngramID].(string)
				e.rep.Stale = append(e.rep.Stale, StaleFact{DrawerID: d.ID, EngramID: engram, ConfirmedAt: confirmed})
			} else {
				e.rep.Omitted++
			}
			return nil
		})
	if errors.Is(err, errBudget) {
		e.rep.Status, e.rep.Note = PassPartial, "time budget spent before every fact was checked"
	} else if err != nil {
		return err
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
	stale := palace.StatusStale
	for i := range plan {
		if i == len(plan)/2 {
			if err := e.midApply(ctx); err != nil {
				return err
			}
		}
		if _, err := tx.Patch(dreamlog.OpStale, &plan[i], dreamlog.Patch{Status: &stale}); err != nil {
			return err
		}
	}
	e.rep.Changed = tx.Changes()
	return tx.Commit()
}
