package palace

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/loci-mem/loci/palace/store"
)

// Actions that hand out undo tokens.
const (
	ActionForget = "forget"
	ActionReject = "reject"
)

// Forget removes a drawer (by drawer id, or a fact by its engram id) from
// recall by marking it deleted, and returns an undo token that restores it. Its row stays in the store (history, undo).
// Forgetting an unknown or already deleted drawer fails with CodeNotFound.
// Every face forgets through here.
func (p *Palace) Forget(ctx context.Context, id string) (*Drawer, string, error) {
	d, err := p.Lookup(ctx, id)
	if err != nil {
		return nil, "", err
	}
	if d.Status == StatusDeleted { // forgotten is gone, as far as the faces can tell
		return nil, "", NotFoundf("drawer %q not found in palace %q", truncate(strings.TrimSpace(id), 80), p.name)
	}
	return p.ChangeWithUndo(ctx, d, ActionForget, StatusDeleted)
}

// ChangeWithUndo moves drawer d (as read by the caller) to status and
// records an undo token for action, in one transaction. It fails with
// CodeConflict when d's status changed since it was read.
func (p *Palace) ChangeWithUndo(ctx context.Context, d *Drawer, action, status string) (*Drawer, string, error) {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, "", internal("make undo token", err)
	}
	token := "undo-" + hex.EncodeToString(b[:])
	var nd *Drawer
	err := p.Write(ctx, func(t *Tx) error {
		var err error
		nd, err = t.Modify(d.ID, nil, func(x *Drawer) error {
			if x.Status != d.Status {
				return Conflictf("%s changed while being updated; try again", p.DisplayID(x))
			}
			x.Status = status
			x.SupersededBy = ""
			return nil
		})
		if err != nil {
			return err
		}
		return storeErr("record undo token", t.st.Drawers().PutUndo(ctx, store.Undo{
			Token: token, Action: action, DrawerID: nd.ID, PrevStatus: d.Status,
			PrevSupersededBy: d.SupersededBy, NewStatus: status, Seq: nd.Seq, CreatedAt: t.now}))
	})
	if err != nil {
		return nil, "", err
	}
	return nd, token, nil
}

// Undo reverts the forget (or review rejection) that handed out token: the
// drawer gets its previous status back. A token works once, and only while
// the drawer's status is still the one that action set (no later status
// change); otherwise Undo fails with CodeConflict and changes nothing. An
// unknown token is CodeNotFound. It returns the restored drawer and the
// action undone.
func (p *Palace) Undo(ctx context.Context, token string) (*Drawer, string, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, "", Invalidf("undo token is empty")
	}
	var nd *Drawer
	var action string
	err := p.Write(ctx, func(t *Tx) error {
		u, err := t.st.Drawers().Undo(ctx, token)
		if errors.Is(err, store.ErrNotFound) {
			return NotFoundf("undo token %q not found in palace %q", truncate(token, 60), p.name)
		}
		if err != nil {
			return storeErr("read undo token", err)
		}
		action = u.Action
		used, err := t.st.Drawers().UseUndo(ctx, token, t.now)
		if err != nil {
			return storeErr("use undo token", err)
		}
		if !used {
			return Conflictf("undo token %s was already used", token)
		}
		// Any status change after the action (another review step, the
		// dreamer) makes the token stale; edits that keep the status do
		// not.
		later, err := t.st.Log().CountForDrawerAfter(ctx, u.DrawerID, EventStatus, u.Seq)
		if err != nil {
			return storeErr("check undo token", err)
		}
		nd, err = t.Modify(u.DrawerID, nil, func(x *Drawer) error {
			if later > 0 || x.Status != u.NewStatus {
				return Conflictf("%s changed after the %s; undo refused", p.DisplayID(x), u.Action)
			}
			x.Status = u.PrevStatus
			x.SupersededBy = u.PrevSupersededBy
			return nil
		})
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return nd, action, nil
}

// MetaEngramID is the meta key of a fact's engram id ("mem-0042").
const MetaEngramID = "engram_id"

// MetaFactKind is the meta key of a fact's kind (palace/facts: one of
// seed 004's ten).
const MetaFactKind = "fact_kind"

// FormatFactID renders the engram id of fact number n: mem-0042.
func FormatFactID(n int64) string { return fmt.Sprintf("mem-%04d", n) }

// ParseFactID reads an engram id ("mem-0042", "MEM-42") and returns its
// number.
func ParseFactID(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 5 || !strings.EqualFold(s[:4], "mem-") {
		return 0, false
	}
	n, err := strconv.ParseInt(s[4:], 10, 64)
	if err != nil || n <= 0 || strings.ContainsAny(s[4:], "+-") {
		return 0, false
	}
	return n, true
}

// Lookup returns the drawer an id names: a drawer id, or a fact's engram
// id (mem-0042). An unknown id is CodeNotFound; a malformed engram id
// CodeInvalid.
func (p *Palace) Lookup(ctx context.Context, id string) (*Drawer, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, Invalidf("id is empty")
	}
	n, ok := ParseFactID(id)
	if !ok {
		if strings.HasPrefix(strings.ToLower(id), "mem-") {
			return nil, Invalidf("bad fact id %q: want mem-NNNN", truncate(id, 40))
		}
		return p.Get(ctx, id)
	}
	drawerID, found, err := p.st.Facts().DrawerOf(ctx, n)
	if err != nil {
		return nil, storeErr("find fact", err)
	}
	if !found {
		return nil, NotFoundf("fact %s not found in palace %q", FormatFactID(n), p.name)
	}
	d, err := p.Get(ctx, drawerID)
	if errors.Is(err, ErrNotFound) {
		return nil, NotFoundf("fact %s not found in palace %q", FormatFactID(n), p.name)
	}
	return d, err
}

// DisplayID names a drawer for people: "fact mem-0042" or "drawer <id>".
func (p *Palace) DisplayID(d *Drawer) string {
	if id, _ := d.Meta[MetaEngramID].(string); id != "" {
		return "fact " + id
	}
	return "drawer " + d.ID
}
