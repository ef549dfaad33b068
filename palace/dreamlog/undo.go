package dreamlog

import (
	"context"
	"fmt"

	"github.com/loci-mem/loci/palace"
)

// UndoReport says what UndoDream restored and what it left alone.
type UndoReport struct {
	RunID    string     `json:"run_id"`
	Restored int        `json:"restored"`
	Skipped  []UndoSkip `json:"skipped"`
}

// UndoSkip is a change Undo did not revert, and why.
type UndoSkip struct {
	DrawerID string `json:"drawer_id"`
	Op       string `json:"op"`
	Reason   string `json:"reason"`
}

// Undo reverts the changes of run runID, newest first, in one
// transaction. A change is reverted only while the drawer still holds
// every value the run wrote; a drawer changed since keeps its newer state
// and is reported in Skipped. Drawers the run created are marked deleted
// (their rows stay). The run is marked undone; undoing it again fails with
// CodeConflict. When owner is not empty it must hold the lease.
func (j Journal) Undo(ctx context.Context, runID, owner string) (UndoReport, error) {
	rep := UndoReport{RunID: runID, Skipped: []UndoSkip{}}
	run, err := j.Run(ctx, runID)
	if err != nil {
		return rep, err
	}
	if !run.UndoneAt.IsZero() {
		return rep, palace.Conflictf("dream run %q was already undone", runID)
	}
	changes, err := j.Changes(ctx, runID)
	if err != nil {
		return rep, err
	}
	t, err := j.Begin(ctx, runID, "undo", owner)
	if err != nil {
		return rep, err
	}
	defer t.Rollback()
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		if c.Undone {
			continue
		}
		reason, err := t.revert(c)
		if err != nil {
			return rep, err
		}
		if reason != "" {
			rep.Skipped = append(rep.Skipped, UndoSkip{DrawerID: c.DrawerID, Op: c.Op, Reason: reason})
			continue
		}
		rep.Restored++
		if err := t.t.Store().Dream().MarkChangeUndone(ctx, c.ID); err != nil {
			return rep, storeErr("undo dream", err)
		}
	}
	if err := t.t.Store().Dream().MarkRunUndone(ctx, runID, t.t.Now()); err != nil {
		return rep, storeErr("undo dream", err)
	}
	return rep, t.Commit()
}

// revert restores one change; it returns a reason when it cannot.
func (t *Tx) revert(c Change) (string, error) {
	cur, err := t.current(c.DrawerID)
	if err != nil {
		return "", err
	}
	if cur == nil {
		return "drawer no longer exists", nil
	}
	now := drawerFields(cur)
	for k, v := range c.After {
		if !jsonEqual(now[k], v) {
			return fmt.Sprintf("%s changed since the run", k), nil
		}
	}
	var patch Patch
	if c.Op == OpCreate {
		deleted := palace.StatusDeleted
		patch.Status = &deleted
	} else if err := patchFromFields(c.Before, &patch); err != nil {
		return "", err
	}
	if _, _, err := t.apply(cur, patch, map[string]any{"dream_undo": c.RunID}); err != nil {
		return "", err
	}
	if imp, ok := c.Before["importance"].(float64); ok && c.Op == OpDecay {
		if err := t.t.Store().Dream().SetDecayApplied(t.t.Context(), cur.RID, imp); err != nil {
			return "", storeErr("undo decay", err)
		}
	}
	return "", nil
}

// drawerFields maps the field names dream changes use to a drawer's
// current values.
func drawerFields(d *palace.Drawer) map[string]any {
	return map[string]any{
		"status": d.Status, "superseded_by": d.SupersededBy, "importance": d.Importance,
		"confidence": d.Confidence, "tags": d.Tags, "meta": metaOrEmpty(d.Meta),
		"content": d.Content, "keywords": d.Keywords,
	}
}

// patchFromFields turns recorded field values (decoded from JSON) into a
// patch.
func patchFromFields(m map[string]any, p *Patch) error {
	str := func(k string) (*string, error) {
		v, ok := m[k]
		if !ok {
			return nil, nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, storeErr("undo dream", fmt.Errorf("recorded %s is %T, not a string", k, v))
		}
		return &s, nil
	}
	num := func(k string) (*float64, error) {
		v, ok := m[k]
		if !ok {
			return nil, nil
		}
		f, ok := v.(float64)
		if !ok {
			return nil, storeErr("undo dream", fmt.Errorf("recorded %s is %T, not a number", k, v))
		}
		return &f, nil
	}
	var err error
	if p.Status, err = str("status"); err != nil {
		return err
	}
	if p.SupersededBy, err = str("superseded_by"); err != nil {
		return err
	}
	if p.Content, err = str("content"); err != nil {
		return err
	}
	if p.Keywords, err = str("keywords"); err != nil {
		return err
	}
	if p.Importance, err = num("importance"); err != nil {
		return err
	}
	if p.Confidence, err = num("confidence"); err != nil {
		return err
	}
	if v, ok := m["tags"]; ok {
		list, _ := v.([]any)
		p.Tags = make([]string, 0, len(list))
		for _, x := range list {
			if s, ok := x.(string); ok {
				p.Tags = append(p.Tags, s)
			}
		}
	}
	if v, ok := m["meta"]; ok {
		mm, _ := v.(map[string]any)
		p.Meta = metaOrEmpty(mm)
	}
	return nil
}
