package server_test

import "testing"

// The contracts set no upper bound on counts: a larger top_k or limit is
// clamped to loci's maximum, and Engram's recall takes a limit below 1 as
// its default, instead of failing the call.
func TestCountsAreClamped(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	var rem struct {
		DrawerID string `json:"drawer_id"`
	}
	ps.callTool(t, 1, "memory_remember", map[string]any{"text": "We deploy the API every Friday"}, &rem)
	var rec struct {
		Results []struct {
			DrawerID string `json:"drawer_id"`
		} `json:"results"`
	}
	ps.callTool(t, 2, "memory_recall", map[string]any{"query": "deploy", "top_k": 100000}, &rec)
	if len(rec.Results) != 1 || rec.Results[0].DrawerID != rem.DrawerID {
		t.Errorf("memory_recall top_k 100000: %+v", rec.Results)
	}
	var list struct {
		Drawers []any `json:"drawers"`
	}
	ps.callTool(t, 3, "memory_list", map[string]any{"limit": 1 << 40}, &list)
	if len(list.Drawers) != 1 {
		t.Errorf("memory_list limit 2^40: %d drawers, want 1", len(list.Drawers))
	}
	for i, limit := range []int{0, -5, 5000} {
		var facts []any
		ps.callTool(t, 4+i, "recall", map[string]any{"limit": limit}, &facts)
	}
}
