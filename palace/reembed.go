package palace

import "context"

// DefaultReembedBatch is Reembed's batch size when none is given.
const DefaultReembedBatch = 64

// Reembed re-embeds every drawer (not deleted) whose vector is missing or
// was made by another embedder than the palace's current one, batch
// drawers per transaction, and returns how many got a new vector. See
// ReembedWithProgress.
func (p *Palace) Reembed(ctx context.Context, batch int) (int, error) {
	return p.ReembedWithProgress(ctx, batch, nil)
}

// ReembedWithProgress is Reembed reporting after each batch: done drawers
// so far out of total, the number that needed a vector when it started.
//
// Active drawers go first, then the others (a superseded or stale drawer
// may come back). Each batch is embedded outside any transaction and then
// stored in one; a drawer changed by someone else in between keeps its
// newer state and is picked up by the next run. A drawer re-embedded gets
// a new seq and index key (so every process's vector index catches up) but
// keeps its updated_at: a new vector is not a new memory. An embedder
// failure stops the run with the error; batches already stored stay.
func (p *Palace) ReembedWithProgress(ctx context.Context, batch int, progress func(done, total int)) (int, error) {
	if batch <= 0 {
		batch = DefaultReembedBatch
	}
	if batch > 4096 {
		return 0, Invalidf("batch must be at most 4096, got %d", batch)
	}
	model, dim := p.emb.ID(), p.emb.Dim()
	const need = `(vector IS NULL OR model <> ? OR length(vector) <> ?)`
	var total int
	if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM drawers WHERE status <> 'deleted' AND `+need,
		model, 4*dim).Scan(&total); err != nil {
		return 0, internal("reembed", err)
	}
	done := 0
	if progress != nil {
		progress(0, total)
	}
	for _, phase := range []string{`status = 'active'`, `status NOT IN ('active', 'deleted')`} {
		var after int64
		for {
			if err := ctx.Err(); err != nil {
				return done, err
			}
			type row struct {
				rid, seq int64
				id, text string
			}
			rows, err := p.db.QueryContext(ctx, `SELECT rid, seq, id, content, keywords FROM drawers
				WHERE rid > ? AND `+phase+` AND `+need+` ORDER BY rid LIMIT ?`, after, model, 4*dim, batch)
			if err != nil {
				return done, internal("reembed", err)
			}
			var page []row
			for rows.Next() {
				var r row
				var content, keywords string
				if err := rows.Scan(&r.rid, &r.seq, &r.id, &content, &keywords); err != nil {
					rows.Close()
					return done, internal("reembed", err)
				}
				r.text = embedText(&Drawer{Content: content, Keywords: keywords})
				page = append(page, r)
				after = r.rid
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return done, internal("reembed", err)
			}
			if len(page) == 0 {
				break
			}
			texts := make([]string, len(page))
			for i, r := range page {
				texts[i] = r.text
			}
			vecs, err := p.emb.Embed(ctx, texts)
			if err != nil {
				return done, internal("reembed: embed", err)
			}
			if len(vecs) != len(texts) {
				return done, internal("reembed: embed", errShortEmbed)
			}
			n, err := p.storeVectors(ctx, model, func(i int) (int64, int64, string, []float32) {
				return page[i].rid, page[i].seq, page[i].id, vecs[i]
			}, len(page))
			if err != nil {
				return done, err
			}
			done += n
			if progress != nil {
				progress(done, total)
			}
		}
	}
	return done, nil
}

// storeVectors writes n new vectors in one transaction, skipping drawers
// whose seq moved since they were read.
func (p *Palace) storeVectors(ctx context.Context, model string, item func(i int) (rid, seq int64, id string, vec []float32), n int) (int, error) {
	now := p.now().UTC()
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, internal("reembed", err)
	}
	defer tx.Rollback()
	stored := 0
	for i := 0; i < n; i++ {
		rid, seq, id, vec := item(i)
		if len(vec) != p.emb.Dim() {
			continue
		}
		var cur int64
		if err := tx.QueryRowContext(ctx, `SELECT seq FROM drawers WHERE rid = ?`, rid).Scan(&cur); err != nil || cur != seq {
			continue
		}
		newSeq, err := logEvent(ctx, tx, now, EventUpdated, id, map[string]any{"reembed": model})
		if err != nil {
			return 0, internal("reembed", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE drawers SET seq = ?, model = ?, vec_id = ?, vector = ? WHERE rid = ?`,
			newSeq, model, newSeq, encodeVector(vec), rid); err != nil {
			return 0, internal("reembed", err)
		}
		stored++
	}
	if err := tx.Commit(); err != nil {
		return 0, internal("reembed", err)
	}
	return stored, nil
}
