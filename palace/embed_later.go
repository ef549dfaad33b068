package palace

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

// A long text's vectors take long to make: the built-in encoder reads each
// 50-word passage in about 9 ms of CPU, so a 1,600-word text holds its
// write for a quarter of a second on two cores, a pasted 100 KB file for
// several seconds, and a 4 MiB log for most of a minute — longer than MCP
// clients wait for a tool call. In a long-running process
// (Config.EmbedLater: serve, http) a write embeds at most inlinePassages
// passages of its drawers; a drawer with more is committed without
// vectors, as one whose embedder failed is, and this palace's background
// embedder makes them right after, one drawer at a time. Until then
// keyword search finds it (its keyword passages are indexed with the
// write). Nothing of it depends on the process staying up: a drawer
// without a vector is what the dreamer's index pass and `loci reembed`
// look for (Reembed), and the next long-running process on the palace
// queues what it finds (ResumeEmbedding), so one left by a process that
// stopped first gets its vectors there.

// inlinePassages bounds the vector passages a write embeds before it
// returns: 64 passages (about 1,600 words) take about a quarter of a
// second on the two-core machine the README's figures come from. Turns,
// notes and replies of several paragraphs stay well inside it.
const inlinePassages = 64

// laterEmbeds is the queue of the palace's background embedder.
type laterEmbeds struct {
	mu      sync.Mutex
	ids     []string        // drawers waiting, oldest first
	owned   map[string]bool // those and the one being embedded (Reembed leaves them be)
	running bool            // a goroutine is draining ids
	done    chan struct{}   // closed when that goroutine ends
	closed  bool
	resumed bool // ResumeEmbedding has looked
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// defers reports whether a write should leave d's vectors to the
// background embedder.
func (p *Palace) defers(d *Drawer) bool {
	// A word and the space after it take two bytes at least, so a shorter
	// text cannot hold more passages than the bound: no need to cut it.
	return p.reg.cfg.EmbedLater && len(d.Content) > 2*inlinePassages*VectorPassageStride &&
		len(VectorPassages(d.Content)) > inlinePassages
}

// embedLater queues drawers stored without their vectors and starts the
// background embedder if it is not running.
func (p *Palace) embedLater(ids []string) {
	l := &p.later
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || len(ids) == 0 {
		return
	}
	if l.ctx == nil {
		l.ctx, l.cancel = context.WithCancel(context.Background())
	}
	l.ids = append(l.ids, ids...)
	if l.owned == nil {
		l.owned = map[string]bool{}
	}
	for _, id := range ids {
		l.owned[id] = true
	}
	if !l.running {
		l.running, l.done = true, make(chan struct{})
		l.wg.Add(1)
		go p.drainLater(l.done)
	}
}

func (p *Palace) drainLater(done chan struct{}) {
	l := &p.later
	defer l.wg.Done()
	for {
		l.mu.Lock()
		if len(l.ids) == 0 || l.closed {
			l.running = false
			close(done)
			l.mu.Unlock()
			return
		}
		id := l.ids[0]
		l.ids = l.ids[1:]
		ctx := l.ctx
		l.mu.Unlock()
		start := time.Now()
		err := p.embedStored(withEmbedWorkers(ctx, max(1, runtime.GOMAXPROCS(0)-1)), id)
		l.mu.Lock()
		if !slices.Contains(l.ids, id) { // not queued again meanwhile
			delete(l.owned, id)
		}
		l.mu.Unlock()
		switch {
		case err == nil:
			p.log.Debug().Str("drawer", id).Dur("took", time.Since(start)).Msg("long text embedded in the background")
		case ctx.Err() == nil:
			p.log.Warn().Err(err).Str("drawer", id).Msg("embed a long text in the background; the dreamer's index pass retries")
		}
	}
}

// embeddingLater reports whether the background embedder has drawer id
// queued or in hand: Reembed (the dreamer's index pass) leaves it to it
// rather than embed a long text twice at once.
func (p *Palace) embeddingLater(id string) bool {
	p.later.mu.Lock()
	defer p.later.mu.Unlock()
	return p.later.owned[id]
}

// embedStored makes and stores the vectors of the drawer id as it is now,
// if it still has none. A drawer changed while it was embedded keeps its
// newer state and waits for the next Reembed (storeVectors).
func (p *Palace) embedStored(ctx context.Context, id string) error {
	d, err := p.st.Drawers().Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return storeErr("read drawer", err)
	}
	if d.Status == StatusDeleted || d.Model != "" {
		return nil // forgotten, or embedded by someone else meanwhile
	}
	_, err = p.reembedPage(ctx, []store.VectorTodo{{RID: d.RID, Seq: d.Seq, ID: d.ID, Content: d.Content, Keywords: d.Keywords}})
	return err
}

// maxResume bounds the drawers ResumeEmbedding queues: what a stopped
// process leaves is a few long texts; more than this is a palace some
// other way (an embedder that failed for a while), which the dreamer's
// index pass re-embeds in budgeted batches.
const maxResume = 256

// ResumeEmbedding queues for the background embedder the active drawers
// that have no vector, once in the life of the process: what a process
// that stopped mid-embedding left behind. It does nothing without
// EmbedLater, when the palace's vectors are of another embedder (that is
// `loci reembed`'s work, which searches name), or when more than
// maxResume drawers need one. It returns how many it queued.
// dreamer.Maintain calls it, so it runs with the dreamer's passes off too.
func (p *Palace) ResumeEmbedding(ctx context.Context) (int, error) {
	l := &p.later
	l.mu.Lock()
	looked := l.resumed || l.closed || !p.reg.cfg.EmbedLater
	l.resumed = true
	l.mu.Unlock()
	if looked || p.checkEmbedder(ctx) != nil {
		return 0, nil
	}
	todo, err := p.st.Drawers().NeedingVector(ctx, p.emb.ID(), p.emb.Dim(), true, 0, maxResume+1)
	if err != nil {
		return 0, storeErr("read drawers to embed", err)
	}
	if len(todo) == 0 || len(todo) > maxResume {
		return 0, nil
	}
	ids := make([]string, len(todo))
	for i, t := range todo {
		ids[i] = t.ID
	}
	p.embedLater(ids)
	return len(ids), nil
}

type embedWorkersKey struct{}

// withEmbedWorkers bounds the cores that embedding under ctx uses: the
// background embedder leaves one to the searches and writes that come
// meanwhile.
func withEmbedWorkers(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, embedWorkersKey{}, n)
}

// embedWorkers is how many batches embedDistinct runs at once under ctx:
// GOMAXPROCS unless withEmbedWorkers says fewer.
func embedWorkers(ctx context.Context) int {
	if n, ok := ctx.Value(embedWorkersKey{}).(int); ok && n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// WaitEmbedded waits until the background embedder has nothing left, or
// ctx ends: for a caller that must measure or read a palace whose vectors
// are all made (a test, a benchmark).
func (p *Palace) WaitEmbedded(ctx context.Context) error {
	for {
		p.later.mu.Lock()
		busy, done := p.later.running, p.later.done
		p.later.mu.Unlock()
		if !busy {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-done: // a drawer queued meanwhile starts another run
		}
	}
}

// stopLater cancels the background embedder and waits for it, at most
// laterGrace: a drawer in progress is dropped (nothing of it is stored),
// and those still queued keep no vector for the dreamer or `loci reembed`
// to make. Embedding stops within a batch of passages once cancelled; the
// bound is for an embedder that does not.
func (p *Palace) stopLater() {
	l := &p.later
	l.mu.Lock()
	l.closed = true
	if l.cancel != nil {
		l.cancel()
	}
	l.mu.Unlock()
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(laterGrace):
		p.log.Warn().Msg("background embedder still running at close; its drawer keeps no vector")
	}
}

// laterGrace bounds how long closing a palace waits for its background
// embedder, as the dreamer's shutdown is bounded (dreamer.ShutdownGrace).
const laterGrace = 2 * time.Second
