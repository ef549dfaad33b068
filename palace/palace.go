package palace

import (
	"context"
	"errors"
	"io/fs"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/store"
	"github.com/rs/zerolog"
)

// MaxDescriptionBytes bounds a palace's description.
const MaxDescriptionBytes = 4096

// Palace is one open memory space. It is safe for concurrent use.
type Palace struct {
	reg  *Registry
	name string
	st   store.Store
	kg   *kg.Graph
	log  zerolog.Logger
	now  func() time.Time
	emb  embed.Embedder
	lex  *spelling // the spelling dictionary and its fixes (typos.go); nil: no corrections

	vec    *vectorState
	kw     *keywordState
	qcache *queryCache
	access *accessLog
	conns  connections

	embCheck embedderCheck
	closets  closetCache // recall's closets (closet.go)
	counts   countsCache // drawer counts by seq (read.go)

	stopFollow context.CancelFunc
	following  sync.WaitGroup
	later      laterEmbeds  // long texts' vectors, made in the background
	cutLogged  atomic.Int64 // the engine's cut last logged (noteEngineCut)
	scale      scaleState   // the embedder's cosine scale (scale.go)
	restated   scaleState   // its scale of restatements (scale.go)

	closeOnce sync.Once
	closeErr  error
}

func openPalace(r *Registry, name string, st store.Store) *Palace {
	p := &Palace{
		reg:  r,
		name: name,
		st:   st,
		log:  r.cfg.Logger.With().Str("palace", name).Logger(),
		now:  r.cfg.Now,
		emb:  r.cfg.Embedder,
		lex:  newSpelling(r.cfg.Lexicon),
	}
	p.kg = kg.New(guardedTriples{st, name}, kg.WithNow(r.cfg.Now), kg.WithRedactor(func(s string) string {
		out, _ := Scrub(s)
		return out
	}))
	p.vec = newVectorState(p)
	p.kw = newKeywordState(p)
	p.qcache = newQueryCache(512)
	p.access = &accessLog{pending: map[int64]int64{}}
	if n := removeAbandonedSnapshots(p.Dir(), time.Now()); n > 0 {
		p.log.Info().Int("files", n).Msg("removed the temporary files of snapshots abandoned mid-write")
	}
	p.follow()
	return p
}

// follow starts catching the palace's built indexes up whenever its store
// announces a change (Config.Follow, with a store.Notifier). Close stops
// it.
func (p *Palace) follow() {
	n, ok := p.st.(store.Notifier)
	if !ok || !p.reg.cfg.Follow {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.stopFollow = cancel
	p.following.Add(1)
	go func() {
		defer p.following.Done()
		for range n.Changes(ctx) {
			if p.vec.isLoaded() {
				if _, err := p.vec.sync(ctx); err != nil && ctx.Err() == nil {
					p.log.Debug().Err(err).Msg("follow: vector catch-up")
				}
			}
			if p.kw.ready.Load() {
				if _, err := p.kw.sync(ctx); err != nil && ctx.Err() == nil {
					p.log.Debug().Err(err).Msg("follow: keyword catch-up")
				}
			}
		}
	}()
}

// Name is the palace's name (also its id).
func (p *Palace) Name() string { return p.name }

// Dir is the directory of the palace's derived caches (index snapshots) on
// this machine; with the SQLite backend also of its database.
func (p *Palace) Dir() string { return p.reg.backend.CacheDir(p.name) }

// Store is the palace's store: its records, read and written without
// SQL. Sub-packages of palace (facts, sessions, the archive, the dreamer's
// journal) keep their own records through it; faces use the palace API.
func (p *Palace) Store() store.Store { return p.st }

// KG is the palace's temporal knowledge graph.
func (p *Palace) KG() *kg.Graph { return p.kg }

// Embedder is the embedder this palace makes vectors with.
func (p *Palace) Embedder() embed.Embedder { return p.emb }

// Now reads the palace's clock.
func (p *Palace) Now() time.Time { return p.now() }

// Logger is the palace's logger.
func (p *Palace) Logger() zerolog.Logger { return p.log }

// Registry is the registry that opened the palace.
func (p *Palace) Registry() *Registry { return p.reg }

// Close flushes pending access statistics, saves the index snapshots and
// closes the store. It is safe to call more than once.
func (p *Palace) Close() error {
	p.closeOnce.Do(func() {
		p.stopLater()
		if p.stopFollow != nil {
			p.stopFollow()
			p.following.Wait()
		}
		p.vec.stopBackground()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var errs []error
		if err := p.FlushAccess(ctx); err != nil {
			errs = append(errs, err)
		}
		if err := p.SaveIndex(ctx); err != nil {
			if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
				p.log.Debug().Err(err).Msg("save index snapshots: cache dir not writable")
			} else {
				p.log.Warn().Err(err).Msg("save index snapshots")
			}
		}
		if err := p.st.Close(); err != nil {
			errs = append(errs, err)
		}
		p.closeErr = errors.Join(errs...)
	})
	return p.closeErr
}

// Meta keys of the palace itself.
const (
	metaName        = "name"
	metaDescription = "description"
	metaCreatedAt   = "created_at"
)

func (p *Palace) initMeta(ctx context.Context, description string) error {
	now := p.now().UTC()
	return storeErr("write palace metadata", store.Write(ctx, p.st, func(tx store.Tx) error {
		for k, v := range map[string]string{metaName: p.name, metaDescription: description,
			metaCreatedAt: strconv.FormatInt(now.UnixMilli(), 10), metaEmbedder: embedderRecord(p.emb.ID(), p.emb.Dim()),
			metaVectorPassages: vectorLayout} {
			if err := tx.Meta().SetDefault(ctx, k, v); err != nil {
				return err
			}
		}
		return nil
	}))
}

// Description is the palace's free-text description (its L0 identity).
func (p *Palace) Description(ctx context.Context) (string, error) {
	v, _, err := p.st.Meta().Get(ctx, metaDescription)
	return v, storeErr("read description", err)
}

// SetDescription replaces the palace's description.
func (p *Palace) SetDescription(ctx context.Context, description string) error {
	if len(description) > MaxDescriptionBytes {
		return Invalidf("description is %d bytes; the limit is %d", len(description), MaxDescriptionBytes)
	}
	if err := allow(ctx, p.name, AccessWrite); err != nil {
		return err
	}
	description, _ = Scrub(description)
	return storeErr("write description", store.Write(ctx, p.st, func(tx store.Tx) error {
		return tx.Meta().Set(ctx, metaDescription, description)
	}))
}

// Info describes a palace: identity, size and health.
type Info struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	DrawerCount int64            `json:"drawer_count"`
	DataDir     string           `json:"data_dir"`
	Description string           `json:"description"`
	CreatedAt   time.Time        `json:"created_at,omitzero"`
	ByKind      map[string]int64 `json:"by_kind"`
	ByStatus    map[string]int64 `json:"by_status"`
	Rooms       map[string]int64 `json:"rooms"`
	Triples     int64            `json:"kg_active_triples"`
	LastSeq     int64            `json:"last_seq"`
	Index       IndexInfo        `json:"index"`
	// KeywordIndex is the in-memory BM25 index (keyword.go).
	KeywordIndex KeywordIndexInfo `json:"keyword_index"`
	// Closets are the dreamer's per-room keyword and summary indexes
	// (closet.go); absent until the dreamer has run.
	Closets []Closet `json:"closets,omitempty"`
}

// Info gathers the palace's metadata and counts. DrawerCount counts active
// drawers, the ones recall can return.
func (p *Palace) Info(ctx context.Context) (Info, error) {
	in := Info{ID: p.name, Name: p.name, DataDir: p.Dir()}
	meta, err := p.st.Meta().All(ctx)
	if err != nil {
		return in, storeErr("palace info", err)
	}
	in.Description = meta[metaDescription]
	if n, err := strconv.ParseInt(meta[metaCreatedAt], 10, 64); err == nil {
		in.CreatedAt = time.UnixMilli(n).UTC()
	}
	c, err := p.Counts(ctx)
	if err != nil {
		return in, err
	}
	in.ByStatus, in.ByKind, in.Rooms = c.ByStatus, c.ByKind, c.ByRoom
	in.DrawerCount = in.ByStatus[StatusActive]
	if st, err := p.kg.Stats(ctx); err == nil {
		in.Triples = int64(st.Active)
	}
	if in.LastSeq, err = p.st.Log().LastSeq(ctx); err != nil {
		return in, storeErr("palace info", err)
	}
	in.Index = p.IndexInfo()
	in.KeywordIndex = p.kw.info()
	if cs, err := p.Closets(ctx); err == nil && len(cs) > 0 {
		in.Closets = cs
	}
	return in, nil
}

// StoreBytes is the bytes the palace's records take on its store's server
// (ok false for a store whose records are files in the palace's directory,
// which Dir's size already counts).
func (p *Palace) StoreBytes(ctx context.Context) (n int64, ok bool, err error) {
	sz, ok := p.st.(store.Sizer)
	if !ok {
		return 0, false, nil
	}
	n, err = sz.Size(ctx)
	return n, true, storeErr("store size", err)
}
