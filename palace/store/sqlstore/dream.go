package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

// dream reads and writes the dreamer's tables: dream_lock, dream_runs,
// dream_changes, dream_decay and closets.
type dream struct{ c conn }

func (d dream) Lease(ctx context.Context) (store.Lease, bool, error) {
	var l store.Lease
	var acq, exp int64
	err := d.c.QueryRowContext(ctx, `SELECT owner, acquired_at, expires_at FROM dream_lock WHERE id = 1`).Scan(&l.Owner, &acq, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Lease{}, false, nil
	}
	if err != nil {
		return store.Lease{}, false, fmt.Errorf("read dream lease: %w", err)
	}
	l.AcquiredAt, l.ExpiresAt = msTime(acq), msTime(exp)
	return l, true, nil
}

func (d dream) PutLease(ctx context.Context, l store.Lease) error {
	_, err := d.c.ExecContext(ctx, `INSERT INTO dream_lock(id, owner, acquired_at, expires_at) VALUES (1, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at,
		expires_at = excluded.expires_at`, l.Owner, l.AcquiredAt.UnixMilli(), l.ExpiresAt.UnixMilli())
	return err
}

func (d dream) RenewLease(ctx context.Context, owner string, until time.Time) (bool, error) {
	res, err := d.c.ExecContext(ctx, `UPDATE dream_lock SET expires_at = ? WHERE id = 1 AND owner = ?`, until.UnixMilli(), owner)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

func (d dream) ReleaseLease(ctx context.Context, owner string) error {
	_, err := d.c.ExecContext(ctx, `DELETE FROM dream_lock WHERE id = 1 AND owner = ?`, owner)
	return err
}

const dreamRunCols = `id, owner, trigger, passes, status, started_at, finished_at, seq_before, seq_after,
	changes, report, undone_at`

func scanDreamRun(s scanner) (store.DreamRun, error) {
	var r store.DreamRun
	var passes, report string
	var started, finished, undone int64
	err := s.Scan(&r.ID, &r.Owner, &r.Trigger, &passes, &r.Status, &started, &finished, &r.SeqBefore,
		&r.SeqAfter, &r.Changes, &report, &undone)
	if err != nil {
		return r, err
	}
	_ = json.Unmarshal([]byte(passes), &r.Passes)
	if r.Passes == nil {
		r.Passes = []string{}
	}
	r.Report = json.RawMessage(report)
	r.StartedAt = msTime(started)
	if finished > 0 {
		r.FinishedAt = msTime(finished)
	}
	if undone > 0 {
		r.UndoneAt = msTime(undone)
	}
	return r, nil
}

func (d dream) Runs(ctx context.Context, limit int) ([]store.DreamRun, error) {
	out, err := queryAll(ctx, d.c, scanDreamRun, `SELECT `+dreamRunCols+` FROM dream_runs
		ORDER BY started_at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list dream runs: %w", err)
	}
	return out, nil
}

func (d dream) Run(ctx context.Context, id string) (store.DreamRun, error) {
	r, err := scanDreamRun(d.c.QueryRowContext(ctx, `SELECT `+dreamRunCols+` FROM dream_runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, notFound("dream run")
	}
	if err != nil {
		return r, fmt.Errorf("get dream run: %w", err)
	}
	return r, nil
}

func (d dream) Changes(ctx context.Context, runID string) ([]store.DreamChange, error) {
	rows, err := d.c.QueryContext(ctx, `SELECT id, run_id, pass, op, drawer_id, before, after, at, undone
		FROM dream_changes WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, fmt.Errorf("list dream changes: %w", err)
	}
	defer rows.Close()
	out := []store.DreamChange{}
	for rows.Next() {
		var c store.DreamChange
		var before, after string
		var at int64
		var undone int
		if err := rows.Scan(&c.ID, &c.RunID, &c.Pass, &c.Op, &c.DrawerID, &before, &after, &at, &undone); err != nil {
			return nil, fmt.Errorf("list dream changes: %w", err)
		}
		_ = json.Unmarshal([]byte(before), &c.Before)
		_ = json.Unmarshal([]byte(after), &c.After)
		c.At, c.Undone = msTime(at), undone != 0
		out = append(out, c)
	}
	return out, rows.Err()
}

func (d dream) Reverted(ctx context.Context, op string) (map[string]bool, error) {
	rows, err := d.c.QueryContext(ctx, `SELECT DISTINCT c.drawer_id FROM dream_changes c
		JOIN drawers d ON d.id = c.drawer_id
		WHERE c.op = ? AND `+d.c.d.JSONKey("c.after")+` IS NOT NULL
		AND d.status <> `+d.c.d.JSONKey("c.after"), op, d.c.d.JSONKeyArg("status"), d.c.d.JSONKeyArg("status"))
	if err != nil {
		return nil, fmt.Errorf("read dream changes: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("read dream changes: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}

func (d dream) DecayBases(ctx context.Context) (map[string]store.DecayBase, error) {
	rows, err := d.c.QueryContext(ctx, `SELECT d.id, k.base, k.applied FROM dream_decay k JOIN drawers d ON d.rid = k.rid`)
	if err != nil {
		return nil, fmt.Errorf("read decay state: %w", err)
	}
	defer rows.Close()
	out := map[string]store.DecayBase{}
	for rows.Next() {
		var id string
		var b store.DecayBase
		if err := rows.Scan(&id, &b.Base, &b.Applied); err != nil {
			return nil, fmt.Errorf("read decay state: %w", err)
		}
		out[id] = b
	}
	return out, rows.Err()
}

func (d dream) Closets(ctx context.Context) ([]store.Closet, error) {
	rows, err := d.c.QueryContext(ctx, `SELECT room, keywords, summary, drawers, refreshed_at, seq FROM closets ORDER BY room`)
	if err != nil {
		return nil, fmt.Errorf("read closets: %w", err)
	}
	defer rows.Close()
	out := []store.Closet{}
	for rows.Next() {
		var c store.Closet
		var kw string
		var at int64
		if err := rows.Scan(&c.Room, &kw, &c.Summary, &c.Drawers, &at, &c.Seq); err != nil {
			return nil, fmt.Errorf("read closets: %w", err)
		}
		_ = json.Unmarshal([]byte(kw), &c.Keywords)
		if c.Keywords == nil {
			c.Keywords = []string{}
		}
		c.RefreshedAt = msTime(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

func (d dream) InsertRun(ctx context.Context, r store.DreamRun) error {
	passes := jsonList(r.Passes)
	_, err := d.c.ExecContext(ctx, `INSERT INTO dream_runs(id, owner, trigger, passes, status, started_at, seq_before)
		VALUES (?,?,?,?,?,?,?)`, r.ID, r.Owner, r.Trigger, passes, r.Status, r.StartedAt.UnixMilli(), r.SeqBefore)
	if err != nil {
		return d.c.conflict("record dream run", err)
	}
	return nil
}

func (d dream) FinishRun(ctx context.Context, id, status string, finished time.Time, report []byte) error {
	_, err := d.c.ExecContext(ctx, `UPDATE dream_runs SET status = ?, finished_at = ?, report = ?,
		seq_after = (SELECT COALESCE(MAX(seq), 0) FROM events),
		changes = (SELECT count(*) FROM dream_changes WHERE run_id = ?)
		WHERE id = ?`, status, finished.UnixMilli(), detailText(report), id, id)
	return err
}

func (d dream) CloseAbandoned(ctx context.Context, owner, status string, at time.Time) (int, error) {
	res, err := d.c.ExecContext(ctx, `UPDATE dream_runs SET status = ?, finished_at = ?,
		changes = (SELECT count(*) FROM dream_changes WHERE run_id = dream_runs.id)
		WHERE status = 'running' AND owner <> ?`, status, at.UnixMilli(), owner)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

func (d dream) MarkRunUndone(ctx context.Context, id string, at time.Time) error {
	_, err := d.c.ExecContext(ctx, `UPDATE dream_runs SET undone_at = ? WHERE id = ?`, at.UnixMilli(), id)
	return err
}

func (d dream) InsertChange(ctx context.Context, c store.DreamChange) error {
	_, err := d.c.ExecContext(ctx, `INSERT INTO dream_changes(run_id, pass, op, drawer_id, before, after, at) VALUES (?,?,?,?,?,?,?)`,
		c.RunID, c.Pass, c.Op, c.DrawerID, jsonObject(c.Before), jsonObject(c.After), c.At.UnixMilli())
	return err
}

func (d dream) MarkChangeUndone(ctx context.Context, id int64) error {
	_, err := d.c.ExecContext(ctx, `UPDATE dream_changes SET undone = 1 WHERE id = ?`, id)
	return err
}

func (d dream) PutDecay(ctx context.Context, rid int64, b store.DecayBase) error {
	_, err := d.c.ExecContext(ctx, `INSERT INTO dream_decay(rid, base, applied) VALUES (?,?,?)
		ON CONFLICT(rid) DO UPDATE SET base = excluded.base, applied = excluded.applied`, rid, b.Base, b.Applied)
	return err
}

func (d dream) SetDecayApplied(ctx context.Context, rid int64, applied float64) error {
	_, err := d.c.ExecContext(ctx, `UPDATE dream_decay SET applied = ? WHERE rid = ?`, applied, rid)
	return err
}

func (d dream) ReplaceClosets(ctx context.Context, cs []store.Closet) error {
	if _, err := d.c.ExecContext(ctx, `DELETE FROM closets`); err != nil {
		return fmt.Errorf("replace closets: %w", err)
	}
	for _, c := range cs {
		if _, err := d.c.ExecContext(ctx, `INSERT INTO closets(room, keywords, summary, drawers, refreshed_at, seq)
			VALUES (?,?,?,?,?,?)`, c.Room, jsonList(c.Keywords), c.Summary, c.Drawers, c.RefreshedAt.UnixMilli(), c.Seq); err != nil {
			return fmt.Errorf("replace closets: %w", err)
		}
	}
	return nil
}
