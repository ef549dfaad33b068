package palace

import "context"

// Layers of seed 003's progressive recall.
const (
	LayerIdentity  = 0 // L0: identity drawers
	LayerImportant = 1 // L1: top-importance drawers, no query needed
	LayerSearch    = 2 // L2: hybrid search
	LayerDeep      = 3 // L3: exhaustive search
)

// TagIdentity marks a drawer as part of the palace's identity (layer 0).
const TagIdentity = "identity"

// RecallRequest is a layered recall.
type RecallRequest struct {
	Query  string
	K      int // default 10
	Deep   bool
	Filter Filter
	// Mode selects the L2/L3 rankers (default hybrid).
	Mode Mode
	// Fusion overrides DefaultFusion.
	Fusion *Fusion
}

// RecallHit is a search hit tagged with the layer that surfaced it.
type RecallHit struct {
	Hit
	Layer int
}

// Recall runs seed 003's progressive retrieval and returns at most K hits.
//
// Normal recall: up to two identity drawers (tag "identity", active)
// first — only when K is at least 5, so they never crowd out a small
// request — then the hybrid search hits (L2) by relevance; when the search
// returns fewer than K, the remaining slots are filled with the most
// important drawers (L1). Importance never reorders search hits.
//
// Deep recall (L3) is the same search scoring every vector exactly.
func (p *Palace) Recall(ctx context.Context, req RecallRequest) ([]RecallHit, error) {
	if req.K == 0 {
		req.K = 10
	}
	if req.Deep {
		hits, err := p.Search(ctx, SearchRequest{Query: req.Query, K: req.K, Exhaustive: true, Filter: req.Filter, Mode: req.Mode, Fusion: req.Fusion})
		if err != nil {
			return nil, err
		}
		return tagLayer(hits, LayerDeep), nil
	}
	out := []RecallHit{}
	// Each drawer is listed once, and each memory (sameMemory): the layers
	// draw on the same drawers, and a memory remembered twice is listed
	// by the first layer that reaches it.
	seen, shown := map[string]bool{}, map[memoryKey]bool{}
	first := func(d *Drawer) bool {
		if seen[d.ID] {
			return false
		}
		seen[d.ID] = true
		if k, ok := sameMemory(d); ok {
			if shown[k] {
				return false
			}
			shown[k] = true
		}
		return true
	}
	if req.K >= 5 {
		ids, err := p.identityDrawers(ctx, req.Filter, 2)
		if err != nil {
			return nil, err
		}
		for _, d := range ids {
			if first(d) {
				out = append(out, RecallHit{Hit: Hit{Drawer: d, Score: d.Importance}, Layer: LayerIdentity})
			}
		}
	}
	hits, err := p.Search(ctx, SearchRequest{Query: req.Query, K: req.K, Filter: req.Filter, Mode: req.Mode, Fusion: req.Fusion})
	if err != nil {
		return nil, err
	}
	// Dreamer closets (closet.go): a bounded bonus that only reorders
	// near-tied L2 hits whose room's keywords match the query.
	hits = p.closetBoost(ctx, req.Query, hits)
	for _, h := range hits {
		if len(out) == req.K {
			break
		}
		if first(h.Drawer) {
			out = append(out, RecallHit{Hit: h, Layer: LayerSearch})
		}
	}
	if len(out) < req.K {
		top, _, err := p.List(ctx, ListOptions{Filter: req.Filter, Limit: req.K})
		if err != nil {
			return nil, err
		}
		for _, d := range top {
			if len(out) == req.K {
				break
			}
			if first(d) {
				out = append(out, RecallHit{Hit: Hit{Drawer: d}, Layer: LayerImportant})
			}
		}
	}
	return out, nil
}

func tagLayer(hits []Hit, layer int) []RecallHit {
	out := make([]RecallHit, len(hits))
	for i, h := range hits {
		out[i] = RecallHit{Hit: h, Layer: layer}
	}
	return out
}

// identityDrawers returns the most important active identity drawers
// matching f (the store keeps them under a partial index, so the lookup
// reads only those few rows).
func (p *Palace) identityDrawers(ctx context.Context, f Filter, limit int) ([]*Drawer, error) {
	f, err := p.normalizeFilter(f)
	if err != nil {
		return nil, err
	}
	ds, err := p.st.Drawers().Identity(ctx, f, limit)
	return ds, storeErr("identity drawers", err)
}
