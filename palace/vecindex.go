package palace

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/store"
)

// The palace's vector index holds one byte a dimension: int8 codes, which
// an exact scan reads below ~100M multiply-adds and loci's own HNSW graph
// (palace/index/graph.go) navigates above that. It keeps no float32 rows:
// the candidates it returns are re-scored exactly with the vectors the
// store holds (rerank), so memory does not grow with the full vectors and
// the order of the final results is exact. The snapshot is the index's
// own arrays, graph included, loaded by mapping the file
// (index.SaveFlatFile).

// indexConfig is the palace's index configuration: int8 codes, the graph
// as the registry configures it, and beside the graph a projected first
// stage (calibration chooses between them and the scan).
func (v *vectorState) indexConfig() index.FlatConfig {
	return index.FlatConfig{Int8: true, Graph: v.p.reg.cfg.Graph, Project: index.DefaultProjectDims}
}

func (v *vectorState) newIndex() *index.Flat { return index.NewFlat(v.indexConfig()) }

// rerankFactor is how many int8 candidates per wanted result are
// re-scored from the store. int8 codes keep recall@10 at ≥ 0.977 alone
// (palace/index/README.md): the true top results are within the first few
// multiples of k, and reading a candidate's vector costs a few
// microseconds.
const rerankFactor = 4

// rerank re-scores index candidates with the float32 vectors the store
// holds and returns the best k, best first. Keys whose drawer is no longer
// active (or whose vector is gone) are dropped. A passage far into a long
// text (farPassageBytes) keeps the score of its int8 codes. dim is the
// vectors' length.
func (p *Palace) rerank(ctx context.Context, q []float32, res []index.Result, k int) ([]index.Result, error) {
	if len(res) == 0 {
		return res, nil
	}
	size := 4 * len(q)
	refs := make([]store.VecRef, 0, len(res))
	at := make([]int, 0, len(res)) // the position in res of each ref
	out := make([]index.Result, 0, len(res))
	for i, r := range res {
		vk, passage := splitKey(int64(r.Key))
		if (passage-1)*size >= farPassageBytes {
			out = append(out, r) // a stale key is dropped when it is resolved
			continue
		}
		refs = append(refs, store.VecRef{Key: vk, Passage: passage})
		at = append(at, i)
	}
	var buf []float32
	err := p.st.Drawers().KeyVectors(ctx, refs, size, func(i int, b []byte) {
		buf = decodeVectorInto(buf, b)
		out = append(out, index.Result{Key: res[at[i]].Key, Score: embed.Dot(q, buf)})
	})
	if err != nil {
		return nil, storeErr("vector search", err)
	}
	slices.SortFunc(out, func(a, b index.Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return out[:min(k, len(out))], nil
}

// farPassageBytes is how far into a drawer's passage vectors the rerank
// reads. SQLite keeps a row's long values in chains of overflow pages and
// reaches a byte of one by walking the chain up to it, the text's pages
// first: in a palace of 200 texts of 200 KB (hash vectors of 256
// dimensions, 1,300 passages each) re-scoring 432 candidates took 100 ms,
// against 8.6 ms for their whole-text vectors. Within the first 64 KB (17
// passages of the default encoder's, a text of some 450 words; 64 of the
// hash embedder's) a read walks at most about as many pages as the query
// costs; past it a passage is ranked by its int8 codes, which alone keep
// recall@10 at .977 or more (palace/index/README.md).
const farPassageBytes = 64 << 10

// indexKind names how the index answers: "exact" (a scan), "graph" or
// "projection".
func indexKind(idx *index.Flat) string {
	st := idx.Stats()
	switch {
	case st.Graph > 0 && !st.GraphOff:
		return "graph"
	case st.ProjectCand > 0 && !st.ProjectOff:
		return "projection"
	}
	return "exact"
}

// calibrationQueries is how many queries calibrate the graph and the
// projection: a width counts when the lower confidence bound of its
// recall reaches the target (index.Calibrate), and the bound is the
// tighter the more queries, so the width chosen the narrower. At 1M
// drawers the queries' recalls at the target vary with a standard
// deviation of about 0.08 (173 questions at 720 candidates: mean 0.966,
// bound 0.956): 200 queries put the bound about 0.009 below the mean, 50
// (minCalibrationQueries, the fewest a calibration waits for) about
// 0.019.
const (
	calibrationQueries    = 200
	minCalibrationQueries = 50
)

// CalibrateIndex measures the vector index's graph and projection on the
// palace's own queries when they were never measured or the index has
// since doubled in size (index.Flat.Calibrate, which builds the
// projection first when it is due): the most recent queries asked of this
// palace, each searched through the graph, the projection and the exact
// scan. It chooses the beam width and candidate count and switches on the
// cheaper of the two that reaches the recall target, or neither where the
// scan is as fast, and saves the snapshot so the next start keeps the
// choice. Until this process has seen minCalibrationQueries queries the
// graph is held off (Search scans) and the measurement waits for the
// next call (the dreamer's index pass). Nothing happens without a graph.
// When no calibration is due but the last one kept the scan on a width's
// cost alone, the choice is timed again instead (retimeIndex).
//
// Why only real queries: stored vectors stand in for them badly. At 1M
// drawers with the default encoder the graph reached recall@10 0.954 on
// 100 stored vectors at a beam of 1728 and 0.740 on short questions; even
// midpoints of two stored vectors gave 0.936. A graph measured on stand-ins
// would be switched on where it misses a quarter of what users ask for.
func (p *Palace) CalibrateIndex(ctx context.Context) (*index.Calibration, error) {
	idx, err := p.vec.sync(ctx)
	if err != nil {
		return nil, err
	}
	if !idx.NeedsCalibration() {
		return p.retimeIndex(idx)
	}
	qs := p.qcache.recent(p.emb.ID(), idx.Dim(), calibrationQueries)
	if len(qs) < minCalibrationQueries {
		idx.HoldGraph()
		return nil, nil
	}
	c := idx.Calibrate(qs, 10, index.CalibrationTarget)
	p.log.Info().Int("queries", c.Queries).Str("use", c.Use).Int("ef", c.Ef).Float64("recall", c.Recall).Float64("recall_low", c.RecallLow).
		Int("cand", c.Cand).Float64("proj_recall", c.ProjRecall).Float64("proj_recall_low", c.ProjRecallLow).
		Dur("graph", c.Graph).Dur("projection", c.Proj).Dur("exact", c.Exact).Msg("vector index calibrated")
	return &c, p.keepCalibration(idx, &c, true)
}

// retimeIndex times again a calibration's choice that kept the scan on
// cost alone (index.Flat.Retime: the recall target was reached, and a
// load may have fallen on the timing), on the palace's recent queries,
// and saves the snapshot when the choice changes. It returns the
// calibration as it now stands, or nil when no timing was due.
func (p *Palace) retimeIndex(idx *index.Flat) (*index.Calibration, error) {
	if !idx.RetimeDue() {
		return nil, nil
	}
	qs := p.qcache.recent(p.emb.ID(), idx.Dim(), calibrationQueries)
	if len(qs) < minCalibrationQueries {
		return nil, nil
	}
	r, ok := idx.Retime(qs, 10)
	if !ok {
		return nil, nil
	}
	p.log.Info().Int("retimed", r.Retimed).Str("use", r.Use).Int("ef", r.Ef).Int("cand", r.Cand).
		Dur("graph", r.Graph).Dur("projection", r.Proj).Dur("exact", r.Exact).Msg("vector index choice timed again")
	c := r
	p.vec.mu.Lock()
	if prev := p.vec.calibration; prev != nil { // the recall this process measured stands
		c = *prev
		c.Use, c.Off, c.Ef, c.Cand, c.Retimed = r.Use, r.Off, r.Ef, r.Cand, r.Retimed
		c.Graph, c.Proj, c.Exact = r.Graph, r.Proj, r.Exact
	}
	p.vec.mu.Unlock()
	return &c, p.keepCalibration(idx, &c, !r.Off)
}

// keepCalibration records c as what idx's calibration stands at and, when
// the choice changed, saves the snapshot (made due when idx is still the
// palace's index) so that the next start keeps the choice.
func (p *Palace) keepCalibration(idx *index.Flat, c *index.Calibration, changed bool) error {
	v := p.vec
	v.mu.Lock()
	v.calibration = c
	if changed && v.idx == idx {
		v.mustSave() // the choice is in the next snapshot
	}
	v.mu.Unlock()
	if !changed {
		return nil
	}
	return p.saveVectors()
}

// loadSnapshot loads the snapshot at path if it was written for this model
// and dimension; any other outcome is an error and the caller rebuilds.
func loadSnapshot(path string, cfg index.FlatConfig, model string, dim int) (*index.Flat, int64, error) {
	a, meta, err := index.LoadFlatFile(path, cfg)
	if err != nil {
		return nil, 0, err
	}
	if meta.Model != model || (a.Len() > 0 && a.Dim() != dim) {
		return nil, 0, fmt.Errorf("snapshot is for model %q, want %q", meta.Model, model)
	}
	return a, int64(meta.Seq), nil
}

func saveSnapshot(path string, idx *index.Flat, model string, hw int64) error {
	return index.SaveFlatFile(path, idx, index.SnapshotMeta{Model: model, Seq: uint64(hw)})
}

// IndexRecall measures the approximate vector search against the exact
// one on queries: the mean share of the k drawers the exhaustive path
// (every int8 code scanned, then re-ranked, as memory_recall_deep does)
// ranks first that the everyday path (the graph, once there is one, then
// re-ranked) also returns. It is 1 while the index is small enough to be
// scanned.
func (p *Palace) IndexRecall(ctx context.Context, queries []string, k int) (float64, error) {
	var sum float64
	n := 0
	for _, q := range queries {
		exact, err := p.vectorSearch(ctx, q, nil, k, k, true)
		if err != nil {
			return 0, err
		}
		if len(exact) == 0 {
			continue
		}
		approx, err := p.vectorSearch(ctx, q, nil, k, k, false)
		if err != nil {
			return 0, err
		}
		got := make(map[int64]bool, len(approx))
		for _, r := range approx {
			got[r.rid] = true
		}
		hit := 0
		for _, r := range exact {
			if got[r.rid] {
				hit++
			}
		}
		sum += float64(hit) / float64(len(exact))
		n++
	}
	if n == 0 {
		return 0, Invalidf("no query found anything to compare")
	}
	return sum / float64(n), nil
}

// VectorIndexStats reports the vector index's storage and graph (zero
// before the index is loaded).
func (p *Palace) VectorIndexStats() index.FlatStats {
	p.vec.mu.Lock()
	idx := p.vec.idx
	p.vec.mu.Unlock()
	if idx == nil {
		return index.FlatStats{}
	}
	return idx.Stats()
}
