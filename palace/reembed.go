package palace

import (
	"context"
	"slices"

	"github.com/loci-mem/loci/palace/store"
)

// DefaultReembedBatch is Reembed's batch size when none is given.
const DefaultReembedBatch = 64

// Reembed re-embeds every drawer (not deleted) whose vector is missing or
// was made by another embedder than the palace's current one, or whose
// vectors are of an earlier layout (see repassage), batch drawers
// per transaction, and returns how many got a new vector. See
// ReembedWithProgress.
func (p *Palace) Reembed(ctx context.Context, batch int) (int, error) {
	return p.ReembedWithProgress(ctx, batch, nil)
}

// ReembedWithProgress is Reembed reporting after each batch: done drawers
// so far out of total, the number that needed a vector when it started
// (plus, while passage vectors of an earlier window are looked for, those
// found so far).
//
// Active drawers go first, then the others (a superseded or stale drawer
// may come back). Each batch is embedded outside any transaction and then
// stored in one; a drawer changed by someone else in between keeps its
// newer state and is picked up by the next run. A drawer re-embedded gets
// a new seq and index key (so every process's vector index catches up) but
// keeps its updated_at: a new vector is not a new memory. A long text this
// process's background embedder has in hand (embed_later.go) is left to
// it. An embedder failure stops the run with the error; batches already
// stored stay.
func (p *Palace) ReembedWithProgress(ctx context.Context, batch int, progress func(done, total int)) (int, error) {
	if batch <= 0 {
		batch = DefaultReembedBatch
	}
	if batch > 4096 {
		return 0, Invalidf("batch must be at most 4096, got %d", batch)
	}
	model, dim := p.emb.ID(), p.emb.Dim()
	n64, err := p.st.Drawers().CountNeedingVector(ctx, model, dim)
	if err != nil {
		return 0, storeErr("reembed", err)
	}
	total, done := int(n64), 0
	if progress != nil {
		progress(0, total)
	}
	for _, active := range []bool{true, false} {
		var after int64
		for {
			if err := ctx.Err(); err != nil {
				return done, err
			}
			page, err := p.st.Drawers().NeedingVector(ctx, model, dim, active, after, batch)
			if err != nil {
				return done, storeErr("reembed", err)
			}
			if len(page) == 0 {
				break
			}
			after = page[len(page)-1].RID
			page = slices.DeleteFunc(page, func(t store.VectorTodo) bool { return p.embeddingLater(t.ID) })
			if len(page) == 0 {
				continue
			}
			n, err := p.reembedPage(ctx, page)
			if err != nil {
				return done, err
			}
			done += n
			if progress != nil {
				progress(done, total)
			}
		}
	}
	stale, err := p.passagesStale(ctx)
	if err != nil {
		return done, err
	}
	if stale {
		n, err := p.repassage(ctx, batch, func(more, found int) {
			if progress != nil {
				progress(done+more, total+found)
			}
		})
		done += n
		if err != nil {
			return done, err
		}
	}
	// Every vector is now of this embedder (unless a drawer changed under
	// the run, which the next run picks up): record it as the palace's.
	left, err := p.st.Drawers().CountNeedingVector(ctx, model, dim)
	if err != nil {
		return done, storeErr("reembed", err)
	}
	if left == 0 {
		err := p.Write(ctx, func(t *Tx) error {
			return storeErr("record the palace's embedder", t.st.Meta().Set(ctx, metaEmbedder, embedderRecord(model, dim)))
		})
		if err != nil {
			return done, err
		}
		p.forgetEmbedderCheck()
	}
	return done, nil
}

// reembedPage embeds the drawers of page and stores their new vectors
// (storeVectors); an embedder failure fails it, storing nothing.
func (p *Palace) reembedPage(ctx context.Context, page []store.VectorTodo) (int, error) {
	ds := make([]*Drawer, len(page))
	for i, r := range page {
		ds[i] = &Drawer{Content: r.Content, Keywords: r.Keywords}
	}
	vecs := p.Embed(ctx, ds)
	if err := ctx.Err(); err != nil {
		return 0, err // cancelled or out of time mid-page: nothing stored
	}
	for _, v := range vecs {
		if v.Whole == nil {
			return 0, internal("reembed: embed", errShortEmbed)
		}
	}
	return p.storeVectors(ctx, page, vecs)
}

// storeVectors writes new vectors in one transaction, skipping drawers
// whose seq moved since they were read.
func (p *Palace) storeVectors(ctx context.Context, page []store.VectorTodo, vecs []Vectors) (int, error) {
	model := p.emb.ID()
	stored := 0
	err := p.Write(ctx, func(t *Tx) error {
		for i, r := range page {
			if len(vecs[i].Whole) != p.emb.Dim() {
				continue
			}
			if cur, err := t.st.Drawers().SeqOf(ctx, r.RID); err != nil || cur != r.Seq {
				continue
			}
			seq, err := t.Log(EventUpdated, r.ID, map[string]any{"reembed": model})
			if err != nil {
				return err
			}
			if err := t.st.Drawers().SetVector(ctx, r.RID, seq, model, seq, *vecs[i].encode()); err != nil {
				return storeErr("reembed", err)
			}
			stored++
		}
		return nil
	})
	return stored, err
}

// A palace records its vector window (meta "vector_passages", see
// vectorLayout) once every stored passage vector is known to be of it: at
// creation, or when repassage has walked the palace. A palace of an
// earlier release embedded its long texts in the keyword window.
const metaVectorPassages = "vector_passages"

// passagesStale reports that the palace has not recorded the current
// vector window: some long drawers may hold passage vectors of another.
func (p *Palace) passagesStale(ctx context.Context) (bool, error) {
	v, _, err := p.st.Meta().Get(ctx, metaVectorPassages)
	if err != nil {
		return false, storeErr("read palace metadata", err)
	}
	return v != vectorLayout, nil
}

// repassage walks the drawers that have vectors and re-embeds those whose
// stored vectors are not of the current layout (vectorLayout): a long text
// whose passage vectors are of another window (their count tells: see
// vectorSpans), and a text that holds an identifier or an emoji, whose
// words its vector now reads (vectorWords, readsMore), batch drawers per
// transaction. It then
// records the layout, unless a drawer changed under the walk (the next run
// looks again). Until then, search maps an old passage vector to its old
// span. progress gets the drawers re-embedded so far and those found to
// need it.
func (p *Palace) repassage(ctx context.Context, batch int, progress func(done, found int)) (int, error) {
	minChars := 0 // an identifier may be in a text of any length
	var after int64
	done, found, missed := 0, 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		page, err := p.st.Drawers().Vectored(ctx, minChars, after, 1024)
		if err != nil {
			return done, storeErr("reembed passages", err)
		}
		if len(page) == 0 {
			break
		}
		after = page[len(page)-1].RID
		var todo []store.VectorTodo
		for _, r := range page {
			if r.Passages != len(VectorPassages(r.Content)) || readsMore(r.Content+"\n"+r.Keywords, p.lex) {
				todo = append(todo, r)
			}
		}
		found += len(todo)
		for lo := 0; lo < len(todo); lo += batch {
			chunk := todo[lo:min(lo+batch, len(todo))]
			n, err := p.reembedPage(ctx, chunk)
			if err != nil {
				return done, err
			}
			done, missed = done+n, missed+len(chunk)-n
			if progress != nil {
				progress(done, found)
			}
		}
	}
	if missed > 0 {
		p.log.Info().Int("changed", missed).Msg("drawers changed while their passages were re-embedded; the next run looks again")
		return done, nil
	}
	err := p.Write(ctx, func(t *Tx) error {
		return storeErr("record the vector window", t.st.Meta().Set(ctx, metaVectorPassages, vectorLayout))
	})
	return done, err
}
