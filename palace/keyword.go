package palace

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loci-mem/loci/palace/bm25"
)

// keywordState is a palace's in-memory BM25 index (package bm25): a
// derived cache of the drawers' text, like the vector index. It is built
// from SQLite by WarmIndex, or in the background after the first search in
// a long-running process (Config.LongLived), and caught up from the seq
// high-water mark before each search.
// Until it is warm, keyword search asks FTS5, which ranks the same way:
// the index reproduces FTS5's tokens and bm25() (see bm25's tests), without
// FTS5's cost of about a microsecond per matching drawer.
type keywordState struct {
	p *Palace

	mu    sync.Mutex // serialises build and catch-up
	idx   *bm25.Index
	hw    int64 // highest drawers.seq the index reflects
	ready atomic.Bool

	inMemory, viaFTS5 atomic.Int64 // keyword searches served by each

	background sync.Once // the build started by a search (Config.LongLived)
}

// warmInBackground starts building the index once, without waiting.
func (k *keywordState) warmInBackground() {
	k.background.Do(func() {
		go func() {
			if err := k.warm(context.Background()); err != nil {
				k.p.log.Debug().Err(err).Msg("keyword index build")
			}
		}()
	})
}

// KeywordIndexInfo reports the state of the in-memory keyword index.
type KeywordIndexInfo struct {
	Loaded   bool  `json:"loaded"`
	Drawers  int   `json:"drawers"`
	Terms    int   `json:"terms"`
	CaughtUp int64 `json:"caught_up_seq"`
	// Searches served from memory and by FTS5 (before the index was built,
	// or for phrase queries) since the palace was opened.
	MemorySearches int64 `json:"memory_searches"`
	FTS5Searches   int64 `json:"fts5_searches"`
}

func (k *keywordState) info() KeywordIndexInfo {
	in := KeywordIndexInfo{MemorySearches: k.inMemory.Load(), FTS5Searches: k.viaFTS5.Load()}
	if !k.ready.Load() {
		return in
	}
	k.mu.Lock()
	idx, hw := k.idx, k.hw
	k.mu.Unlock()
	in.Loaded, in.Drawers, in.Terms, in.CaughtUp = true, idx.Len(), idx.Terms(), hw
	return in
}

// ftsWeights are the column weights of bm25(drawers_fts, ...): content,
// keywords.
var ftsWeights = []float64{1.0, 0.5}

func newKeywordState(p *Palace) *keywordState { return &keywordState{p: p} }

// warm builds the index if it is not built yet.
func (k *keywordState) warm(ctx context.Context) error {
	if k.ready.Load() {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
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
// high-water mark is the largest seq read: one SELECT sees one snapshot,
// and any later change has a larger seq.
func (k *keywordState) build(ctx context.Context) (*bm25.Index, int64, error) {
	idx := bm25.New(ftsWeights...)
	rows, err := k.p.db.QueryContext(ctx, `SELECT rid, seq, status, content, keywords FROM drawers`)
	if err != nil {
		return nil, 0, internal("keyword index", err)
	}
	defer rows.Close()

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

	var scanErr error
	batch := make([]kwRow, 0, batchSize)
	for rows.Next() {
		var r kwRow
		var status string
		if scanErr = rows.Scan(&r.rid, &r.seq, &status, &r.content, &r.keywords); scanErr != nil {
			break
		}
		r.active = status == StatusActive
		batch = append(batch, r)
		if len(batch) == batchSize {
			todo <- batch
			batch = make([]kwRow, 0, batchSize)
		}
	}
	if len(batch) > 0 {
		todo <- batch
	}
	close(todo)
	workers.Wait()
	close(done)
	<-added
	if scanErr == nil {
		scanErr = rows.Err()
	}
	if scanErr != nil {
		return nil, 0, internal("keyword index", scanErr)
	}
	idx.Trim()
	return idx, hw, nil
}

// sync returns the index caught up with every committed change, or nil
// when it is not built (the caller then uses FTS5).
func (k *keywordState) sync(ctx context.Context) (*bm25.Index, error) {
	if !k.ready.Load() {
		return nil, nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	maxSeq, err := k.p.drawerSeq(ctx)
	if err != nil {
		return nil, internal("keyword catch-up", err)
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
	rows, err := k.p.db.QueryContext(ctx, `SELECT seq, rid, status, content, keywords FROM drawers
		WHERE seq > ? ORDER BY seq`, k.hw)
	if err != nil {
		return nil, internal("keyword catch-up", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq, rid int64
		var status, content, keywords string
		if err := rows.Scan(&seq, &rid, &status, &content, &keywords); err != nil {
			return nil, internal("keyword catch-up", err)
		}
		k.idx.Put(rid, status == StatusActive, content, keywords)
		k.hw = seq
	}
	if err := rows.Err(); err != nil {
		return nil, internal("keyword catch-up", err)
	}
	k.hw = max(k.hw, maxSeq)
	return k.idx, nil
}

// singleTokens reports whether every query term is one token. A term of
// several ("memory_recall_deep", "fact_horizon") is a phrase to FTS5,
// matched only where its tokens are adjacent; the in-memory index keeps no
// positions, so such queries go to FTS5.
func singleTokens(terms []string) bool {
	for _, t := range terms {
		n := 0
		bm25.EachToken(t, func([]byte) { n++ })
		if n > 1 {
			return false
		}
	}
	return true
}
