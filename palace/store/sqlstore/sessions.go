package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

// sessions reads and writes session_buffer, session_state and id_counters.
type sessions struct{ c conn }

const bufferedCols = `id, session_id, stretch, role, sender_id, ts, size, message, user_id, agent_id, agent, added_at`

func (s sessions) buffered(ctx context.Context, q string, args ...any) ([]store.Buffered, error) {
	rows, err := s.c.QueryContext(ctx, `SELECT `+bufferedCols+` FROM session_buffer `+q, args...)
	if err != nil {
		return nil, fmt.Errorf("read session buffer: %w", err)
	}
	defer rows.Close()
	out := []store.Buffered{}
	for rows.Next() {
		var b store.Buffered
		var ts, added int64
		var agent int
		var msg string
		if err := rows.Scan(&b.ID, &b.SessionID, &b.Stretch, &b.Role, &b.SenderID, &ts, &b.Size, &msg,
			&b.UserID, &b.AgentID, &agent, &added); err != nil {
			return nil, fmt.Errorf("read session buffer: %w", err)
		}
		b.At, b.AddedAt, b.Agent, b.Message = msTime(ts), msTime(added), agent != 0, []byte(msg)
		out = append(out, b)
	}
	return out, rows.Err()
}

func (s sessions) Messages(ctx context.Context, sessionID string) ([]store.Buffered, error) {
	return s.buffered(ctx, `WHERE session_id = ? ORDER BY stretch, id`, sessionID)
}

func (s sessions) Stretch(ctx context.Context, sessionID string, stretch int64) ([]store.Buffered, error) {
	return s.buffered(ctx, `WHERE session_id = ? AND stretch = ? ORDER BY id`, sessionID, stretch)
}

func (s sessions) OpenStretch(ctx context.Context, sessionID string) (int64, error) {
	var open int64
	err := s.c.QueryRowContext(ctx, `SELECT open_stretch FROM session_state WHERE session_id = ?`, sessionID).Scan(&open)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return open, err
}

func (s sessions) ClosedStretches(ctx context.Context, sessionID string) ([]int64, error) {
	rows, err := s.c.QueryContext(ctx, `SELECT DISTINCT b.stretch FROM session_buffer b
		JOIN session_state s ON s.session_id = b.session_id
		WHERE b.session_id = ? AND b.stretch < s.open_stretch ORDER BY b.stretch`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read session buffer: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("read session buffer: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (s sessions) Counts(ctx context.Context) (map[string]int, error) {
	rows, err := s.c.QueryContext(ctx, `SELECT session_id, count(*) FROM session_buffer GROUP BY session_id`)
	if err != nil {
		return nil, fmt.Errorf("list session buffers: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("list session buffers: %w", err)
		}
		out[id] = n
	}
	return out, rows.Err()
}

func (s sessions) Quiet(ctx context.Context, before time.Time) ([]string, error) {
	rows, err := s.c.QueryContext(ctx, `SELECT session_id FROM session_buffer GROUP BY session_id HAVING max(added_at) < ? ORDER BY session_id`,
		before.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("list quiet sessions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list quiet sessions: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (s sessions) Failures(ctx context.Context) ([]store.SessionFailure, error) {
	rows, err := s.c.QueryContext(ctx, `SELECT session_id, attempts, last_error FROM session_state WHERE attempts > 0 ORDER BY session_id`)
	if err != nil {
		return nil, fmt.Errorf("list failed extractions: %w", err)
	}
	defer rows.Close()
	var out []store.SessionFailure
	for rows.Next() {
		var f store.SessionFailure
		if err := rows.Scan(&f.SessionID, &f.Attempts, &f.LastError); err != nil {
			return nil, fmt.Errorf("list failed extractions: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func (s sessions) Count(ctx context.Context, sessionID string) (int, error) {
	var n int
	err := s.c.QueryRowContext(ctx, `SELECT count(*) FROM session_buffer WHERE session_id = ?`, sessionID).Scan(&n)
	return n, err
}

func (s sessions) Append(ctx context.Context, b store.Buffered) error {
	_, err := s.c.ExecContext(ctx, `INSERT INTO session_buffer (session_id, stretch, role, sender_id, ts,
		size, message, user_id, agent_id, agent, added_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		b.SessionID, b.Stretch, b.Role, b.SenderID, b.At.UnixMilli(), b.Size, string(b.Message),
		b.UserID, b.AgentID, boolInt(b.Agent), b.AddedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("buffer message: %w", err)
	}
	return nil
}

func (s sessions) SetOpenStretch(ctx context.Context, sessionID string, open int64, at time.Time) error {
	_, err := s.c.ExecContext(ctx, `INSERT INTO session_state (session_id, open_stretch, updated_at) VALUES (?,?,?)
		ON CONFLICT(session_id) DO UPDATE SET open_stretch = excluded.open_stretch, updated_at = excluded.updated_at`,
		sessionID, open, at.UnixMilli())
	return err
}

func (s sessions) DeleteStretch(ctx context.Context, sessionID string, stretch int64) (int64, error) {
	res, err := s.c.ExecContext(ctx, `DELETE FROM session_buffer WHERE session_id = ? AND stretch = ?`, sessionID, stretch)
	if err != nil {
		return 0, fmt.Errorf("clear session buffer: %w", err)
	}
	return res.RowsAffected()
}

func (s sessions) NoteFailure(ctx context.Context, sessionID, message string) error {
	_, err := s.c.ExecContext(ctx, `UPDATE session_state SET attempts = attempts + 1, last_error = ? WHERE session_id = ?`,
		message, sessionID)
	return err
}

func (s sessions) ClearFailures(ctx context.Context, sessionID string) error {
	_, err := s.c.ExecContext(ctx, `UPDATE session_state SET attempts = 0, last_error = '' WHERE session_id = ?`, sessionID)
	return err
}

func (s sessions) Lease(ctx context.Context, sessionID, holder string, at, until time.Time) (bool, error) {
	res, err := s.c.ExecContext(ctx, `UPDATE session_state SET lease_holder = ?, lease_until = ?
		WHERE session_id = ? AND (lease_until <= ? OR lease_holder = ?)`,
		holder, until.UnixMilli(), sessionID, at.UnixMilli(), holder)
	if err != nil {
		return false, fmt.Errorf("lease session extraction: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s sessions) Release(ctx context.Context, sessionID, holder string) error {
	_, err := s.c.ExecContext(ctx, `UPDATE session_state SET lease_holder = '', lease_until = 0
		WHERE session_id = ? AND lease_holder = ?`, sessionID, holder)
	if err != nil {
		return fmt.Errorf("release session extraction: %w", err)
	}
	return nil
}

func (s sessions) Reserve(ctx context.Context, prefix string, n int) (int64, error) {
	var last int64
	err := s.c.QueryRowContext(ctx, `INSERT INTO id_counters (prefix, n) VALUES (?, ?)
		ON CONFLICT(prefix) DO UPDATE SET n = id_counters.n + excluded.n RETURNING n`, prefix, n).Scan(&last)
	return last, err
}

func (s sessions) Claim(ctx context.Context, key string, at time.Time, forget time.Duration) (bool, error) {
	if _, err := s.c.ExecContext(ctx, `DELETE FROM request_keys WHERE at < ?`, at.Add(-forget).UnixMilli()); err != nil {
		return false, fmt.Errorf("claim request key: %w", err)
	}
	res, err := s.c.ExecContext(ctx, `INSERT INTO request_keys(key, at) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`, key, at.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("claim request key: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
