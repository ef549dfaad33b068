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

// A write caught up while the vector snapshot is being written waits for
// the write to end before the index holds it, and a search does not wait
// with it: the search scores the held vectors itself, so it finds the
// drawer (filtered or not, and not past the filter) and no longer finds
// one forgotten meanwhile.
// Once the write ends the index holds the change. The hook runs inside the
// index's own read lock, as the file is written; a catch-up that changed
// the index there would wait for it for ever.
func TestSearchesFindWritesCaughtUpWhileTheSnapshotIsSaved(t *testing.T) {
	ctx := context.Background()
	p := newTestPalace(t)
	for i := range snapshotMinEntries + 10 {
		noErr(t, p.Add(ctx, &Drawer{Content: fmt.Sprintf("note %d about the harbour lantern", i)}))
	}
	doomed := &Drawer{Content: "the ferry timetable changes in the spring"}
	noErr(t, p.Add(ctx, doomed))
	if _, err := p.Search(ctx, SearchRequest{Query: "lantern", K: 1}); err != nil { // both indexes built
		t.Fatal(err)
	}
	fresh := &Drawer{Content: "the cormorant nests under the old pier", Room: "Research"}
	elsewhere := &Drawer{Content: "the cormorant nests under the old pier again", Room: "Backend"}
	found := func(req SearchRequest, d *Drawer) bool {
		req.K, req.Mode = 5, ModeVector
		hits, err := p.Search(ctx, req)
		noErr(t, err)
		for _, h := range hits {
			if h.Drawer.ID == d.ID {
				return true
			}
		}
		return false
	}
	during := map[string]bool{}
	savingHook = func(index string) {
		if index != "vectors" {
			return
		}
		inside := false
		p.vec.saving.Keys(func(uint64) {
			if inside {
				return
			}
			inside = true
			noErr(t, p.Add(ctx, fresh))
			noErr(t, p.Add(ctx, elsewhere))
			_, _, err := p.Forget(ctx, doomed.ID)
			noErr(t, err)
			done := make(chan struct{})
			go func() {
				defer close(done)
				during["fresh"] = found(SearchRequest{Query: fresh.Content}, fresh)
				during["fresh in its room"] = found(SearchRequest{Query: fresh.Content, Filter: Filter{Room: "Research"}}, fresh)
				during["another room's"] = found(SearchRequest{Query: fresh.Content, Filter: Filter{Room: "Research"}}, elsewhere)
				during["forgotten"] = found(SearchRequest{Query: doomed.Content}, doomed)
				p.vec.mu.Lock()
				during["held"] = p.vec.held.vectors > 0
				p.vec.mu.Unlock()
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("a search with a write to catch up waited for the vector snapshot to be written")
			}
		})
	}
	defer func() { savingHook = nil }()
	noErr(t, p.SaveIndexNow(ctx))
	savingHook = nil
	want := map[string]bool{"fresh": true, "fresh in its room": true, "another room's": false, "forgotten": false, "held": true}
	for k, w := range want {
		if during[k] != w {
			t.Errorf("during the save: %s = %v, want %v", k, during[k], w)
		}
	}
	v := p.vec
	v.mu.Lock()
	held := len(v.held.ops)
	_, inIndex := v.idx.Vector(ikey(uint64(fresh.VecKey), 0))
	v.mu.Unlock()
	if held != 0 || !inIndex {
		t.Errorf("after the save: %d changes still held, the fresh drawer in the index %v", held, inIndex)
	}
	if !found(SearchRequest{Query: fresh.Content}, fresh) || found(SearchRequest{Query: doomed.Content}, doomed) {
		t.Error("after the save the index does not answer as the held changes did")
	}
}

// What a snapshot write holds is bounded (maxHeldVectors): a catch-up
// that would hold more during the write applies what is held and its own
// changes to the index, in order, and so waits for the write to end; the
// search behind it then finds every drawer written, and none is left held
// with more than the bound.
func TestHeldChangesAreBoundedDuringASave(t *testing.T) {
	ctx := context.Background()
	defer func(n int) { maxHeldVectors = n }(maxHeldVectors)
	maxHeldVectors = 8
	p := newTestPalace(t)
	for i := range snapshotMinEntries + 10 {
		noErr(t, p.Add(ctx, &Drawer{Content: fmt.Sprintf("note %d about the harbour lantern", i)}))
	}
	if _, err := p.Search(ctx, SearchRequest{Query: "lantern", K: 1}); err != nil {
		t.Fatal(err)
	}
	fresh := make([]*Drawer, 30)
	for i := range fresh {
		fresh[i] = &Drawer{Content: fmt.Sprintf("cormorant %d nests under pier %d", i, 3*i+1)}
	}
	v := p.vec
	var found []bool
	done := make(chan struct{})
	savingHook = func(index string) {
		if index != "vectors" {
			return
		}
		inside := false
		v.saving.Keys(func(uint64) {
			if inside {
				return
			}
			inside = true
			noErr(t, p.AddMany(ctx, fresh))
			go func() {
				defer close(done)
				for _, d := range fresh {
					found = append(found, foundByVector(t, p, d))
				}
			}()
			select {
			case <-done:
				t.Errorf("a catch-up of %d vectors was held during the write (bound %d)", len(fresh), maxHeldVectors)
			case <-time.After(500 * time.Millisecond): // it waits for the write, as it must
			}
		})
	}
	defer func() { savingHook = nil }()
	noErr(t, p.SaveIndexNow(ctx))
	savingHook = nil
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the search behind the catch-up did not end after the write")
	}
	for i, ok := range found {
		if !ok {
			t.Errorf("drawer %d written during the save not found", i)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.held.ops) != 0 {
		t.Errorf("%d changes still held after the save", len(v.held.ops))
	}
	for _, d := range fresh {
		if _, ok := v.idx.Vector(ikey(uint64(d.VecKey), 0)); !ok {
			t.Fatalf("%s not in the index after the save", d.ID)
		}
	}
}
