// Package postgres is the PostgreSQL store backend: one database holds
// many palaces for many loci nodes. Each palace is a schema of its own
// (its tables are SQLite's, in PostgreSQL's types: migrations/), listed in
// the catalog table loci.palaces; the SQL behind the readers and writers
// is sqlstore's, spoken in this package's dialect. The driver is
// jackc/pgx, through database/sql.
//
// Writers of one palace are serialised by a transaction-level advisory
// lock taken at Begin, on every node, so the change log's seq is handed
// out in commit order and a read-check-write inside one transaction
// cannot interleave with another node's. Every write transaction sends a
// NOTIFY on the palace's channel as it commits; Changes listens to it, so
// other nodes catch their indexes up without polling.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlstore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// IsURL reports whether s names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite data directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Options configure a Backend.
type Options struct {
	// CacheDir is the directory on this node where palaces' derived
	// caches (index snapshots) live: a directory per database under it,
	// and one per palace under that. Required.
	CacheDir string
	// MaxConns bounds each open palace's connection pool; 0 means 8.
	MaxConns int
}

// Backend is one PostgreSQL database of palaces.
type Backend struct {
	cfg      *pgx.ConnConfig
	location string // the URL without its password
	catalog  *sql.DB
	cacheDir string
	maxConns int
	dl       dialect // the server's: which collations it has
}

var _ store.Backend = (*Backend)(nil)

// catalogLock is the advisory lock key that serialises creating the
// catalog and palaces.
const catalogLock int64 = 0x6c6f6369 // "loci"

// Open connects to the database at rawURL and creates loci's catalog
// (schema loci) if it is not there. A server that cannot be reached is an
// error wrapping store.ErrUnavailable.
func Open(ctx context.Context, rawURL string, o Options) (*Backend, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store URL: %w", err)
	}
	if o.CacheDir == "" {
		return nil, errors.New("postgres store: no cache directory for index snapshots")
	}
	cacheDir, err := filepath.Abs(o.CacheDir)
	if err != nil {
		return nil, err
	}
	// Each database gets a cache directory of its own, named by where it
	// is, so that two stores never share snapshots.
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	cacheDir = filepath.Join(cacheDir, fmt.Sprintf("%s-%08x", cleanName(cfg.Database, 20), h.Sum32()))
	b := &Backend{cfg: cfg, location: RedactURL(rawURL), cacheDir: cacheDir, maxConns: o.MaxConns}
	if b.maxConns <= 0 {
		b.maxConns = 8
	}
	// The catalog's tables (palaces, access tokens) live in schema loci.
	catCfg := cfg.Copy()
	catCfg.RuntimeParams["search_path"] = "loci"
	b.catalog = stdlib.OpenDB(*catCfg)
	b.catalog.SetMaxOpenConns(4)
	if err := b.initCatalog(ctx); err != nil {
		b.catalog.Close()
		return nil, fmt.Errorf("postgres store %s: %w", b.location, sqlstore.Mark(dialect{}, err))
	}
	if b.dl, err = foldCollation(ctx, b.catalog); err != nil {
		b.catalog.Close()
		return nil, fmt.Errorf("postgres store %s: %w", b.location, sqlstore.Mark(dialect{}, err))
	}
	return b, nil
}

// RedactURL drops the password from a URL, for messages and logs.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

func (b *Backend) initCatalog(ctx context.Context) error {
	return b.inCatalogTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS loci;
			CREATE TABLE IF NOT EXISTS palaces (
				name        text COLLATE "C" PRIMARY KEY,
				schema_name text NOT NULL UNIQUE,
				created_at  bigint NOT NULL
			);
			`+strings.ReplaceAll(sqlstore.TokensSchema, "BYTES", "bytea"))
		return err
	})
}

// Tokens keeps the team's access tokens in the catalog (loci.access_tokens),
// so that every node accepts the same ones.
func (b *Backend) Tokens(ctx context.Context) (store.TokenStore, error) {
	return sqlstore.NewTokens(b.catalog, dialect{}), nil
}

// inCatalogTx runs fn in a transaction holding the catalog lock.
func (b *Backend) inCatalogTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := b.catalog.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, catalogLock); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Kind is "postgres".
func (b *Backend) Kind() string { return "postgres" }

// Location is the database URL without its password.
func (b *Backend) Location() string { return b.location }

// CacheDir is the palace's directory under the node's cache directory.
func (b *Backend) CacheDir(name string) string { return filepath.Join(b.cacheDir, cacheName(name)) }

// cacheName is the directory name of a palace's index snapshots on this
// node. The catalog tells "Notes" from "notes" but the node's file system
// may not (store.PortableDirName), and one palace must never load
// another's snapshot, so a name that is not portable is written in lower
// case with its dots as '_' (Windows reads "nul.x" as a device), then '@'
// and a hash of the exact name; no palace name holds '@', so no two
// palaces share a directory on any file system. Snapshots are caches: a node whose palace
// moves to its new directory rebuilds them from the store.
func cacheName(name string) string {
	if store.PortableDirName(name) {
		return name
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	return fmt.Sprintf("%s@%016x", strings.ReplaceAll(strings.ToLower(name), ".", "_"), h.Sum64())
}

// Names lists the palaces in the catalog.
func (b *Backend) Names(ctx context.Context) ([]string, error) {
	rows, err := b.catalog.QueryContext(ctx, `SELECT name FROM loci.palaces ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list palaces: %w", sqlstore.Mark(dialect{}, err))
	}
	defer rows.Close()
	names := []string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list palaces: %w", err)
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// Exists reports whether the catalog lists the palace.
func (b *Backend) Exists(ctx context.Context, name string) (bool, error) {
	_, err := b.schemaOf(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (b *Backend) schemaOf(ctx context.Context, name string) (string, error) {
	var schema string
	err := b.catalog.QueryRowContext(ctx, `SELECT schema_name FROM loci.palaces WHERE name = $1`, name).Scan(&schema)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("palace %q: %w", name, store.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("palace %q: %w", name, sqlstore.Mark(dialect{}, err))
	}
	return schema, nil
}

// schemaName is the schema that holds palace name: "loci_", the name's
// letters and digits (lower case, at most 40), "_" and a hash of the whole
// name, so that names differing only in other characters do not collide.
func schemaName(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("loci_%s_%08x", cleanName(name, 40), h.Sum32())
}

// cleanName is s in lower case with every byte but letters and digits
// made "_", cut to n bytes.
func cleanName(s string, n int) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b[:min(n, len(b))])
}

// lockKey is the advisory lock of a palace's writers.
func lockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("loci:" + schema))
	return int64(h.Sum64())
}

// Create makes the palace's schema and tables and lists it in the
// catalog, all in one transaction: a create that fails leaves nothing.
func (b *Backend) Create(ctx context.Context, name string) (store.Store, error) {
	schema := schemaName(name)
	err := b.inCatalogTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM loci.palaces WHERE name = $1`, name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("palace %q: %w", name, store.ErrConflict)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO loci.palaces(name, schema_name, created_at) VALUES ($1, $2, $3)`,
			name, schema, time.Now().UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
			return err
		}
		return migrate(ctx, tx, schema)
	})
	if err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, err
		}
		return nil, fmt.Errorf("create palace %q: %w", name, sqlstore.Mark(dialect{}, err))
	}
	return b.Open(ctx, name)
}

// Open opens a palace: a connection pool whose search_path is the
// palace's schema, after applying any migration the schema lacks.
func (b *Backend) Open(ctx context.Context, name string) (store.Store, error) {
	schema, err := b.schemaOf(ctx, name)
	if err != nil {
		return nil, err
	}
	// The node's caches of the palace (index snapshots) go here. A node
	// that cannot write them (a read-only data dir) still serves the
	// palace: it builds its indexes from the store, and each snapshot it
	// fails to write is logged where it is written.
	_ = os.MkdirAll(b.CacheDir(name), 0o700)
	cfg := b.cfg.Copy()
	cfg.RuntimeParams["search_path"] = schema
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(b.maxConns)
	db.SetMaxIdleConns(b.maxConns)
	s := &Store{Reader: sqlstore.NewReader(db, b.dl), db: db, b: b, name: name, schema: schema, lock: lockKey(schema)}
	tx, err := db.BeginTx(ctx, nil)
	if err == nil {
		defer tx.Rollback()
		if _, err = tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, s.lock); err == nil {
			if err = migrate(ctx, tx, schema); err == nil {
				err = tx.Commit()
			}
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open palace %q: %w", name, sqlstore.Mark(dialect{}, err))
	}
	return s, nil
}

// Close closes the catalog's connections: stores it opened must be
// closed first.
func (b *Backend) Close() error { return b.catalog.Close() }

// migrate applies, in schema, every embedded migration not yet recorded
// in its schema_migrations, inside tx (PostgreSQL's DDL is
// transactional: a migration applies whole or not at all).
func migrate(ctx context.Context, tx *sql.Tx, schema string) error {
	if _, err := tx.ExecContext(ctx, `SET LOCAL search_path TO `+schema); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name text COLLATE "C" PRIMARY KEY, applied_at bigint NOT NULL)`); err != nil {
		return err
	}
	done, err := sqlstore.Strings(ctx, tx, `SELECT name FROM schema_migrations`)
	if err != nil {
		return err
	}
	applied := map[string]bool{}
	for _, n := range done {
		applied[n] = true
	}
	entries, err := migrationFS.ReadDir("migrations")
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		if applied[n] {
			continue
		}
		body, err := migrationFS.ReadFile("migrations/" + n)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return fmt.Errorf("migration %s: %w", n, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(name, applied_at) VALUES ($1, $2)`,
			n, time.Now().UnixMilli()); err != nil {
			return err
		}
	}
	return nil
}
