package palace

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// Statuses of a dream run.
const (
	DreamRunning   = "running"
	DreamDone      = "done"
	DreamPartial   = "partial" // the time budget ran out before every pass finished
	DreamCancelled = "cancelled"
	DreamFailed    = "failed"
)

// DreamRun is one recorded run of dreamer passes over a palace.
type DreamRun struct {
	ID         string          `json:"id"`
	Owner      string          `json:"owner"`
	Trigger    string          `json:"trigger"`
	Passes     []string        `json:"passes"`
	Status     string          `json:"status"`
	StartedAt  time.Time       `json:"started_at"`
	FinishedAt time.Time       `json:"finished_at,omitzero"`
	SeqBefore  int64           `json:"seq_before"`
	SeqAfter   int64           `json:"seq_after"`
	Changes    int             `json:"changes"`
	Report     json.RawMessage `json:"report,omitempty"`
	UndoneAt   time.Time       `json:"undone_at,omitzero"`
}

// DreamChange is one recorded drawer change of a run.
type DreamChange struct {
	ID       int64          `json:"id"`
	RunID    string         `json:"run_id"`
	Pass     string         `json:"pass"`
	Op       string         `json:"op"`
	DrawerID string         `json:"drawer_id"`
	Before   map[string]any `json:"before"`
	After    map[string]any `json:"after"`
	At       time.Time      `json:"at"`
	Undone   bool           `json:"undone"`
}

// NewDreamRunID makes a run id: "dr_" + wall time (UTC, to the second) + 6
// random hex digits, so ids sort by start time.
func NewDreamRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "dr_" + now.UTC().Format("20060102T150405") + "_" + hex.EncodeToString(b[:])
}

// BeginDreamRun records the start of a run (status running) and fills in
// SeqBefore. started is wall-clock time.
func (p *Palace) BeginDreamRun(ctx context.Context, r *DreamRun) error {
	if r.ID == "" || r.Owner == "" {
		return Invalidf("a dream run needs an id and an owner")
	}
	if r.Status == "" {
		r.Status = DreamRunning
	}
	if err := p.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&r.SeqBefore); err != nil {
		return internal("begin dream run", err)
	}
	passes, _ := json.Marshal(r.Passes)
	if r.Passes == nil {
		passes = []byte("[]")
	}
	_, err := p.db.ExecContext(ctx, `INSERT INTO dream_runs(id, owner, trigger, passes, status, started_at, seq_before)
		VALUES (?,?,?,?,?,?,?)`, r.ID, r.Owner, r.Trigger, string(passes), r.Status, r.StartedAt.UnixMilli(), r.SeqBefore)
	if isUniqueViolation(err) {
		return Conflictf("dream run %q already exists", r.ID)
	}
	return internal("begin dream run", err)
}

// FinishDreamRun records a run's end: status, report and change count, and
// the change-log high-water mark now.
func (p *Palace) FinishDreamRun(ctx context.Context, id, status string, finished time.Time, report any) error {
	rep, err := json.Marshal(report)
	if err != nil || report == nil {
		rep = []byte("{}")
	}
	_, err = p.db.ExecContext(ctx, `UPDATE dream_runs SET status = ?, finished_at = ?, report = ?,
		seq_after = (SELECT COALESCE(MAX(seq), 0) FROM events),
		changes = (SELECT count(*) FROM dream_changes WHERE run_id = ?)
		WHERE id = ?`, status, finished.UnixMilli(), string(rep), id, id)
	return internal("finish dream run", err)
}

const dreamRunCols = `id, owner, trigger, passes, status, started_at, finished_at, seq_before, seq_after,
	changes, report, undone_at`

func scanDreamRun(s scanner) (DreamRun, error) {
	var r DreamRun
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

// DreamRuns lists recorded runs, newest first, at most limit (default 20).
func (p *Palace) DreamRuns(ctx context.Context, limit int) ([]DreamRun, error) {
	if limit <= 0 {
		limit = 20
	}
	if limit > 1000 {
		return nil, Invalidf("limit must be at most 1000, got %d", limit)
	}
	rows, err := p.db.QueryContext(ctx, `SELECT `+dreamRunCols+` FROM dream_runs
		ORDER BY started_at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, internal("list dream runs", err)
	}
	defer rows.Close()
	out := []DreamRun{}
	for rows.Next() {
		r, err := scanDreamRun(rows)
		if err != nil {
			return nil, internal("list dream runs", err)
		}
		out = append(out, r)
	}
	return out, internal("list dream runs", rows.Err())
}

// GetDreamRun returns one run; CodeNotFound for an unknown id.
func (p *Palace) GetDreamRun(ctx context.Context, id string) (DreamRun, error) {
	r, err := scanDreamRun(p.db.QueryRowContext(ctx, `SELECT `+dreamRunCols+` FROM dream_runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, NotFoundf("dream run %q not found in palace %q", truncate(id, 80), p.name)
	}
	return r, internal("get dream run", err)
}

// LastDreamRun returns the newest run that finished (any status but
// running), and whether there is one.
func (p *Palace) LastDreamRun(ctx context.Context) (DreamRun, bool, error) {
	r, err := scanDreamRun(p.db.QueryRowContext(ctx, `SELECT `+dreamRunCols+` FROM dream_runs
		WHERE status <> 'running' ORDER BY started_at DESC, id DESC LIMIT 1`))
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, internal("last dream run", err)
}

// DreamChanges lists the changes a run recorded, in the order made.
func (p *Palace) DreamChanges(ctx context.Context, runID string) ([]DreamChange, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT id, run_id, pass, op, drawer_id, before, after, at, undone
		FROM dream_changes WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, internal("list dream changes", err)
	}
	defer rows.Close()
	out := []DreamChange{}
	for rows.Next() {
		var c DreamChange
		var before, after string
		var at int64
		var undone int
		if err := rows.Scan(&c.ID, &c.RunID, &c.Pass, &c.Op, &c.DrawerID, &before, &after, &at, &undone); err != nil {
			return nil, internal("list dream changes", err)
		}
		_ = json.Unmarshal([]byte(before), &c.Before)
		_ = json.Unmarshal([]byte(after), &c.After)
		c.At, c.Undone = msTime(at), undone != 0
		out = append(out, c)
	}
	return out, internal("list dream changes", rows.Err())
}

// CloseAbandonedDreamRuns marks runs still "running" under another owner
// as cancelled, with the number of changes they did commit. Call it
// holding the dreamer lock: no other run can then be alive, so such a row
// is what a killed process left behind.
func (p *Palace) CloseAbandonedDreamRuns(ctx context.Context, owner string, at time.Time) (int, error) {
	res, err := p.db.ExecContext(ctx, `UPDATE dream_runs SET status = ?, finished_at = ?,
		changes = (SELECT count(*) FROM dream_changes WHERE run_id = dream_runs.id)
		WHERE status = ? AND owner <> ?`, DreamCancelled, at.UnixMilli(), DreamRunning, owner)
	if err != nil {
		return 0, internal("close abandoned dream runs", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
