package palace

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A vector snapshot is written while searches go on: one asked while the
// save is under way is answered before the save goes on. A snapshot made
// due meanwhile (as an erasure or a calibration makes it) is still due
// after the save, which wrote the index as it was before.
func TestSearchesGoOnWhileTheSnapshotIsSaved(t *testing.T) {
	ctx := context.Background()
	p := newTestPalace(t)
	for i := range snapshotMinEntries + 10 {
		noErr(t, p.Add(ctx, &Drawer{Content: fmt.Sprintf("note %d about the harbour lantern", i)}))
	}
	if _, err := p.vec.sync(ctx); err != nil {
		t.Fatal(err)
	}
	searched := make(chan error, 1)
	savingHook = func() {
		go func() {
			_, err := p.Search(ctx, SearchRequest{Query: "harbour lantern", K: 3})
			searched <- err
		}()
		select {
		case err := <-searched:
			noErr(t, err)
		case <-time.After(10 * time.Second):
			t.Error("a search waited for the snapshot to be saved")
		}
		p.vec.mu.Lock()
		p.vec.mustSave()
		p.vec.mu.Unlock()
	}
	defer func() { savingHook = nil }()
	noErr(t, p.saveVectorsIf(true))
	savingHook = nil
	v := p.vec
	v.mu.Lock()
	due := saveDue(v.hw, v.savedHW, v.idx.Len(), v.idx.HasGraph(), false)
	v.mu.Unlock()
	if !due {
		t.Fatal("a snapshot made due while one was saved is no longer due")
	}
	noErr(t, p.saveVectorsIf(false))
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.savedHW != v.hw {
		t.Fatalf("after the second save the mark is %d, the index's %d", v.savedHW, v.hw)
	}
}
