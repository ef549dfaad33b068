package palace

import "testing"

// A snapshot falls due after a twentieth of a flat index's entries have
// changed, and after a 500th of a graph's: a change replayed into a graph
// is linked by a beam search, not appended (snapshotDue).
func TestSnapshotDue(t *testing.T) {
	const n = 237000 // the 100k palace's vectors, its passages included
	for _, c := range []struct {
		hw, saved int64
		n         int
		graph     bool
		want      bool
	}{
		{100, 100, n, true, false},        // nothing changed
		{5, 0, 999, false, false},         // small and never saved: built at once
		{5, 0, 1000, false, true},         // large enough to keep
		{5, -1, 10, false, true},          // rebuilt since the last save
		{600, 100, n, false, false},       // 500 changes: a flat index replays them
		{11950, 100, n, false, true},      // a twentieth
		{599, 100, n, true, false},        // 499 changes into a graph
		{600, 100, n, true, true},         // 500
		{4000, 100, 2300000, true, false}, // 1M drawers: 3,900 of 4,600
		{4700, 100, 2300000, true, true},
	} {
		if got := snapshotDue(c.hw, c.saved, c.n, c.graph); got != c.want {
			t.Errorf("snapshotDue(%d, %d, %d, graph %v) = %v, want %v", c.hw, c.saved, c.n, c.graph, got, c.want)
		}
	}
}

// Saving now writes any change of an index of 1,000 entries or more.
func TestSaveDueNow(t *testing.T) {
	for _, c := range []struct {
		hw, saved int64
		n         int
		want      bool
	}{
		{110, 100, 5000, true},  // ten changes
		{100, 100, 5000, false}, // none
		{110, 100, 999, false},  // small: built at once
		{5, -1, 10, true},       // rebuilt since: due anyway
	} {
		if got := saveDue(c.hw, c.saved, c.n, true, true); got != c.want {
			t.Errorf("saveDue(%d, %d, %d, now) = %v, want %v", c.hw, c.saved, c.n, got, c.want)
		}
	}
}
