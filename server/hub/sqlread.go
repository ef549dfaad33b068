package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loci-mem/loci/palace"
)

// The palace API has no grouped counts and no reader of the change log yet,
// so the hub reads those two things itself, read-only, through the palace's
// SQLite handle. The columns used (drawers.ts, drawers.status and the
// events table) are those of palace/migrations/0001_core.sql. Should the
// palace grow such readers, these functions become thin calls to them.

// bucketWidth is the granularity of the activity counts: a quarter hour
// divides every real time-zone offset, so buckets fall into local days
// exactly in any zone.
const bucketWidth = 15 * time.Minute

// countBuckets returns how many active drawers of p have their event time
// (Drawer.Timestamp) in each quarter-hour bucket, keyed by the bucket's
// start in Unix milliseconds.
func countBuckets(ctx context.Context, p *palace.Palace) (map[int64]int64, error) {
	w := bucketWidth.Milliseconds()
	rows, err := p.DB().QueryContext(ctx, `SELECT ts / ?, count(*) FROM drawers
		WHERE status = ? GROUP BY 1`, w, palace.StatusActive)
	if err != nil {
		return nil, fmt.Errorf("count drawers of %q by time: %w", p.Name(), err)
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var b, n int64
		if err := rows.Scan(&b, &n); err != nil {
			return nil, fmt.Errorf("count drawers of %q by time: %w", p.Name(), err)
		}
		out[b*w] += n
	}
	return out, rows.Err()
}

// change is one row of a palace's change log, as the live stream sends it.
type change struct {
	Palace   string          `json:"palace"`
	Seq      int64           `json:"seq"`
	At       time.Time       `json:"at"`
	Type     string          `json:"type"`
	DrawerID string          `json:"drawer_id,omitempty"`
	Detail   json.RawMessage `json:"detail,omitempty"`
	Drawer   *drawerJSON     `json:"drawer,omitempty"`
}

// changesAfter returns up to limit change-log rows of p with seq > after,
// oldest first.
func changesAfter(ctx context.Context, p *palace.Palace, after int64, limit int) ([]change, error) {
	rows, err := p.DB().QueryContext(ctx, `SELECT seq, at, type, drawer_id, detail FROM events
		WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read change log of %q: %w", p.Name(), err)
	}
	defer rows.Close()
	var out []change
	for rows.Next() {
		var c change
		var at int64
		var detail string
		if err := rows.Scan(&c.Seq, &at, &c.Type, &c.DrawerID, &detail); err != nil {
			return nil, fmt.Errorf("read change log of %q: %w", p.Name(), err)
		}
		c.Palace, c.At = p.Name(), time.UnixMilli(at).UTC()
		if json.Valid([]byte(detail)) && detail != "{}" {
			c.Detail = json.RawMessage(detail)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// lastSeq is the newest change-log position of p (0 for an empty log).
func lastSeq(ctx context.Context, p *palace.Palace) (int64, error) {
	var n int64
	err := p.DB().QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read change log of %q: %w", p.Name(), err)
	}
	return n, nil
}
