package palace

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/store"
)

// keywordState is a palace's in-memory BM25 index (package bm25): a
// derived cache of the drawers' text, like the vector index, and the only
// keyword engine (no backend has to offer full-text search). It is built
// from the store on first use — by WarmIndex (serve warms its default
// palace at start) or by the first search — and caught up from the seq high-water mark before each
// search.
type keywordState struct {
	p *Palace

	mu    sync.Mutex // serialises build and catch-up
	idx   *bm25.Index
	hw    int64 // highest drawers.seq the index reflects
	ready atomic.Bool

	searches atomic.Int64 // keyword searches served since the palace opened
}

// KeywordIndexInfo reports the state of the in-memory keyword index.
type KeywordIndexInfo struct {
	Loaded   bool  `json:"loaded"`
	Drawers  int   `json:"drawers"`
	Terms    int   `json:"terms"`
	CaughtUp int64 `json:"caught_up_seq"`
	// MemorySearches counts keyword searches since the palace was opened.
	MemorySearches int64 `json:"memory_searches"`
}

func (k *keywordState) info() KeywordIndexInfo {
	in := KeywordIndexInfo{MemorySearches: k.searches.Load()}
	if !k.ready.Load() {
		return in
	}
	k.mu.Lock()
	idx, hw := k.idx, k.hw
	k.mu.Unlock()
	in.Loaded, in.Drawers, in.Terms, in.CaughtUp = true, idx.Len(), idx.Terms(), hw
	return in
}

// ftsWeights are the BM25 weights of the two indexed fields: a drawer's
// text counts fully, its extra keywords (context, a fact's kind) half.
var ftsWeights = []float64{1.0, 0.5}

func newKeywordState(p *Palace) *keywordState { return &keywordState{p: p} }

// warm builds the index if it is not built yet.
func (k *keywordState) warm(ctx context.Context) error {
	if k.ready.Load() {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.buildLocked(ctx)
}

func (k *keywordState) buildLocked(ctx context.Context) error {
	if k.ready.Load() {
		return nil
	}
	start := time.Now()
	idx, hw, err := k.build(ctx)
	if err != nil {
		return err
	}
	k.idx, k.hw = idx, hw
	k.ready.Store(true)
	k.p.log.Debug().Dur("took", time.Since(start)).Int("drawers", idx.Len()).Msg("keyword index built")
	return nil
}

type kwRow struct {
	rid, seq          int64
	active            bool
	content, keywords string
	doc               bm25.Doc
}

// build reads every drawer and indexes it, tokenizing on all cores. The
// high-water mark is the largest seq read: one read sees one snapshot,
// and any later change has a larger seq.
func (k *keywordState) build(ctx context.Context) (*bm25.Index, int64, error) {
	idx := bm25.New(ftsWeights...)
	const batchSize = 256
	todo := make(chan []kwRow, 4)
	done := make(chan []kwRow, 4)
	var workers sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			an := idx.Analyzer()
			for batch := range todo {
				for i := range batch {
					batch[i].doc = an.Analyze(batch[i].content, batch[i].keywords)
					batch[i].content, batch[i].keywords = "", ""
				}
				done <- batch
			}
		}()
	}
	var hw int64
	added := make(chan struct{})
	go func() {
		defer close(added)
		for batch := range done {
			for _, r := range batch {
				idx.PutDoc(r.rid, r.active, r.doc)
				hw = max(hw, r.seq)
			}
		}
	}()

	batch := make([]kwRow, 0, batchSize)
	scanErr := k.p.st.Drawers().Changes(ctx, 0, store.ChangeFields{Text: true}, func(c store.Change) error {
		batch = append(batch, kwRow{rid: c.RID, seq: c.Seq, active: c.Status == StatusActive,
			content: c.Content, keywords: c.Keywords})
		if len(batch) == batchSize {
			todo <- batch
			batch = make([]kwRow, 0, batchSize)
		}
		return nil
	})
	if len(batch) > 0 {
		todo <- batch
	}
	close(todo)
	workers.Wait()
	close(done)
	<-added
	if scanErr != nil {
		return nil, 0, storeErr("keyword index", scanErr)
	}
	idx.Trim()
	return idx, hw, nil
}

// sync returns the index caught up with every committed change, building
// it first when it is not built yet.
func (k *keywordState) sync(ctx context.Context) (*bm25.Index, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.buildLocked(ctx); err != nil {
		return nil, err
	}
	maxSeq, err := k.p.st.Drawers().MaxSeq(ctx)
	if err != nil {
		return nil, storeErr("keyword catch-up", err)
	}
	if maxSeq < k.hw {
		// The store went backwards (restored from a backup): rebuild.
		idx, hw, err := k.build(ctx)
		if err != nil {
			return nil, err
		}
		k.idx, k.hw = idx, hw
		return k.idx, nil
	}
	if maxSeq == k.hw {
		return k.idx, nil
	}
	err = k.p.st.Drawers().Changes(ctx, k.hw, store.ChangeFields{Text: true}, func(c store.Change) error {
		k.idx.Put(c.RID, c.Status == StatusActive, c.Content, c.Keywords)
		k.hw = c.Seq
		return nil
	})
	if err != nil {
		return nil, storeErr("keyword catch-up", err)
	}
	k.hw = max(k.hw, maxSeq)
	return k.idx, nil
}
