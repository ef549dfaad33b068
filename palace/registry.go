package palace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/redact"
	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/postgres"
	"github.com/loci-mem/loci/palace/store/sqlite"
	"github.com/rs/zerolog"
)

// Config configures a Registry.
type Config struct {
	// DataDir is loci's home: with the default backend palaces live in
	// DataDir/palaces/<name>/. Empty means DefaultDataDir().
	DataDir string
	// Backend is where palaces are kept. Nil means the one Store names.
	Backend store.Backend
	// Store names where palaces are kept when Backend is nil: empty for
	// SQLite files under DataDir (store/sqlite), or a postgres:// URL for
	// a database a team shares (store/postgres); then DataDir holds this
	// machine's caches of it (index snapshots), under cache/postgres/.
	Store string
	// Embedder makes the vectors of new drawers and queries. Nil means the
	// deterministic feature-hashing embedder.
	Embedder embed.Embedder
	// Lexicon is the spelling dictionary a misspelt word is corrected
	// against when a text is indexed and a query searched (typos.go). Nil means
	// embed.DefaultLexicon(): the built-in encoder's vocabulary when the
	// program links palace/embed/builtin, else none (and none when the
	// environment sets LOCI_TYPOS=0, for comparisons).
	Lexicon embed.Lexicon
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
	// Sync is SQLite's synchronous setting for the default backend:
	// "NORMAL" (default; survives a killed process) or "FULL" (also
	// survives power loss).
	Sync string
	// OnOpen, when set, is called once for every palace the registry opens
	// (the dreamer uses it to start per-palace work).
	OnOpen func(*Palace)
	// EmbedLater leaves the vectors of a drawer with more than a few dozen
	// vector passages (a pasted file, a long log) to a background
	// embedder, so that the write returns at once (embed_later.go).
	// Long-running processes (serve, http) set it; a short-lived command
	// embeds everything before it returns.
	EmbedLater bool
	// Follow keeps each open palace's indexes caught up in the background
	// when its store announces other processes' (other nodes') changes
	// (store.Notifier: PostgreSQL's LISTEN/NOTIFY), so the next search
	// finds nothing left to replay. Long-running processes (serve, http)
	// set it; searches catch up by themselves either way.
	Follow bool
	// Graph configures the approximate vector index built over large
	// palaces (palace/index: loci's HNSW over int8 codes). The zero value
	// takes the defaults, which build it above ~100M multiply-adds per
	// exact scan (100k drawers of 996 dimensions); Min < 0 never builds
	// one.
	Graph index.GraphConfig
	// Extractor turns buffered conversation into episodes, atomic facts,
	// profiles and agent cases (AppendMessages, FlushSession). Nil means
	// extract.Heuristic().
	Extractor extract.Extractor
}

// DefaultDataDir returns $LOCI_HOME, else $XDG_DATA_HOME/loci, else
// ~/.local/share/loci.
func DefaultDataDir() (string, error) {
	if d := os.Getenv("LOCI_HOME"); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "loci"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "loci"), nil
}

// Registry finds, creates and opens the palaces of one backend. Each
// palace is opened once per Registry and shared by every caller.
type Registry struct {
	cfg     Config
	backend store.Backend
	owned   bool // the registry opened backend and closes it

	mu     sync.Mutex
	open   map[string]*Palace
	closed bool
}

// OpenRegistry prepares the backend (by default the SQLite data dir,
// created if needed and checked writable), so that a bad configuration
// fails at boot rather than on first use.
func OpenRegistry(cfg Config) (*Registry, error) {
	if cfg.DataDir == "" {
		d, err := DefaultDataDir()
		if err != nil {
			return nil, err
		}
		cfg.DataDir = d
	}
	abs, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir %q: %w", cfg.DataDir, err)
	}
	cfg.DataDir = abs
	if cfg.Embedder == nil {
		cfg.Embedder = embed.NewHash(embed.HashDim)
	}
	if cfg.Lexicon == nil && os.Getenv("LOCI_TYPOS") != "0" { // 0: off, for comparisons
		cfg.Lexicon = embed.DefaultLexicon()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Registry{cfg: cfg, backend: cfg.Backend, open: map[string]*Palace{}}
	if r.backend == nil {
		if r.backend, err = openStore(cfg.Store, abs, cfg.Sync); err != nil {
			return nil, err
		}
		r.owned = true
	}
	return r, nil
}

// storeConnectTimeout bounds connecting to a store server at start.
const storeConnectTimeout = 30 * time.Second

// OpenBackend opens the palaces at where: a postgres:// URL (with this
// machine's caches of it under dataDir), or else a SQLite data directory
// (where itself). `loci migrate` opens its two ends with it.
func OpenBackend(where, dataDir string) (store.Backend, error) {
	if postgres.IsURL(where) || strings.Contains(where, "://") {
		return openStore(where, dataDir, "") // a URL of another kind is refused there
	}
	abs, err := filepath.Abs(where)
	if err != nil {
		return nil, fmt.Errorf("data dir %q: %w", where, err)
	}
	return openStore("", abs, "")
}

// openStore opens the backend Config.Store names.
func openStore(where, dataDir, sync string) (store.Backend, error) {
	switch {
	case where == "":
		return sqlite.Open(dataDir, sqlite.Options{Sync: sync})
	case postgres.IsURL(where):
		ctx, cancel := context.WithTimeout(context.Background(), storeConnectTimeout)
		defer cancel()
		b, err := postgres.Open(ctx, where, postgres.Options{CacheDir: filepath.Join(dataDir, "cache", "postgres")})
		if err != nil {
			return nil, err
		}
		return b, nil
	default:
		return nil, fmt.Errorf("store %q: want a postgres:// or postgresql:// URL (SQLite palaces live in the data dir: leave the store empty)", postgres.RedactURL(where))
	}
}

// Backend is where the registry's palaces are kept.
func (r *Registry) Backend() store.Backend { return r.backend }

// DataDir is the registry's absolute data directory.
func (r *Registry) DataDir() string { return r.cfg.DataDir }

// Embedder is the embedder new vectors are made with.
func (r *Registry) Embedder() embed.Embedder { return r.cfg.Embedder }

// Extractor is the extractor sessions (and fact harvest) use: the
// configured one, else extract.Heuristic().
func (r *Registry) Extractor() extract.Extractor {
	if r.cfg.Extractor != nil {
		return r.cfg.Extractor
	}
	return extract.Heuristic()
}

// Now returns the registry's clock reading.
func (r *Registry) Now() time.Time { return r.cfg.Now() }

// ValidateName reports whether name is safe as a palace name: 1 to 200
// bytes of ASCII letters, digits, '.', '_' and '-', starting with a letter,
// a digit or '_', and neither "." nor "..".
func ValidateName(name string) error {
	if name == "" {
		return Invalidf("palace name is empty")
	}
	if len(name) > 200 {
		return Invalidf("palace name is %d bytes; the limit is 200", len(name))
	}
	if name == "." || name == ".." {
		return Invalidf("palace name %q is not allowed", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			(i > 0 && (c == '.' || c == '-'))
		if !ok {
			return Invalidf("palace name %q is not a safe directory name: use letters, digits, '.', '_' and '-' (not first)", truncate(name, 60))
		}
	}
	// A name is public (a directory, lists, logs, metrics): one that holds
	// a credential is refused, and not echoed.
	if redact.Contains(name) {
		return Invalidf("palace name looks like a credential (an access token or key); choose another name")
	}
	return nil
}

// Exists reports whether a palace of that name exists.
func (r *Registry) Exists(name string) bool {
	if ValidateName(name) != nil {
		return false
	}
	ok, err := r.backend.Exists(context.Background(), name)
	return err == nil && ok
}

// List returns the names of every palace, sorted.
func (r *Registry) List() ([]string, error) {
	all, err := r.backend.Names(context.Background())
	if err != nil {
		return nil, internal("list palaces", err)
	}
	names := make([]string, 0, len(all))
	for _, n := range all {
		if ValidateName(n) == nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Create makes a new palace. It fails with CodeConflict if one of that name
// exists already.
func (r *Registry) Create(ctx context.Context, name, description string) (*Palace, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if err := allow(ctx, name, AccessAdmin); err != nil {
		return nil, err
	}
	if len(description) > MaxDescriptionBytes {
		return nil, Invalidf("description is %d bytes; the limit is %d", len(description), MaxDescriptionBytes)
	}
	description, _ = Scrub(description) // as SetDescription does
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, internal("create palace", errors.New("registry closed"))
	}
	st, err := r.backend.Create(ctx, name)
	if errors.Is(err, store.ErrConflict) {
		return nil, Conflictf("palace %q already exists", name)
	}
	if err != nil {
		return nil, storeErr("create palace "+name, err)
	}
	p := openPalace(r, name, st)
	if err := p.initMeta(ctx, description); err != nil {
		p.Close()
		return nil, err
	}
	r.open[name] = p
	r.notifyOpen(p)
	return p, nil
}

// Open returns the named palace, opening it on first use. It fails with
// CodeNotFound if the palace does not exist.
func (r *Registry) Open(ctx context.Context, name string) (*Palace, error) {
	return r.get(ctx, name, false)
}

// OpenOrCreate returns the named palace, creating it if it does not exist.
func (r *Registry) OpenOrCreate(ctx context.Context, name string) (*Palace, error) {
	return r.get(ctx, name, true)
}

func (r *Registry) get(ctx context.Context, name string, create bool) (*Palace, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if err := allow(ctx, name, AccessRead); err != nil {
		return nil, err
	}
	r.mu.Lock()
	if p, ok := r.open[name]; ok {
		r.mu.Unlock()
		return p, nil
	}
	r.mu.Unlock()
	exists, err := r.backend.Exists(ctx, name)
	if err != nil {
		return nil, storeErr(fmt.Sprintf("open palace %q", name), err)
	}
	if !exists {
		if !create {
			return nil, NotFoundf("palace %q does not exist", name)
		}
		p, err := r.Create(ctx, name, "")
		if err == nil || !errors.Is(err, ErrConflict) {
			return p, err
		}
		// Lost a race with another creator: open theirs.
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, internal("open palace", errors.New("registry closed"))
	}
	if p, ok := r.open[name]; ok {
		return p, nil
	}
	st, err := r.backend.Open(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFoundf("palace %q does not exist", name)
	}
	if err != nil {
		return nil, storeErr(fmt.Sprintf("open palace %q", name), err)
	}
	p := openPalace(r, name, st)
	r.open[name] = p
	r.notifyOpen(p)
	return p, nil
}

func (r *Registry) notifyOpen(p *Palace) {
	if r.cfg.OnOpen != nil {
		r.cfg.OnOpen(p)
	}
}

// Opened returns the palaces this registry has open now.
func (r *Registry) Opened() []*Palace {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Palace, 0, len(r.open))
	for _, p := range r.open {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Close closes every open palace. The registry cannot be used afterwards.
func (r *Registry) Close() error {
	r.mu.Lock()
	ps := r.open
	r.open = map[string]*Palace{}
	r.closed = true
	r.mu.Unlock()
	var errs []error
	for _, p := range ps {
		if err := p.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if r.owned {
		if err := r.backend.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
