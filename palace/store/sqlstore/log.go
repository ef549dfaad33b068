package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/loci-mem/loci/palace/store"
)

// eventLog reads and appends to the events table, the change log.
type eventLog struct{ c conn }

func detailText(b []byte) string {
	if len(b) == 0 {
		return "{}"
	}
	return string(b)
}

func (l eventLog) Append(ctx context.Context, e store.Event) (int64, error) {
	var seq int64
	err := l.c.QueryRowContext(ctx, `INSERT INTO events(at, type, drawer_id, detail) VALUES (?,?,?,?) RETURNING seq`,
		e.At.UnixMilli(), e.Type, e.DrawerID, detailText(e.Detail)).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("log event: %w", err)
	}
	return seq, nil
}

func (l eventLog) LastSeq(ctx context.Context) (int64, error) {
	var n int64
	err := l.c.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&n)
	return n, err
}

func (l eventLog) events(ctx context.Context, q string, args ...any) ([]store.Event, error) {
	rows, err := l.c.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	defer rows.Close()
	var out []store.Event
	for rows.Next() {
		var e store.Event
		var at int64
		var detail string
		if err := rows.Scan(&e.Seq, &at, &e.Type, &e.DrawerID, &detail); err != nil {
			return nil, fmt.Errorf("read change log: %w", err)
		}
		e.At, e.Detail = msTime(at), []byte(detail)
		out = append(out, e)
	}
	return out, rows.Err()
}

func (l eventLog) After(ctx context.Context, after int64, limit int) ([]store.Event, error) {
	return l.events(ctx, `SELECT seq, at, type, drawer_id, detail FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit)
}

func (l eventLog) ForDrawer(ctx context.Context, drawerID string) ([]store.Event, error) {
	return l.events(ctx, `SELECT seq, at, type, drawer_id, detail FROM events WHERE drawer_id = ? ORDER BY seq`, drawerID)
}

func (l eventLog) CountForDrawerAfter(ctx context.Context, drawerID, typ string, after int64) (int, error) {
	var n int
	err := l.c.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE drawer_id = ? AND seq > ? AND type = ?`,
		drawerID, after, typ).Scan(&n)
	return n, err
}

func (l eventLog) LastActivity(ctx context.Context, skipTypePrefixes, skipDetailKeys []string) (store.Event, bool, error) {
	var conds []string
	var args []any
	for _, p := range skipTypePrefixes {
		conds = append(conds, `substr(type, 1, ?) <> ?`)
		args = append(args, len(p), p)
	}
	for _, k := range skipDetailKeys {
		conds = append(conds, l.c.d.JSONKey("detail")+` IS NULL`)
		args = append(args, l.c.d.JSONKeyArg(k))
	}
	where := "1=1"
	if len(conds) > 0 {
		where = strings.Join(conds, " AND ")
	}
	evs, err := l.events(ctx, `SELECT seq, at, type, drawer_id, detail FROM events WHERE `+where+
		` ORDER BY seq DESC LIMIT 1`, args...)
	if err != nil || len(evs) == 0 {
		return store.Event{}, false, err
	}
	return evs[0], true, nil
}

func (l eventLog) CountByDetail(ctx context.Context, typ, key string) (map[string]int64, error) {
	out := map[string]int64{}
	err := countInto(ctx, l.c, `SELECT COALESCE(`+l.c.d.JSONKey("detail")+`, ''), count(*) FROM events WHERE type = ? GROUP BY 1`,
		out, l.c.d.JSONKeyArg(key), typ)
	return out, err
}

// meta reads and writes palace_meta.
type meta struct{ c conn }

func (m meta) Get(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := m.c.QueryRowContext(ctx, `SELECT value FROM palace_meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read palace metadata: %w", err)
	}
	return v, true, nil
}

func (m meta) All(ctx context.Context) (map[string]string, error) {
	rows, err := m.c.QueryContext(ctx, `SELECT key, value FROM palace_meta ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("read palace metadata: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read palace metadata: %w", err)
		}
		out[k] = v
	}
	return out, rows.Err()
}

func (m meta) Set(ctx context.Context, key, value string) error {
	_, err := m.c.ExecContext(ctx, `INSERT INTO palace_meta(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

func (m meta) SetDefault(ctx context.Context, key, value string) error {
	_, err := m.c.ExecContext(ctx, `INSERT INTO palace_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`, key, value)
	return err
}
