package palace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// drawerCols is the column list scanDrawer reads, in order (vector excluded).
const drawerCols = `d.rid, d.id, d.seq, d.kind, d.content, d.keywords, d.room, d.tags, d.importance,
	d.confidence, d.status, d.user_id, d.agent_id, d.session_id, d.sender_ids, d.parent_id,
	d.superseded_by, d.ts, d.created_at, d.updated_at, d.access_count, d.last_access, d.pinned,
	d.redactions, d.model, d.vec_id, d.meta`

type scanner interface{ Scan(dest ...any) error }

func scanDrawer(s scanner) (*Drawer, error) {
	var d Drawer
	var tags, senders, meta string
	var ts, created, updated, last int64
	var pinned int
	err := s.Scan(&d.rid, &d.ID, &d.Seq, &d.Kind, &d.Content, &d.Keywords, &d.Room, &tags,
		&d.Importance, &d.Confidence, &d.Status, &d.UserID, &d.AgentID, &d.SessionID, &senders,
		&d.ParentID, &d.SupersededBy, &ts, &created, &updated, &d.AccessCount, &last, &pinned,
		&d.Redactions, &d.Model, &d.vecID, &meta)
	if err != nil {
		return nil, err
	}
	d.Tags = []string{}
	_ = json.Unmarshal([]byte(tags), &d.Tags)
	d.SenderIDs = []string{}
	_ = json.Unmarshal([]byte(senders), &d.SenderIDs)
	if meta != "" && meta != "{}" {
		_ = json.Unmarshal([]byte(meta), &d.Meta)
	}
	d.Timestamp = msTime(ts)
	d.CreatedAt = msTime(created)
	d.UpdatedAt = msTime(updated)
	if last > 0 {
		d.LastAccess = msTime(last)
	}
	d.Pinned = pinned != 0
	return &d, nil
}

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// Get returns the drawer with that id, whatever its status. It fails with
// CodeNotFound for an unknown id.
func (p *Palace) Get(ctx context.Context, id string) (*Drawer, error) {
	if strings.TrimSpace(id) == "" {
		return nil, Invalidf("drawer id is empty")
	}
	row := p.db.QueryRowContext(ctx, `SELECT `+drawerCols+` FROM drawers d WHERE d.id = ?`, id)
	d, err := scanDrawer(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFoundf("drawer %q not found in palace %q", truncate(id, 80), p.name)
	}
	if err != nil {
		return nil, internal("get drawer", err)
	}
	return d, nil
}

// Resolve follows superseded_by links from id to the drawer that now holds
// its memory (at most 16 hops), returning the drawer itself when it was
// never superseded.
func (p *Palace) Resolve(ctx context.Context, id string) (*Drawer, error) {
	d, err := p.Get(ctx, id)
	for i := 0; err == nil && d.SupersededBy != "" && i < 16; i++ {
		var next *Drawer
		next, err = p.Get(ctx, d.SupersededBy)
		if err == nil {
			d = next
		}
	}
	return d, err
}

// ListOptions selects and orders drawers for List.
type ListOptions struct {
	Filter Filter
	// Order is "importance" (default: importance desc, newest first),
	// "newest", "oldest", "updated" (updated_at desc), "updated_oldest"
	// (updated_at asc) or "seq" (change order).
	Order  string
	Limit  int // default 50; at most 10000
	Offset int
}

// List returns drawers matching the filter and the total number that match
// before Limit and Offset apply.
func (p *Palace) List(ctx context.Context, o ListOptions) ([]*Drawer, int, error) {
	if o.Limit <= 0 {
		o.Limit = 50
	}
	if o.Limit > 10000 {
		return nil, 0, Invalidf("limit must be at most 10000, got %d", o.Limit)
	}
	if o.Offset < 0 {
		return nil, 0, Invalidf("offset must not be negative")
	}
	where, args, err := o.Filter.compile()
	if err != nil {
		return nil, 0, err
	}
	var order string
	switch o.Order {
	case "", "importance":
		order = "d.importance DESC, d.created_at DESC, d.rid DESC"
	case "newest":
		order = "d.ts DESC, d.rid DESC"
	case "oldest":
		order = "d.ts ASC, d.rid ASC"
	case "updated":
		order = "d.updated_at DESC, d.rid DESC"
	case "updated_oldest":
		order = "d.updated_at ASC, d.rid ASC"
	case "seq":
		order = "d.seq ASC"
	default:
		return nil, 0, Invalidf("unknown order %q", o.Order)
	}
	var total int
	if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM drawers d WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, internal("count drawers", err)
	}
	rows, err := p.db.QueryContext(ctx, `SELECT `+drawerCols+` FROM drawers d WHERE `+where+
		` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, o.Limit, o.Offset)...)
	if err != nil {
		return nil, 0, internal("list drawers", err)
	}
	defer rows.Close()
	out := []*Drawer{}
	for rows.Next() {
		d, err := scanDrawer(rows)
		if err != nil {
			return nil, 0, internal("list drawers", err)
		}
		out = append(out, d)
	}
	return out, total, internal("list drawers", rows.Err())
}

// Count returns how many drawers match the filter.
func (p *Palace) Count(ctx context.Context, f Filter) (int64, error) {
	where, args, err := f.compile()
	if err != nil {
		return 0, err
	}
	var n int64
	err = p.db.QueryRowContext(ctx, `SELECT count(*) FROM drawers d WHERE `+where, args...).Scan(&n)
	return n, internal("count drawers", err)
}

// drawersByRID loads drawers by row id, keyed by row id.
func (p *Palace) drawersByRID(ctx context.Context, rids []int64) (map[int64]*Drawer, error) {
	out := make(map[int64]*Drawer, len(rids))
	if len(rids) == 0 {
		return out, nil
	}
	q := `SELECT ` + drawerCols + ` FROM drawers d WHERE d.rid IN (` + placeholders(len(rids)) + `)`
	args := make([]any, len(rids))
	for i, r := range rids {
		args[i] = r
	}
	rows, err := p.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, internal("load drawers", err)
	}
	defer rows.Close()
	for rows.Next() {
		d, err := scanDrawer(rows)
		if err != nil {
			return nil, internal("load drawers", err)
		}
		out[d.rid] = d
	}
	return out, internal("load drawers", rows.Err())
}

func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?,", n-1) + "?"
}
