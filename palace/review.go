package palace

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Review actions, as recorded with undo tokens and in ReviewResult.
const (
	ActionApprove = "approve"
	ActionReject  = "reject"
	ActionForget  = "forget"
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

// ApproveFact promotes a pending, stale or rejected fact (status active,
// confirmed_at now). Approving a promoted fact re-confirms it. If the fact
// was flagged as conflicting with a promoted one, that one is superseded
// by it and stays in history. A superseded or deleted fact cannot be
// approved (CodeConflict).
func (p *Palace) ApproveFact(ctx context.Context, id string) (ReviewResult, error) {
	d, err := p.factDrawer(ctx, id)
	if err != nil {
		return ReviewResult{}, err
	}
	res := ReviewResult{Action: ActionApprove, Reconfirmed: d.Status == StatusActive}
	if err := transitionError(ActionApprove, d); err != nil {
		return res, err
	}
	now := p.now().UTC()
	var old *Drawer
	if cw := metaString(d.Meta, MetaConflictsWith); cw != "" && !res.Reconfirmed {
		if o, err := p.factDrawer(ctx, cw); err == nil && o.Status == StatusActive && o.ID != d.ID {
			old = o
		}
	}
	nd, err := p.Update(ctx, d.ID, func(x *Drawer) error {
		if x.Status != d.Status {
			return Conflictf("fact %s changed while being approved; try again", FactFromDrawer(x).ID)
		}
		if x.Meta == nil {
			x.Meta = map[string]any{}
		}
		x.Status = StatusActive
		x.Meta[MetaConfirmedAt] = formatMetaTime(now)
		if old != nil {
			x.Meta[MetaSupersedes] = metaString(old.Meta, MetaEngramID)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if old != nil {
		od, err := p.Update(ctx, old.ID, func(x *Drawer) error {
			if x.Status != StatusActive {
				return errUnchanged
			}
			x.Status = StatusSuperseded
			x.SupersededBy = nd.ID
			return nil
		})
		switch {
		case err == nil:
			f := p.factView(ctx, od)
			res.Superseded = &f
		case err != errUnchanged:
			return res, err
		}
	}
	res.Fact = p.factView(ctx, nd)
	return res, nil
}

// RejectFact moves a pending or stale fact to rejected and returns an undo
// token. Rejecting a promoted fact is refused (forget it instead).
func (p *Palace) RejectFact(ctx context.Context, id string) (ReviewResult, error) {
	d, err := p.factDrawer(ctx, id)
	if err != nil {
		return ReviewResult{}, err
	}
	if err := transitionError(ActionReject, d); err != nil {
		return ReviewResult{}, err
	}
	nd, token, err := p.changeWithUndo(ctx, d, ActionReject, StatusRejected)
	if err != nil {
		return ReviewResult{}, err
	}
	return ReviewResult{Action: ActionReject, Fact: p.factView(ctx, nd), UndoToken: token}, nil
}

// ForgetDrawer marks any drawer (a fact by engram id, or any drawer by its
// id) deleted and returns an undo token. It fails with CodeNotFound for an
// unknown or already deleted drawer.
func (p *Palace) ForgetDrawer(ctx context.Context, id string) (*Drawer, string, error) {
	var d *Drawer
	var err error
	if _, ok := ParseFactID(id); ok {
		d, err = p.factDrawer(ctx, id)
	} else {
		d, err = p.Get(ctx, strings.TrimSpace(id))
	}
	if err != nil {
		return nil, "", err
	}
	if d.Status == StatusDeleted {
		return nil, "", NotFoundf("%s is already forgotten", truncate(id, 80))
	}
	return p.changeWithUndo(ctx, d, ActionForget, StatusDeleted)
}

// ForgetFact is ForgetDrawer restricted to facts, with the fact's view.
func (p *Palace) ForgetFact(ctx context.Context, id string) (ReviewResult, error) {
	d, err := p.factDrawer(ctx, id)
	if err != nil {
		return ReviewResult{}, err
	}
	if err := transitionError(ActionForget, d); err != nil {
		return ReviewResult{}, err
	}
	nd, token, err := p.changeWithUndo(ctx, d, ActionForget, StatusDeleted)
	if err != nil {
		return ReviewResult{}, err
	}
	return ReviewResult{Action: ActionForget, Fact: p.factView(ctx, nd), UndoToken: token}, nil
}

// transitionError says why action cannot move fact d from its status, or
// returns nil when it can. The review queue's state machine:
//
//	approve: pending, stale, rejected -> active; active -> active (re-confirm)
//	reject:  pending, stale -> rejected
//	forget:  anything but deleted -> deleted
func transitionError(action string, d *Drawer) error {
	id := FactFromDrawer(d).ID
	switch action {
	case ActionApprove:
		switch d.Status {
		case StatusPending, StatusStale, StatusRejected, StatusActive:
			return nil
		}
		return Conflictf("fact %s is %s and cannot be approved", id, d.Status)
	case ActionReject:
		switch d.Status {
		case StatusPending, StatusStale:
			return nil
		case StatusActive:
			return Conflictf("fact %s is already promoted; forget it instead of rejecting it", id)
		}
		return Conflictf("fact %s is %s and cannot be rejected", id, d.Status)
	case ActionForget:
		if d.Status == StatusDeleted {
			return NotFoundf("fact %s is already forgotten", id)
		}
		return nil
	}
	return Invalidf("unknown review action %q", action)
}

// CheckReview reports, without changing anything, whether action
// (approve, reject or forget) may be applied to the fact now. Callers
// acting on several facts check them all first.
func (p *Palace) CheckReview(ctx context.Context, action, id string) error {
	d, err := p.factDrawer(ctx, id)
	if err != nil {
		return err
	}
	return transitionError(action, d)
}

// changeWithUndo sets d's status and records an undo token for it.
func (p *Palace) changeWithUndo(ctx context.Context, d *Drawer, action, status string) (*Drawer, string, error) {
	prev, prevSup := d.Status, d.SupersededBy
	nd, err := p.Update(ctx, d.ID, func(x *Drawer) error {
		if x.Status != prev {
			return Conflictf("%s changed while being updated; try again", truncate(d.ID, 80))
		}
		x.Status = status
		x.SupersededBy = ""
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nd, "", internal("make undo token", err)
	}
	token := "undo-" + hex.EncodeToString(b[:])
	_, err = p.db.ExecContext(ctx, `INSERT INTO review_undo(token, action, drawer_id, prev_status,
		prev_superseded_by, new_status, seq, created_at) VALUES (?,?,?,?,?,?,?,?)`,
		token, action, nd.ID, prev, prevSup, status, nd.Seq, p.now().UTC().UnixMilli())
	if err != nil {
		return nd, "", internal("record undo token", err)
	}
	return nd, token, nil
}

// undoRecord is a stored undo token.
type undoRecord struct {
	Token      string    `json:"token"`
	Action     string    `json:"action"`
	DrawerID   string    `json:"drawer_id"`
	PrevStatus string    `json:"prev_status"`
	NewStatus  string    `json:"new_status"`
	CreatedAt  time.Time `json:"created_at"`
	Used       bool      `json:"used"`
}

// Undo reverts the reject or forget that handed out token: the drawer gets
// its previous status back. A token works once, and only while the
// drawer's status is still the one that action set (no later status
// change); otherwise Undo fails with
// CodeConflict and changes nothing. An unknown token is CodeNotFound.
func (p *Palace) Undo(ctx context.Context, token string) (ReviewResult, *Drawer, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return ReviewResult{}, nil, Invalidf("undo token is empty")
	}
	var u undoRecord
	var prevSup string
	var seq, created, used int64
	err := p.db.QueryRowContext(ctx, `SELECT token, action, drawer_id, prev_status, prev_superseded_by,
		new_status, seq, created_at, used_at FROM review_undo WHERE token = ?`, token).Scan(
		&u.Token, &u.Action, &u.DrawerID, &u.PrevStatus, &prevSup, &u.NewStatus, &seq, &created, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return ReviewResult{}, nil, NotFoundf("undo token %q not found in palace %q", truncate(token, 60), p.name)
	}
	if err != nil {
		return ReviewResult{}, nil, internal("read undo token", err)
	}
	u.CreatedAt, u.Used = msTime(created), used != 0
	if u.Used {
		return ReviewResult{}, nil, Conflictf("undo token %s was already used", token)
	}
	// Any status change after the action (another review step, the
	// dreamer) makes the token stale; edits that keep the status do not.
	var later int
	if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE drawer_id = ? AND seq > ? AND type = ?`,
		u.DrawerID, seq, EventStatus).Scan(&later); err != nil {
		return ReviewResult{}, nil, internal("check undo token", err)
	}
	nd, err := p.Update(ctx, u.DrawerID, func(x *Drawer) error {
		if later > 0 || x.Status != u.NewStatus {
			return Conflictf("%s changed after the %s; undo refused", p.displayID(x), u.Action)
		}
		x.Status = u.PrevStatus
		x.SupersededBy = prevSup
		return nil
	})
	if err != nil {
		return ReviewResult{}, nil, err
	}
	res, err := p.db.ExecContext(ctx, `UPDATE review_undo SET used_at = ? WHERE token = ? AND used_at = 0`,
		p.now().UTC().UnixMilli(), token)
	if err != nil {
		return ReviewResult{}, nd, internal("use undo token", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ReviewResult{}, nd, Conflictf("undo token %s was already used", token)
	}
	out := ReviewResult{Action: ActionUndo}
	if nd.Kind == KindFact {
		out.Fact = p.factView(ctx, nd)
	}
	return out, nd, nil
}

func (p *Palace) displayID(d *Drawer) string {
	if id := metaString(d.Meta, MetaEngramID); id != "" {
		return "fact " + id
	}
	return "drawer " + d.ID
}

// FactEvent is one entry of a fact's history, from the change log.
type FactEvent struct {
	Seq    int64          `json:"seq"`
	At     time.Time      `json:"at"`
	Type   string         `json:"type"`
	Detail map[string]any `json:"detail,omitempty"`
}

// FactHistory returns the change-log entries of a fact, oldest first.
func (p *Palace) FactHistory(ctx context.Context, id string) ([]FactEvent, error) {
	d, err := p.factDrawer(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := p.db.QueryContext(ctx, `SELECT seq, at, type, detail FROM events WHERE drawer_id = ? ORDER BY seq`, d.ID)
	if err != nil {
		return nil, internal("fact history", err)
	}
	defer rows.Close()
	out := []FactEvent{}
	for rows.Next() {
		var e FactEvent
		var at int64
		var detail string
		if err := rows.Scan(&e.Seq, &at, &e.Type, &detail); err != nil {
			return nil, internal("fact history", err)
		}
		e.At = msTime(at)
		if detail != "" && detail != "{}" {
			_ = json.Unmarshal([]byte(detail), &e.Detail)
		}
		out = append(out, e)
	}
	return out, internal("fact history", rows.Err())
}
