package palace

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
)

// A catch-up of more changes than a search should wait to have linked into
// a graph is held (vecheld.go). Held, the drawers it adds are found and
// those it forgets are not; a snapshot saved meanwhile is marked before
// them, so a palace opened from it catches them up again; a held erasure
// is applied before any snapshot is written, and every held change before
// SaveIndexNow writes one; and the goroutine links them all into the index.
func TestHeldCatchUpIsFoundSavedAndLinked(t *testing.T) {
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Embedder: embed.NewHash(256), Graph: index.GraphConfig{Min: 400, M: 8, EfConstruction: 48, EfSearch: 48}}
	open := func() (*Registry, *Palace) {
		t.Helper()
		reg, err := OpenRegistry(cfg)
		noErr(t, err)
		t.Cleanup(func() { reg.Close() })
		p, err := reg.Open(ctx, "p")
		noErr(t, err)
		return reg, p
	}
	reg, err := OpenRegistry(cfg)
	noErr(t, err)
	t.Cleanup(func() { reg.Close() })
	p, err := reg.Create(ctx, "p", "")
	noErr(t, err)
	old := make([]*Drawer, snapshotMinEntries+100)
	for i := range old {
		old[i] = &Drawer{Content: fmt.Sprintf("harbour log %d: %s", i, drawnWords(rnd, 12))}
	}
	noErr(t, p.AddMany(ctx, old))
	if _, err := p.Search(ctx, SearchRequest{Query: "harbour", K: 1}); err != nil {
		t.Fatal(err)
	}
	v := p.vec
	if !v.idx.HasGraph() {
		t.Fatal("no graph over the first drawers")
	}
	v.mu.Lock()
	v.closed = true // no linking yet: what is held stays held
	v.mu.Unlock()

	// Another handle, as another process, writes 300 drawers and forgets one.
	_, q := open()
	fresh := make([]*Drawer, 300)
	for i := range fresh {
		fresh[i] = &Drawer{Content: fmt.Sprintf("cormorant survey %d: %s", i, drawnWords(rnd, 12))}
	}
	noErr(t, q.AddMany(ctx, fresh))
	_, _, err = q.Forget(ctx, old[7].ID)
	noErr(t, err)

	if !foundByVector(t, p, fresh[123]) || foundByVector(t, p, old[7]) {
		t.Fatal("while held: a written drawer not found, or a forgotten one found")
	}
	v.mu.Lock()
	heldVectors, mark, hw := v.held.vectors, v.heldMark(), v.hw
	v.mu.Unlock()
	if heldVectors != len(fresh) || mark >= hw {
		t.Fatalf("held %d vectors (want %d), mark %d against caught up %d", heldVectors, len(fresh), mark, hw)
	}
	if in := p.IndexInfo(); in.Held != len(fresh) || in.Vectors != len(old) {
		t.Fatalf("index info: %d vectors and %d held, want %d and %d", in.Vectors, in.Held, len(old), len(fresh))
	}

	// A snapshot saved now is marked before the held changes: a palace
	// opened from it (the first closed, as by a process that exits)
	// catches them up.
	noErr(t, p.SaveIndex(ctx))
	v.mu.Lock()
	saved := v.savedHW
	v.mu.Unlock()
	if saved != mark {
		t.Fatalf("snapshot marked %d, want %d", saved, mark)
	}
	_, r := open()
	if !foundByVector(t, r, fresh[200]) {
		t.Fatal("a palace opened from the snapshot does not find a drawer held when it was saved")
	}

	// A held erasure is applied before a snapshot is written.
	_, err = q.Purge(ctx, fresh[5].ID)
	noErr(t, err)
	_, err = v.sync(ctx)
	noErr(t, err)
	v.mu.Lock()
	erases := v.held.erases
	v.mu.Unlock()
	if erases == 0 {
		t.Fatal("the purge's erasure was not held")
	}
	noErr(t, p.SaveIndex(ctx))
	v.mu.Lock()
	left := len(v.held.ops)
	v.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d changes still held after a save that followed an erasure", left)
	}

	// `loci palace warm` (SaveIndexNow) saves what it caught up.
	warm := make([]*Drawer, 100)
	for i := range warm {
		warm[i] = &Drawer{Content: fmt.Sprintf("tide table %d: %s", i, drawnWords(rnd, 12))}
	}
	noErr(t, q.AddMany(ctx, warm))
	_, err = v.sync(ctx)
	noErr(t, err)
	noErr(t, p.SaveIndexNow(ctx))
	v.mu.Lock()
	left, saved, hw = len(v.held.ops), v.savedHW, v.hw
	v.mu.Unlock()
	if left != 0 || saved != hw {
		t.Fatalf("SaveIndexNow left %d changes held and marked its snapshot %d, caught up to %d", left, saved, hw)
	}

	// Linked in the background, batch by batch.
	more := make([]*Drawer, 200)
	for i := range more {
		more[i] = &Drawer{Content: fmt.Sprintf("lantern repair %d: %s", i, drawnWords(rnd, 12))}
	}
	noErr(t, q.AddMany(ctx, more))
	v.mu.Lock()
	v.closed = false
	v.mu.Unlock()
	if !foundByVector(t, p, more[99]) {
		t.Fatal("a drawer written by the other handle not found")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		v.mu.Lock()
		n := len(v.held.ops)
		v.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d changes still held after 20 s", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, d := range append(append(fresh[6:], warm...), more...) {
		if _, ok := v.idx.Vector(ikey(uint64(d.VecKey), 0)); !ok {
			t.Fatalf("%s not in the index once linked", d.ID)
		}
	}
	if _, ok := v.idx.Vector(ikey(uint64(fresh[5].VecKey), 0)); ok {
		t.Fatal("the purged drawer is in the index")
	}
	if !foundByVector(t, p, more[150]) || foundByVector(t, p, old[7]) {
		t.Fatal("once linked: a written drawer not found, or a forgotten one found")
	}
}

// foundByVector reports whether a vector search for d's text ranks d in
// the first three.
func foundByVector(t *testing.T, p *Palace, d *Drawer) bool {
	t.Helper()
	hits, err := p.Search(context.Background(), SearchRequest{Query: d.Content, K: 3, Mode: ModeVector, NoAccess: true})
	noErr(t, err)
	for _, h := range hits {
		if h.Drawer.ID == d.ID {
			return true
		}
	}
	return false
}
