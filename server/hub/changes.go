package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loci-mem/loci/palace"
)

// bucketWidth is the granularity of the activity counts: a quarter hour
// divides every real time-zone offset, so buckets fall into local days
// exactly in any zone.
const bucketWidth = 15 * time.Minute

// countBuckets returns how many active drawers of p have their event time
// (Drawer.Timestamp) in each quarter-hour bucket, keyed by the bucket's
// start in Unix milliseconds.
func countBuckets(ctx context.Context, p *palace.Palace) (map[int64]int64, error) {
	out, err := p.Activity(ctx, bucketWidth)
	if err != nil {
		return nil, fmt.Errorf("count drawers of %q by time: %w", p.Name(), err)
	}
	return out, nil
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
	evs, err := p.Changes(ctx, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read change log of %q: %w", p.Name(), err)
	}
	out := make([]change, 0, len(evs))
	for _, e := range evs {
		c := change{Palace: p.Name(), Seq: e.Seq, At: e.At, Type: e.Type, DrawerID: e.DrawerID}
		if json.Valid(e.Detail) && string(e.Detail) != "{}" {
			c.Detail = json.RawMessage(e.Detail)
		}
		out = append(out, c)
	}
	return out, nil
}

// lastSeq is the newest change-log position of p (0 for an empty log).
func lastSeq(ctx context.Context, p *palace.Palace) (int64, error) {
	n, err := p.LastSeq(ctx)
	if err != nil {
		return 0, fmt.Errorf("read change log of %q: %w", p.Name(), err)
	}
	return n, nil
}
