package palace

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A palace records the embedder its vectors come from (meta "embedder":
// "<id> <dim>"), set when it is created, when a re-embedding completes,
// and, for a palace of an earlier release, the first time its vectors are
// found to be all of this process's embedder. A process that embeds with
// another model cannot rank by vectors there: query and stored vectors
// would not be comparable, and drawers of the other model would silently
// drop out of vector search. So the vector side refuses with an error that
// names the way out (`loci reembed`); keyword search keeps working.

const metaEmbedder = "embedder"

// embedderCheckTTL is how long a check stands before the record is read
// again (another process may have re-embedded the palace meanwhile).
const embedderCheckTTL = 10 * time.Second

// embedderRecord is the meta value naming an embedder.
func embedderRecord(id string, dim int) string { return id + " " + strconv.Itoa(dim) }

// embedderCheck caches the outcome of checkEmbedder.
type embedderCheck struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

// checkEmbedder returns an error when the palace's vectors come from
// another embedder than this process's.
func (p *Palace) checkEmbedder(ctx context.Context) error {
	c := &p.embCheck
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < embedderCheckTTL {
		return c.err
	}
	err := p.embedderMismatch(ctx)
	if ErrorCode(err) == CodeInternal {
		return err // a store failure: not a verdict worth keeping
	}
	c.at, c.err = time.Now(), err
	return err
}

// forgetEmbedderCheck makes the next search check again.
func (p *Palace) forgetEmbedderCheck() {
	p.embCheck.mu.Lock()
	p.embCheck.at = time.Time{}
	p.embCheck.mu.Unlock()
}

func (p *Palace) embedderMismatch(ctx context.Context) error {
	id, dim := p.emb.ID(), p.emb.Dim()
	rec, ok, err := p.st.Meta().Get(ctx, metaEmbedder)
	if err != nil {
		return storeErr("read palace metadata", err)
	}
	if ok && rec != "" {
		recID, recDim, _ := strings.Cut(rec, " ")
		if recID == id && recDim == strconv.Itoa(dim) {
			return nil
		}
		return &Error{Code: CodeConflict, Message: fmt.Sprintf(
			"palace %q was embedded with %s (%s-d) but this process embeds with %s (%d-d), so it cannot rank by vectors; "+
				"run `loci reembed --palace %s` to re-embed it with %s, or configure %s again (LOCI_EMBEDDER, LOCI_EMBED_MODEL, LOCI_EMBED_DOCUMENT_PREFIX)",
			p.name, recID, recDim, id, dim, p.name, id, recID),
			Hint: fmt.Sprintf("Run `loci reembed --palace %s`; keyword search (mode keyword) still works meanwhile", p.name)}
	}
	// A palace of an earlier release: judge by its vectors.
	n, err := p.st.Drawers().CountNeedingVector(ctx, id, dim)
	if err != nil {
		return storeErr("count drawers to embed", err)
	}
	if n == 0 {
		err := p.Write(ctx, func(t *Tx) error {
			if v, ok, err := t.st.Meta().Get(ctx, metaEmbedder); err != nil || ok && v != "" {
				return storeErr("read palace metadata", err) // recorded meanwhile
			}
			return storeErr("record the palace's embedder", t.st.Meta().Set(ctx, metaEmbedder, embedderRecord(id, dim)))
		})
		if err != nil {
			p.log.Debug().Err(err).Msg("record the palace's embedder") // read-only: judged again next time
		}
		return nil
	}
	return &Error{Code: CodeConflict, Message: fmt.Sprintf(
		"%d drawers of palace %q have no vector from this process's embedder %s (%d-d): they were embedded by another one; "+
			"run `loci reembed --palace %s` to re-embed them, or configure the embedder the palace was built with",
		n, p.name, id, dim, p.name),
		Hint: fmt.Sprintf("Run `loci reembed --palace %s`; keyword search (mode keyword) still works meanwhile", p.name)}
}
