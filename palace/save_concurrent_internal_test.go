package palace

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Index snapshots are written while searches go on: one asked while a
// save is under way is answered before the save goes on. A snapshot made
// due meanwhile (as an erasure or a calibration makes it) is still due
// after the save, which wrote the index as it was before.
func TestSearchesGoOnWhileTheSnapshotIsSaved(t *testing.T) {
	ctx := context.Background()
	p := newTestPalace(t)
	for i := range snapshotMinEntries + 10 {
		noErr(t, p.Add(ctx, &Drawer{Content: fmt.Sprintf("note %d about the harbour lantern", i)}))
	}
	if _, err := p.Search(ctx, SearchRequest{Query: "lantern", K: 1}); err != nil { // both indexes built
		t.Fatal(err)
	}
	searched := make(chan error, 1)
	saved := map[string]bool{}
	savingHook = func(index string) {
		saved[index] = true
		go func() {
			_, err := p.Search(ctx, SearchRequest{Query: "harbour lantern", K: 3})
			searched <- err
		}()
		select {
		case err := <-searched:
			noErr(t, err)
		case <-time.After(10 * time.Second):
			t.Errorf("a search waited for the %s snapshot to be saved", index)
		}
		if index == "vectors" {
			p.vec.mu.Lock()
			p.vec.mustSave()
			p.vec.mu.Unlock()
		} else {
			p.kw.mu.Lock()
			p.kw.mustSave()
			p.kw.mu.Unlock()
		}
	}
	defer func() { savingHook = nil }()
	noErr(t, p.SaveIndexNow(ctx))
	savingHook = nil
	if !saved["vectors"] || !saved["keywords"] {
		t.Fatalf("snapshots saved: %v, want both", saved)
	}
	v, k := p.vec, p.kw
	v.mu.Lock()
	k.mu.Lock()
	vdue := saveDue(v.hw, v.savedHW, v.idx.Len(), v.idx.HasGraph(), false)
	kdue := saveDue(k.hw, k.savedHW, k.idx.Len(), false, false)
	k.mu.Unlock()
	v.mu.Unlock()
	if !vdue || !kdue {
		t.Fatalf("snapshots made due while they were saved: vectors due %v, keywords due %v", vdue, kdue)
	}
	noErr(t, p.SaveIndex(ctx))
	v.mu.Lock()
	k.mu.Lock()
	defer v.mu.Unlock()
	defer k.mu.Unlock()
	if v.savedHW != v.hw || k.savedHW != k.hw {
		t.Fatalf("after the second save the marks are %d and %d, the indexes' %d and %d", v.savedHW, k.savedHW, v.hw, k.hw)
	}
}
