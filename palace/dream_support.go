package palace

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/loci-mem/loci/palace/index"
)

// This file gives the dreamer (and tools like it) read access to what its
// passes plan over: drawers with their vectors, the vector index's health,
// decay bases and the palace's last activity. Writes go through DreamTx.

// ScanOptions selects drawers for Scan.
type ScanOptions struct {
	Filter Filter
	// Vectors asks for each drawer's vector when it was made by the
	// palace's current embedder (nil otherwise).
	Vectors bool
	// PageSize is how many rows are read per query; default 1000.
	PageSize int
}

// Scan calls fn for every drawer matching the filter, in row order, one
// page at a time so memory stays flat on large palaces. An error from fn
// stops the scan and is returned. Pages are separate reads: a drawer
// written during the scan may or may not be seen.
func (p *Palace) Scan(ctx context.Context, o ScanOptions, fn func(d *Drawer, vec []float32) error) error {
	where, args, err := o.Filter.compile()
	if err != nil {
		return err
	}
	if o.PageSize <= 0 {
		o.PageSize = 1000
	}
	cols := drawerCols
	if o.Vectors {
		cols += `, d.vector`
	}
	model, dim := p.emb.ID(), p.emb.Dim()
	var after int64
	for {
		// NOT INDEXED keeps SQLite on the rowid range: with the status
		// index it would sort every matching row for every page.
		rows, err := p.db.QueryContext(ctx, `SELECT `+cols+` FROM drawers d NOT INDEXED WHERE d.rid > ? AND `+where+
			` ORDER BY d.rid LIMIT ?`, append(append([]any{after}, args...), o.PageSize)...)
		if err != nil {
			return internal("scan drawers", err)
		}
		n := 0
		var page []*Drawer
		var vecs [][]float32
		for rows.Next() {
			var blob []byte
			var s scanner = rows
			if o.Vectors {
				s = withExtra{rows, []any{&blob}}
			}
			d, err := scanDrawer(s)
			if err != nil {
				rows.Close()
				return internal("scan drawers", err)
			}
			var vec []float32
			if o.Vectors && d.Model == model && len(blob) == 4*dim {
				vec = decodeVector(blob)
			}
			page = append(page, d)
			vecs = append(vecs, vec)
			after = d.rid
			n++
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return internal("scan drawers", err)
		}
		for i, d := range page {
			if err := fn(d, vecs[i]); err != nil {
				return err
			}
		}
		if n < o.PageSize {
			return nil
		}
	}
}

// withExtra scans a row's drawer columns followed by extra columns.
type withExtra struct {
	s     scanner
	extra []any
}

func (w withExtra) Scan(dest ...any) error { return w.s.Scan(append(dest, w.extra...)...) }

// VectorsByID returns the stored vectors of the given drawers that were
// made by the palace's current embedder, keyed by drawer id.
func (p *Palace) VectorsByID(ctx context.Context, ids []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(ids))
	model, dim := p.emb.ID(), p.emb.Dim()
	for lo := 0; lo < len(ids); lo += 500 {
		chunk := ids[lo:min(lo+500, len(ids))]
		args := append([]any{model}, toAny(chunk)...)
		rows, err := p.db.QueryContext(ctx, `SELECT id, vector FROM drawers WHERE model = ? AND id IN (`+
			placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, internal("read vectors", err)
		}
		for rows.Next() {
			var id string
			var blob []byte
			if err := rows.Scan(&id, &blob); err != nil {
				rows.Close()
				return nil, internal("read vectors", err)
			}
			if len(blob) == 4*dim {
				out[id] = decodeVector(blob)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, internal("read vectors", err)
		}
	}
	return out, nil
}

// IndexHealth describes the vector index for maintenance decisions.
type IndexHealth struct {
	Model string `json:"model"`
	// Live and Tombstones count index entries; Tombstones is -1 when the
	// index does not report them (an exact index deletes outright).
	Live       int `json:"live"`
	Tombstones int `json:"tombstones"`
	// TombstoneRatio is Tombstones / (Live + Tombstones), 0 when unknown.
	TombstoneRatio float64 `json:"tombstone_ratio"`
	// NeedsRebuild is the index's own verdict (tombstones or a degraded
	// graph), when it gives one.
	NeedsRebuild bool `json:"needs_rebuild"`
	// StaleVectors counts drawers (not deleted) with no vector or one made
	// by another embedder: Reembed's work.
	StaleVectors int64 `json:"stale_vectors"`
}

// IndexHealth brings the vector index up to date and reports its health.
func (p *Palace) IndexHealth(ctx context.Context) (IndexHealth, error) {
	h := IndexHealth{Model: p.emb.ID(), Tombstones: -1}
	idx, err := p.vec.sync(ctx)
	if err != nil {
		return h, err
	}
	h.Live = idx.Len()
	switch x := any(idx).(type) {
	case interface{ Stats() index.HNSWStats }:
		st := x.Stats()
		h.Live, h.Tombstones = st.Live, st.Tombstones
	case interface{ Tombstones() int }:
		h.Tombstones = x.Tombstones()
	}
	if r, ok := any(idx).(interface{ NeedsRebuild() bool }); ok {
		h.NeedsRebuild = r.NeedsRebuild()
	}
	if h.Tombstones > 0 {
		h.TombstoneRatio = float64(h.Tombstones) / float64(h.Live+h.Tombstones)
	}
	err = p.db.QueryRowContext(ctx, `SELECT count(*) FROM drawers WHERE status <> 'deleted'
		AND (vector IS NULL OR model <> ? OR length(vector) <> ?)`, p.emb.ID(), 4*p.emb.Dim()).Scan(&h.StaleVectors)
	return h, internal("index health", err)
}

// DecayBase is the decay state of one drawer.
type DecayBase struct {
	Base    float64 // the importance decay starts from
	Applied float64 // the importance the dreamer last wrote
}

// DecayBases returns the decay state of every drawer the dreamer has
// decayed, keyed by drawer id.
func (p *Palace) DecayBases(ctx context.Context) (map[string]DecayBase, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT d.id, k.base, k.applied FROM dream_decay k JOIN drawers d ON d.rid = k.rid`)
	if err != nil {
		return nil, internal("read decay state", err)
	}
	defer rows.Close()
	out := map[string]DecayBase{}
	for rows.Next() {
		var id string
		var b DecayBase
		if err := rows.Scan(&id, &b.Base, &b.Applied); err != nil {
			return nil, internal("read decay state", err)
		}
		out[id] = b
	}
	return out, internal("read decay state", rows.Err())
}

// DreamReverted returns the drawers a dream change of op once moved to a
// status they no longer have: someone (undo, the review queue, a person)
// reverted the dreamer's decision. The dreamer does not make it again.
func (p *Palace) DreamReverted(ctx context.Context, op string) (map[string]bool, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT DISTINCT c.drawer_id FROM dream_changes c
		JOIN drawers d ON d.id = c.drawer_id
		WHERE c.op = ? AND json_extract(c.after, '$.status') IS NOT NULL
		AND d.status <> json_extract(c.after, '$.status')`, op)
	if err != nil {
		return nil, internal("read dream changes", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, internal("read dream changes", err)
		}
		out[id] = true
	}
	return out, internal("read dream changes", rows.Err())
}

// LastActivity returns the seq and time of the newest change-log event
// that the dreamer (or Reembed) did not write (0 and the zero time for a palace that
// has none). The dreamer's schedule measures idleness from it.
func (p *Palace) LastActivity(ctx context.Context) (int64, time.Time, error) {
	var seq, at int64
	err := p.db.QueryRowContext(ctx, `SELECT seq, at FROM events
		WHERE type NOT LIKE 'dream.%' AND json_extract(detail, '$.dream_run') IS NULL
		AND json_extract(detail, '$.dream_undo') IS NULL AND json_extract(detail, '$.reembed') IS NULL
		ORDER BY seq DESC LIMIT 1`).Scan(&seq, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, nil
	}
	if err != nil {
		return 0, time.Time{}, internal("last activity", err)
	}
	return seq, msTime(at), nil
}

// CountByStatus counts drawers per status.
func (p *Palace) CountByStatus(ctx context.Context) (map[string]int64, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT status, count(*) FROM drawers GROUP BY status`)
	if err != nil {
		return nil, internal("count drawers", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var s string
		var n int64
		if err := rows.Scan(&s, &n); err != nil {
			return nil, internal("count drawers", err)
		}
		out[s] = n
	}
	return out, internal("count drawers", rows.Err())
}

// StaleHorizon is how long a fact stays fresh without re-confirmation
// (LOCI_FACT_HORIZON or the config file; 0 means never stale).
func (p *Palace) StaleHorizon() (time.Duration, error) {
	s, err := p.reg.Settings()
	return s.FactHorizon, err
}
