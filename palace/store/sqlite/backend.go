// Package sqlite is the SQLite store backend: one database file per
// palace (WAL, write transactions that start IMMEDIATE so writers in
// several processes queue instead of failing) and its embedded
// migrations. The SQL behind the readers and writers is package
// sqlstore's, spoken in this package's dialect. It is the only package
// that opens SQLite files (a test in the repository root enforces it).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlstore"
)

// dbFile is a palace's database inside its directory.
const dbFile = "palace.db"

// Options configure a Backend.
type Options struct {
	// Sync is SQLite's synchronous setting: "NORMAL" (the default;
	// survives a killed process) or "FULL" (also survives power loss).
	Sync string
}

// Backend keeps each palace in its own directory under
// <data dir>/palaces/<name>/, as one SQLite file in WAL mode (palace.db);
// the palace's derived caches live in the same directory.
type Backend struct {
	dataDir  string
	root     string // dataDir/palaces
	sync     string
	readOnly bool // the data dir cannot be written: palaces open for reading only

	tokensMu sync.Mutex
	tokensDB *sql.DB // access.db, opened on first use

	spelt sync.Map // palace name → fs.FileInfo of its directory, found listed under that name (names.go)
}

var _ store.Backend = (*Backend)(nil)

// Open prepares the data directory (creating it if needed) and checks that
// it is writable, so that a bad data directory fails at start rather than
// on first use. A data directory that exists but cannot be written (a
// read-only mount, another user's files) opens read-only: its palaces can
// be read and searched, and every write fails with store.ErrReadOnly.
func Open(dataDir string, o Options) (*Backend, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir %q: %w", dataDir, err)
	}
	sync := strings.ToUpper(o.Sync)
	switch sync {
	case "":
		sync = "NORMAL"
	case "NORMAL", "FULL", "EXTRA":
	default:
		return nil, fmt.Errorf("sync mode %q: want NORMAL or FULL", o.Sync)
	}
	root := filepath.Join(abs, "palaces")
	b := &Backend{dataDir: abs, root: root, sync: sync}
	if err := os.MkdirAll(root, 0o700); err != nil {
		if fi, serr := os.Stat(root); serr == nil && fi.IsDir() && readOnlyErr(err) {
			b.readOnly = true
			return b, nil
		}
		return nil, fmt.Errorf("data dir %q is not usable: %w", abs, err)
	}
	probe, err := os.CreateTemp(root, ".probe-*")
	if err != nil {
		if readOnlyErr(err) {
			b.readOnly = true
			return b, nil
		}
		return nil, fmt.Errorf("data dir %q is not writable: %w", abs, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return b, nil
}

// readOnlyErr reports a failure to write because of permissions or a
// read-only file system.
func readOnlyErr(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// ReadOnly reports whether the data dir could not be written when the
// backend opened.
func (b *Backend) ReadOnly() bool { return b.readOnly }

// Kind is "sqlite".
func (b *Backend) Kind() string { return "sqlite" }

// Location is the data directory.
func (b *Backend) Location() string { return b.dataDir }

// CacheDir is the palace's own directory: its snapshots sit beside its
// database.
func (b *Backend) CacheDir(name string) string { return filepath.Join(b.root, name) }

func (b *Backend) path(name string) string { return filepath.Join(b.root, name, dbFile) }

// Names lists the palaces: directories holding a database.
func (b *Backend) Names(ctx context.Context) ([]string, error) {
	entries, err := os.ReadDir(b.root)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list palaces: %w", err)
	}
	names := []string{}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if _, err := os.Stat(b.path(e.Name())); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Exists reports whether the palace's database exists.
func (b *Backend) Exists(ctx context.Context, name string) (bool, error) {
	if err := b.checkName(name); err != nil {
		return false, err
	}
	_, err := os.Stat(b.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Create makes the palace's directory and database. The database is built
// under a temporary name and renamed into place once every migration has
// run, so a create that fails halfway (a full disk) leaves no palace
// behind. Files are readable by their owner only.
func (b *Backend) Create(ctx context.Context, name string) (store.Store, error) {
	if b.readOnly {
		return nil, fmt.Errorf("create palace %q: data dir %q: %w", name, b.dataDir, store.ErrReadOnly)
	}
	if err := windowsName(name, runtime.GOOS); err != nil {
		return nil, err
	}
	dir := b.CacheDir(name)
	// Mkdir (not MkdirAll) is the atomic claim: two creators race, one
	// wins. A directory without a database is a crashed create: adopt it.
	made := true
	if err := os.Mkdir(dir, 0o700); errors.Is(err, fs.ErrExist) {
		made = false
	} else if err != nil {
		return nil, fmt.Errorf("create palace %q: %w", name, err)
	}
	if err := b.sameSpelling(name); err != nil { // the directory is another palace's, or its spelling won a race
		if made {
			os.Remove(dir)
		}
		return nil, err
	}
	if ok, _ := b.Exists(ctx, name); ok {
		return nil, fmt.Errorf("palace %q: %w", name, store.ErrConflict)
	}
	tmp, err := os.CreateTemp(dir, ".create-*.db")
	if err != nil {
		return nil, fmt.Errorf("create palace %q: %w", name, err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	cleanup := func() {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(tmpPath + suffix)
		}
	}
	db, err := openDB(ctx, tmpPath, b.sync)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("create palace %q: %w", name, err)
	}
	// A clean close checkpoints the WAL into the file and removes it, so
	// the renamed file is the whole database.
	if err := db.Close(); err != nil {
		cleanup()
		return nil, fmt.Errorf("create palace %q: %w", name, err)
	}
	if err := os.Link(tmpPath, b.path(name)); err != nil {
		cleanup()
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("palace %q: %w", name, store.ErrConflict)
		}
		return nil, fmt.Errorf("create palace %q: %w", name, err)
	}
	cleanup()
	syncDir(dir)
	return b.Open(ctx, name)
}

// Open opens an existing palace's database, applying any migration it
// lacks.
func (b *Backend) Open(ctx context.Context, name string) (store.Store, error) {
	if err := b.checkName(name); err != nil {
		return nil, err
	}
	path := b.path(name)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("palace %q: %w", name, store.ErrNotFound)
	}
	if b.readOnly {
		db, err := openReadOnly(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("open palace %q read-only: %w", name, err)
		}
		return &Store{Reader: sqlstore.NewReader(db, dialect{}), db: db, name: name, path: path, readOnly: true}, nil
	}
	ownerOnly(path)
	db, err := openDB(ctx, path, b.sync)
	if err != nil {
		return nil, fmt.Errorf("open palace %q: %w", name, err)
	}
	return &Store{Reader: sqlstore.NewReader(db, dialect{}), db: db, name: name, path: path}, nil
}

// accessFile holds the data dir's access tokens, beside the palaces.
const accessFile = "access.db"

// Tokens keeps access tokens in <data dir>/access.db, opened (and created)
// on first use. A read-only data dir without one has no tokens.
func (b *Backend) Tokens(ctx context.Context) (store.TokenStore, error) {
	b.tokensMu.Lock()
	defer b.tokensMu.Unlock()
	if b.tokensDB == nil {
		path := filepath.Join(b.dataDir, accessFile)
		if b.readOnly {
			if _, err := os.Stat(path); err != nil {
				return noTokens{}, nil
			}
			db, err := openReadOnly(ctx, path)
			if err != nil {
				return nil, fmt.Errorf("access tokens: %w", err)
			}
			b.tokensDB = db
		} else {
			db, err := sql.Open(driverName, dsn(path, b.sync))
			if err == nil {
				_, err = db.ExecContext(ctx, strings.ReplaceAll(sqlstore.TokensSchema, "BYTES", "BLOB"))
				if err != nil {
					db.Close()
				}
			}
			if err != nil {
				return nil, fmt.Errorf("access tokens: %w", err)
			}
			ownerOnly(path)
			b.tokensDB = db
		}
	}
	return sqlstore.NewTokens(b.tokensDB, dialect{}), nil
}

// noTokens is the token store of a read-only data dir that has none.
type noTokens struct{}

func (noTokens) PutToken(context.Context, store.Token) error { return store.ErrReadOnly }
func (noTokens) Token(context.Context, string) (store.Token, error) {
	return store.Token{}, fmt.Errorf("token: %w", store.ErrNotFound)
}
func (noTokens) Tokens(context.Context) ([]store.Token, error)        { return []store.Token{}, nil }
func (noTokens) RevokeToken(context.Context, string, time.Time) error { return store.ErrReadOnly }
func (noTokens) TouchToken(context.Context, string, time.Time) error  { return nil }

// Close closes the access-token file: each Store owns its database.
func (b *Backend) Close() error {
	b.tokensMu.Lock()
	defer b.tokensMu.Unlock()
	if b.tokensDB != nil {
		err := b.tokensDB.Close()
		b.tokensDB = nil
		return err
	}
	return nil
}

// ownerOnly makes a palace's files readable by their owner only (releases
// before this one created them 0644). The WAL and shared-memory files SQLite
// makes later take the database file's mode.
func ownerOnly(path string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil && fi.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(path+suffix, fi.Mode().Perm()&0o700)
		}
	}
}

// syncDir makes a rename or link in dir durable (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
