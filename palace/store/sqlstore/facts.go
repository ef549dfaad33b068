package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

// facts reads and writes fact_ids (AUTOINCREMENT: a number is never handed
// out twice, even after its row is gone). Undo tokens (review_undo) are
// read and written through drawers.
type facts struct{ c conn }

func (f facts) DrawerOf(ctx context.Context, n int64) (string, bool, error) {
	var id string
	err := f.c.QueryRowContext(ctx, `SELECT drawer_id FROM fact_ids WHERE n = ?`, n).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read fact number: %w", err)
	}
	return id, true, nil
}

func (f facts) Numbers(ctx context.Context) ([]store.FactNumber, error) {
	rows, err := f.c.QueryContext(ctx, `SELECT n, drawer_id FROM fact_ids ORDER BY n`)
	if err != nil {
		return nil, fmt.Errorf("read fact numbers: %w", err)
	}
	defer rows.Close()
	var out []store.FactNumber
	for rows.Next() {
		var n store.FactNumber
		if err := rows.Scan(&n.N, &n.DrawerID); err != nil {
			return nil, fmt.Errorf("read fact numbers: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (f facts) LastNumber(ctx context.Context) (int64, error) {
	return f.c.d.LastKey(ctx, f.c.q, "fact_ids", "n")
}

func (r drawers) Undo(ctx context.Context, token string) (store.Undo, error) {
	var u store.Undo
	var created, used int64
	err := r.c.QueryRowContext(ctx, `SELECT token, action, drawer_id, prev_status, prev_superseded_by,
		new_status, seq, created_at, used_at FROM review_undo WHERE token = ?`, token).Scan(
		&u.Token, &u.Action, &u.DrawerID, &u.PrevStatus, &u.PrevSupersededBy, &u.NewStatus, &u.Seq, &created, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return u, notFound("undo token")
	}
	if err != nil {
		return u, fmt.Errorf("read undo token: %w", err)
	}
	u.CreatedAt = msTime(created)
	if used > 0 {
		u.UsedAt = msTime(used)
	}
	return u, nil
}

func (f facts) Allocate(ctx context.Context, drawerID string) (int64, error) {
	var n int64
	err := f.c.QueryRowContext(ctx, `INSERT INTO fact_ids(drawer_id) VALUES (?) RETURNING n`, drawerID).Scan(&n)
	if err != nil {
		return 0, f.c.conflict("allocate fact number", err)
	}
	return n, nil
}

func (f facts) Assign(ctx context.Context, n int64, drawerID string) error {
	if _, err := f.c.ExecContext(ctx, `INSERT INTO fact_ids(n, drawer_id) VALUES (?, ?)`, n, drawerID); err != nil {
		return f.c.conflict(fmt.Sprintf("assign fact number %d", n), err)
	}
	// SQLite's AUTOINCREMENT counts an explicit number by itself; a
	// PostgreSQL identity does not.
	return f.c.d.RaiseKey(ctx, f.c.q, "fact_ids", "n", n)
}

func (f facts) RaiseCounter(ctx context.Context, n int64) error {
	return f.c.d.RaiseKey(ctx, f.c.q, "fact_ids", "n", n)
}

func (r drawers) PutUndo(ctx context.Context, u store.Undo) error {
	_, err := r.c.ExecContext(ctx, `INSERT INTO review_undo(token, action, drawer_id, prev_status,
		prev_superseded_by, new_status, seq, created_at) VALUES (?,?,?,?,?,?,?,?)`,
		u.Token, u.Action, u.DrawerID, u.PrevStatus, u.PrevSupersededBy, u.NewStatus, u.Seq, u.CreatedAt.UnixMilli())
	if err != nil {
		return r.c.conflict("store undo token", err)
	}
	return nil
}

func (r drawers) UseUndo(ctx context.Context, token string, at time.Time) (bool, error) {
	res, err := r.c.ExecContext(ctx, `UPDATE review_undo SET used_at = ? WHERE token = ? AND used_at = 0`, at.UnixMilli(), token)
	if err != nil {
		return false, fmt.Errorf("use undo token: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
