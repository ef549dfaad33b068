package dreamer_test

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/store"
)

func TestIndexPassReembedsAfterAModelChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	dir := t.TempDir()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.Create(ctx, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"postgres runs on port 5432", "the frontend is built with vite", "deploys go out on tuesdays"}
	var ids []string
	for _, s := range texts {
		ids = append(ids, note(t, p, s).ID)
	}
	forgotten := note(t, p, "a drawer that was forgotten")
	if _, _, err := p.Forget(ctx, forgotten.ID); err != nil {
		t.Fatal(err)
	}
	reg.Close()

	reg2, err := palace.OpenRegistry(palace.Config{DataDir: dir, Now: clk.Now, Embedder: embed.NewHash(64)})
	if err != nil {
		t.Fatal(err)
	}
	defer reg2.Close()
	p2, err := reg2.Open(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	h, err := p2.IndexHealth(ctx)
	if err != nil || h.StaleVectors != 3 {
		t.Fatalf("health %+v (%v), want 3 stale vectors (the deleted drawer is not re-embedded)", h, err)
	}
	before := get(t, p2, ids[0])
	rep := dream(t, p2, clk, "index")
	pr := passReport(t, rep, "index")
	if pr.Index == nil || pr.Index.Reembedded != 3 || !pr.Index.Saved {
		t.Fatalf("index report %+v", pr.Index)
	}
	after := get(t, p2, ids[0])
	if after.Model != "hash-v1/64" || after.Seq == before.Seq || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("re-embedded drawer: model %q seq %d->%d updated %v->%v", after.Model, before.Seq, after.Seq,
			before.UpdatedAt, after.UpdatedAt)
	}
	hits, err := p2.Search(ctx, palace.SearchRequest{Query: "postgres port", Mode: palace.ModeVector, K: 1})
	if err != nil || len(hits) != 1 || hits[0].Drawer.ID != ids[0] {
		t.Fatalf("vector search after re-embedding: %v (%v)", hits, err)
	}
	if h, _ := p2.IndexHealth(ctx); h.StaleVectors != 0 {
		t.Fatalf("still %d stale vectors", h.StaleVectors)
	}
	if pr := passReport(t, dream(t, p2, clk, "index"), "index"); pr.Index.Reembedded != 0 {
		t.Fatalf("second pass re-embedded %d", pr.Index.Reembedded)
	}
}

// A palace of an earlier release embedded a text of 80 words whole (its
// vector window was the keyword one, 150 words) and recorded no vector
// window: the index pass re-embeds that drawer alone, in passages, and
// records the window, so the next pass has nothing to do.
func TestIndexPassReembedsPassagesOfAnEarlierWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	medium := note(t, p, strings.TrimSpace(strings.Repeat("the rota moved the night shift to thursdays ", 10)))
	note(t, p, "a short note")
	if got := get(t, p, medium.ID); got.VecPassages != len(palace.VectorPassages(medium.Content)) || got.VecPassages == 0 {
		t.Fatalf("an 80-word text stored %d passage vectors, want %d", got.VecPassages, len(palace.VectorPassages(medium.Content)))
	}
	whole := make([]byte, 4*p.Embedder().Dim())
	binary.LittleEndian.PutUint32(whole, math.Float32bits(1))
	err := store.Write(ctx, p.Store(), func(tx store.Tx) error {
		if err := tx.Drawers().SetVector(ctx, medium.RID, medium.Seq, medium.Model, medium.VecKey, store.Vector{Blob: whole}); err != nil {
			return err
		}
		return tx.Meta().Set(ctx, "vector_passages", "")
	})
	if err != nil {
		t.Fatal(err)
	}
	if h, err := p.IndexHealth(ctx); err != nil || !h.StalePassages || h.StaleVectors != 0 {
		t.Fatalf("health %+v (%v), want stale passages only", h, err)
	}
	pr := passReport(t, dream(t, p, clk, "index"), "index")
	if pr.Index == nil || pr.Index.Reembedded != 1 {
		t.Fatalf("index report %+v, want the medium drawer re-embedded", pr.Index)
	}
	if got := get(t, p, medium.ID); got.VecPassages != len(palace.VectorPassages(medium.Content)) {
		t.Fatalf("after the pass: %d passage vectors, want %d", got.VecPassages, len(palace.VectorPassages(medium.Content)))
	}
	if h, _ := p.IndexHealth(ctx); h.StalePassages {
		t.Fatal("the window is still not recorded")
	}
	if pr := passReport(t, dream(t, p, clk, "index"), "index"); pr.Index.Reembedded != 0 {
		t.Fatalf("second pass re-embedded %d", pr.Index.Reembedded)
	}
}
