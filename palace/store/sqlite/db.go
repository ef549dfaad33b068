package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlstore"
	sqlite3 "github.com/mattn/go-sqlite3"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// driverName is SQLite as loci opens it: go-sqlite3 with the functions
// loci's queries call registered on every connection (foldFunc).
const driverName = "sqlite3_loci"

// foldFunc is the SQL function Dialect.Fold calls: its text in lower case
// as Go's strings.ToLower writes it (every letter Unicode gives one lower
// case letter), where SQLite's own lower() folds A to Z alone.
const foldFunc = "loci_fold"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		return c.RegisterFunc(foldFunc, strings.ToLower, true)
	}})
}

// dsn builds the SQLite connection string for a palace file: WAL journal,
// immediate write transactions (so concurrent writers queue on the busy
// timeout instead of failing on lock upgrade), foreign keys on, and the
// space of deleted and rewritten rows zeroed as it is freed (secure_delete),
// so that text a palace erased does not linger in its free pages.
func dsn(path string, sync string) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", "15000")
	q.Set("_txlock", "immediate")
	q.Set("_foreign_keys", "on")
	q.Set("_secure_delete", "on")
	q.Set("_synchronous", sync)
	q.Set("_cache_size", "-16000")
	// Keep prepared statements per connection: preparing the recall path's
	// half-dozen queries cost ~0.5 ms per recall at 100k drawers.
	q.Set("_stmt_cache_size", "64")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// openDB opens (creating if asked) the SQLite file and applies every embedded
// migration not yet recorded in schema_migrations, each in its own
// transaction. Migrations are applied in file-name order; several processes
// may race here safely because each migration re-checks under the write lock.
func openDB(ctx context.Context, path, sync string) (*sql.DB, error) {
	// Switching a new file to WAL needs an exclusive lock, and SQLite does
	// not wait on the busy timeout for it: a process opening a palace while
	// another creates it can see "database is locked". Retry briefly.
	deadline := time.Now().Add(15 * time.Second)
	for attempt := 0; ; attempt++ {
		db, err := openDBOnce(ctx, path, sync)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return db, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(10+attempt*20) * time.Millisecond):
		}
	}
}

func isBusy(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked
	}
	return err != nil && (strings.Contains(err.Error(), "database is locked") || strings.Contains(err.Error(), "SQLITE_BUSY"))
}

// isUnique reports a UNIQUE or PRIMARY KEY constraint failure.
func isUnique(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
	}
	return false
}

func openDBOnce(ctx context.Context, path, sync string) (*sql.DB, error) {
	db, err := sql.Open(driverName, dsn(path, sync))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// goMigrations are migrations that SQL alone cannot express, applied in
// name order with the SQL files.
var goMigrations = map[string]func(ctx context.Context, tx *sql.Tx) error{
	"0500_drop_fts": dropFTS,
}

func migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL DEFAULT (unixepoch()))`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := migrationNames()
	if err != nil {
		return err
	}

	done, err := sqlstore.Strings(ctx, db, `SELECT name FROM schema_migrations`)
	if err != nil {
		return err
	}
	applied := map[string]bool{}
	for _, n := range done {
		applied[n] = true
	}

	for _, name := range names {
		if applied[name] {
			continue
		}
		apply := goMigrations[name]
		if apply == nil {
			body, err := migrationFS.ReadFile("migrations/" + name)
			if err != nil {
				return err
			}
			apply = func(ctx context.Context, tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, string(body))
				return err
			}
		}
		if err := applyMigration(ctx, db, name, apply); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

// migrationNames lists every migration, SQL and Go, in the order applied.
func migrationNames() ([]string, error) {
	entries, err := migrationFS.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries)+len(goMigrations))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, e.Name())
		}
	}
	for name := range goMigrations {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

func applyMigration(ctx context.Context, db *sql.DB, name string, apply func(context.Context, *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 { // another process got here first
		return nil
	}
	if err := apply(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(name) VALUES (?)`, name); err != nil {
		return err
	}
	return tx.Commit()
}

// dropFTS removes the FTS5 index palaces created before migration 0500
// kept over the drawers (loci's keyword index is now its own, in memory
// and snapshotted). Dropping a virtual table needs its module, and a build
// without the sqlite_fts5 tag has none: then the shadow tables (ordinary
// tables) are dropped and the virtual table's schema row deleted, with the
// schema cookie bumped so other connections reload the schema.
func dropFTS(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{
		`DROP TRIGGER IF EXISTS drawers_fts_ai`,
		`DROP TRIGGER IF EXISTS drawers_fts_ad`,
		`DROP TRIGGER IF EXISTS drawers_fts_au`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS drawers_fts`)
	if err == nil || !strings.Contains(err.Error(), "no such module") {
		return err
	}
	for _, shadow := range []string{"data", "idx", "docsize", "config", "content"} {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS drawers_fts_`+shadow); err != nil {
			return err
		}
	}
	var cookie int64
	if err := tx.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&cookie); err != nil {
		return err
	}
	for _, q := range []string{
		`PRAGMA writable_schema = ON`,
		`DELETE FROM sqlite_master WHERE type = 'table' AND name = 'drawers_fts'`,
		`PRAGMA writable_schema = OFF`,
		fmt.Sprintf(`PRAGMA schema_version = %d`, cookie+1),
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// openReadOnly opens a palace whose directory cannot be written. SQLite
// needs to create the WAL's shared-memory file to read a WAL database, so
// when it is absent (a cleanly closed palace) the file is opened immutable:
// nothing can change it while the directory stays read-only. A palace that
// lacks a migration cannot be upgraded here, and says so.
func openReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", "15000")
	if _, err := os.Stat(path + "-shm"); err != nil {
		q.Set("immutable", "1")
	}
	db, err := sql.Open(driverName, "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	done, err := sqlstore.Strings(ctx, db, `SELECT name FROM schema_migrations`)
	if err != nil {
		db.Close()
		return nil, err
	}
	applied := map[string]bool{}
	for _, n := range done {
		applied[n] = true
	}
	names, err := migrationNames()
	if err != nil {
		db.Close()
		return nil, err
	}
	for _, n := range names {
		if !applied[n] {
			db.Close()
			return nil, fmt.Errorf("it needs migration %s, which cannot run in a read-only data dir: %w", n, store.ErrReadOnly)
		}
	}
	return db, nil
}
