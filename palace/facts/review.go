package facts

import (
	"context"
	"encoding/json"
	"time"

	"github.com/loci-mem/loci/palace"
)

// Review actions, as recorded with undo tokens and in ReviewResult.
const (
	ActionApprove = "approve"
	ActionReject  = palace.ActionReject
	ActionForget  = palace.ActionForget
	ActionUndo    = "undo"
)

// ReviewResult is the outcome of a review action.
type ReviewResult struct {
	Action string `json:"action"`
	Fact   Fact   `json:"fact"`
	// Superseded is the promoted fact an approval replaced (it had been
	// flagged as conflicting with the approved one).
	Superseded *Fact `json:"superseded,omitempty"`
	// UndoToken reverts a reject or forget with Undo.
	UndoToken string `json:"undo,omitempty"` // not "undo_token": a key ending in "token" reads as a secret to the redactor
	// Reconfirmed is set when approve met an already promoted fact: its
	// confirmed_at was refreshed.
	Reconfirmed bool `json:"reconfirmed,omitempty"`
}

// Approve promotes a pending, stale or rejected fact (status active,
// confirmed_at now). Approving a promoted fact re-confirms it. If the fact
// was flagged as conflicting with a promoted one, that one is superseded
// by it and stays in history. A superseded or deleted fact cannot be
// approved (CodeConflict).
//
// The approval and the supersession are one transaction, and the fact's
// status is checked inside it: two reviewers (or two nodes of a team
// palace) approving at once apply it once, and the second sees a
// re-confirmation.
func (q Queue) Approve(ctx context.Context, id string) (ReviewResult, error) {
	d, err := q.drawer(ctx, id)
	if err != nil {
		return ReviewResult{}, err
	}
	res := ReviewResult{Action: ActionApprove, Reconfirmed: d.Status == palace.StatusActive}
	if err := transitionError(ActionApprove, d); err != nil {
		return res, err
	}
	var old *palace.Drawer
	if cw := metaString(d.Meta, MetaConflictsWith); cw != "" && !res.Reconfirmed {
		if o, err := q.drawer(ctx, cw); err == nil && o.Status == palace.StatusActive && o.ID != d.ID {
			old = o
		}
	}
	var nd, od *palace.Drawer
	err = q.p.Write(ctx, func(t *palace.Tx) error {
		var err error
		nd, err = t.Modify(d.ID, nil, func(x *palace.Drawer) error {
			if x.Status != d.Status {
				return palace.Conflictf("fact %s changed while being approved; try again", FromDrawer(x).ID)
			}
			if x.Meta == nil {
				x.Meta = map[string]any{}
			}
			x.Status = palace.StatusActive
			x.Meta[MetaConfirmedAt] = formatMetaTime(t.Now())
			if old != nil {
				x.Meta[MetaSupersedes] = metaString(old.Meta, palace.MetaEngramID)
			}
			return nil
		})
		if err != nil || old == nil {
			return err
		}
		od, err = t.Modify(old.ID, nil, func(x *palace.Drawer) error {
			if x.Status != palace.StatusActive {
				return palace.ErrUnchanged
			}
			x.Status = palace.StatusSuperseded
			x.SupersededBy = nd.ID
			return nil
		})
		return err
	})
	if err != nil {
		return res, err
	}
	if od != nil && od.Status == palace.StatusSuperseded {
		f := q.view(ctx, od)
		res.Superseded = &f
	}
	res.Fact = q.view(ctx, nd)
	return res, nil
}

// Reject moves a pending or stale fact to rejected and returns an undo
// token. Rejecting a promoted fact is refused (forget it instead).
func (q Queue) Reject(ctx context.Context, id string) (ReviewResult, error) {
	return q.transition(ctx, ActionReject, id, palace.StatusRejected)
}

// Forget marks a fact deleted and returns an undo token (palace.Forget
// for any drawer; this is the review queue's view of it).
func (q Queue) Forget(ctx context.Context, id string) (ReviewResult, error) {
	return q.transition(ctx, ActionForget, id, palace.StatusDeleted)
}

func (q Queue) transition(ctx context.Context, action, id, status string) (ReviewResult, error) {
	d, err := q.drawer(ctx, id)
	if err != nil {
		return ReviewResult{}, err
	}
	if err := transitionError(action, d); err != nil {
		return ReviewResult{}, err
	}
	nd, token, err := q.p.ChangeWithUndo(ctx, d, action, status)
	if err != nil {
		return ReviewResult{}, err
	}
	return ReviewResult{Action: action, Fact: q.view(ctx, nd), UndoToken: token}, nil
}

// transitionError says why action cannot move fact d from its status, or
// returns nil when it can. The review queue's state machine:
//
//	approve: pending, stale, rejected -> active; active -> active (re-confirm)
//	reject:  pending, stale -> rejected
//	forget:  anything but deleted -> deleted
func transitionError(action string, d *palace.Drawer) error {
	id := FromDrawer(d).ID
	switch action {
	case ActionApprove:
		switch d.Status {
		case palace.StatusPending, palace.StatusStale, palace.StatusRejected, palace.StatusActive:
			return nil
		}
		return palace.Conflictf("fact %s is %s and cannot be approved", id, d.Status)
	case ActionReject:
		switch d.Status {
		case palace.StatusPending, palace.StatusStale:
			return nil
		case palace.StatusActive:
			return palace.Conflictf("fact %s is already promoted; forget it instead of rejecting it", id)
		}
		return palace.Conflictf("fact %s is %s and cannot be rejected", id, d.Status)
	case ActionForget:
		if d.Status == palace.StatusDeleted {
			return palace.NotFoundf("fact %s is already forgotten", id)
		}
		return nil
	}
	return palace.Invalidf("unknown review action %q", action)
}

// Check reports, without changing anything, whether action (approve,
// reject or forget) may be applied to the fact now. Callers acting on
// several facts check them all first.
func (q Queue) Check(ctx context.Context, action, id string) error {
	d, err := q.drawer(ctx, id)
	if err != nil {
		return err
	}
	return transitionError(action, d)
}

// Undo reverts the reject or forget that handed out token (see
// palace.Palace.Undo) and returns the fact's view when the drawer is a
// fact.
func (q Queue) Undo(ctx context.Context, token string) (ReviewResult, *palace.Drawer, error) {
	nd, _, err := q.p.Undo(ctx, token)
	if err != nil {
		return ReviewResult{}, nil, err
	}
	out := ReviewResult{Action: ActionUndo}
	if nd.Kind == palace.KindFact {
		out.Fact = q.view(ctx, nd)
	}
	return out, nd, nil
}

// Event is one entry of a fact's history, from the change log.
type Event struct {
	Seq    int64          `json:"seq"`
	At     time.Time      `json:"at"`
	Type   string         `json:"type"`
	Detail map[string]any `json:"detail,omitempty"`
}

// History returns the change-log entries of a fact, oldest first.
func (q Queue) History(ctx context.Context, id string) ([]Event, error) {
	d, err := q.drawer(ctx, id)
	if err != nil {
		return nil, err
	}
	evs, err := q.p.History(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(evs))
	for _, e := range evs {
		ev := Event{Seq: e.Seq, At: e.At, Type: e.Type}
		if len(e.Detail) > 0 && string(e.Detail) != "{}" {
			_ = json.Unmarshal(e.Detail, &ev.Detail)
		}
		out = append(out, ev)
	}
	return out, nil
}
