package palace

import (
	"context"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

// Readers for work over the whole palace (the dreamer's passes, exports,
// maintenance): drawers with their vectors page by page, the vector
// index's health and the palace's last activity.

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
	f, err := p.normalizeFilter(o.Filter)
	if err != nil {
		return err
	}
	if o.PageSize <= 0 {
		o.PageSize = 1000
	}
	model, dim := p.emb.ID(), p.emb.Dim()
	q := store.ScanQuery{Filter: f, Limit: o.PageSize, Vectors: o.Vectors}
	var fnErr error
	for {
		last, n, err := p.st.Drawers().Scan(ctx, q, func(d *Drawer, v *store.Vector) error {
			var vec []float32
			if v != nil && d.Model == model && len(v.Blob) == 4*dim {
				vec = decodeVector(v.Blob)
			}
			if err := fn(d, vec); err != nil {
				fnErr = err
				return err
			}
			return nil
		})
		if fnErr != nil {
			return fnErr
		}
		if err != nil {
			return storeErr("scan drawers", err)
		}
		if n < o.PageSize {
			return nil
		}
		q.AfterID = last
	}
}

// VectorsByID returns the stored vectors of the given drawers that were
// made by the palace's current embedder, keyed by drawer id.
func (p *Palace) VectorsByID(ctx context.Context, ids []string) (map[string][]float32, error) {
	blobs, err := p.st.Drawers().Vectors(ctx, p.emb.ID(), ids)
	if err != nil {
		return nil, storeErr("read vectors", err)
	}
	out := make(map[string][]float32, len(blobs))
	for id, b := range blobs {
		if len(b) == 4*p.emb.Dim() {
			out[id] = decodeVector(b)
		}
	}
	return out, nil
}

// IndexHealth describes the vector index for maintenance decisions.
type IndexHealth struct {
	Model string `json:"model"`
	// Live counts index entries; Tombstones the rows of removed ones still
	// held (free rows awaiting reuse, or waypoints of the graph).
	Live       int `json:"live"`
	Tombstones int `json:"tombstones"`
	// TombstoneRatio is Tombstones / (Live + Tombstones).
	TombstoneRatio float64 `json:"tombstone_ratio"`
	// Kind is "exact" (every search scans) or "graph" (loci's HNSW over
	// the int8 codes), and GraphNodes the rows the graph holds.
	Kind       string `json:"kind"`
	GraphNodes int    `json:"graph_nodes"`
	// NeedsRebuild is true when over a fifth of the graph's rows are
	// removed ones: searches widen their beam to make up for them, and
	// the dreamer's index pass (or the automatic rebuild past half) drops
	// them.
	NeedsRebuild bool `json:"needs_rebuild"`
	// StaleVectors counts drawers (not deleted) with no vector or one made
	// by another embedder: Reembed's work.
	StaleVectors int64 `json:"stale_vectors"`
	// StalePassages is true while the palace has not recorded the current
	// vector layout (vectorLayout): drawers embedded by an earlier release
	// may hold passage vectors of another window, or vectors that read a
	// text's identifiers or emoji without their words, which Reembed makes
	// again.
	StalePassages bool `json:"stale_passages"`
}

// IndexHealth brings the vector index up to date and reports its health.
func (p *Palace) IndexHealth(ctx context.Context) (IndexHealth, error) {
	h := IndexHealth{Model: p.emb.ID()}
	idx, err := p.vec.sync(ctx)
	if err != nil {
		return h, err
	}
	st := idx.Stats()
	h.Live = st.Live
	if st.Graph > 0 { // without a graph, removed rows are reused
		h.Tombstones = st.Rows - st.Live
	}
	h.Kind, h.GraphNodes = indexKind(idx), st.Graph
	// Past half dead the graph rebuilds itself (index.Flat.Remove); a
	// rebuild by hand only pays earlier than that.
	h.NeedsRebuild = st.Graph > 0 && 5*h.Tombstones > st.Rows
	if h.Tombstones > 0 {
		h.TombstoneRatio = float64(h.Tombstones) / float64(h.Live+h.Tombstones)
	}
	h.StaleVectors, err = p.st.Drawers().CountNeedingVector(ctx, p.emb.ID(), p.emb.Dim())
	if err != nil {
		return h, storeErr("index health", err)
	}
	h.StalePassages, err = p.passagesStale(ctx)
	return h, err
}

// LastActivity returns the seq and time of the newest change-log event
// that the dreamer (or Reembed) did not write (0 and the zero time for a
// palace that has none). The dreamer's schedule measures idleness from it.
func (p *Palace) LastActivity(ctx context.Context) (int64, time.Time, error) {
	e, ok, err := p.st.Log().LastActivity(ctx, []string{"dream."}, []string{"dream_run", "dream_undo", "reembed"})
	if err != nil || !ok {
		return 0, time.Time{}, storeErr("last activity", err)
	}
	return e.Seq, e.At, nil
}

// StaleHorizon is how long a fact stays fresh without re-confirmation
// (LOCI_FACT_HORIZON or the config file; 0 means never stale).
func (p *Palace) StaleHorizon() (time.Duration, error) {
	s, err := p.reg.Settings()
	return s.FactHorizon, err
}
