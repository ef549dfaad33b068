package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loci-mem/loci/palace/store/sqlstore"
)

// dialect is PostgreSQL's side of sqlstore.Dialect.
type dialect struct {
	// unicodeFold: lower() folds every letter in collation foldWith (a
	// COLLATE clause, or "" for the database's own), and Fold uses it.
	unicodeFold bool
	foldWith    string
}

var _ sqlstore.Dialect = dialect{}

func (dialect) Name() string         { return "postgres" }
func (dialect) Bind(q string) string { return sqlstore.NumberPlaceholders(q) }

// IndexedBy: PostgreSQL takes no hints, and its planner uses statistics
// that SQLite's lacks.
func (dialect) IndexedBy(string) string { return "" }

func (dialect) IsUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Unavailable: the connection failed or broke, or the server is shutting
// down, starting up or out of connections.
func (dialect) Unavailable(err error) bool { return unavailable(err) }

func unavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" ||
			pe.Code == "57P03" || pe.Code == "53300"
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || pgconn.SafeToRetry(err)
}

func (dialect) JSONEach(col, alias string) string {
	return "jsonb_array_elements_text(" + col + "::jsonb) AS " + alias + "(value)"
}

func (dialect) JSONKey(col string) string { return "(" + col + "::jsonb ->> CAST(? AS text))" }
func (dialect) JSONKeyArg(key string) any { return key }

// MetaField is the jsonb value itself: jsonb compares numbers as numbers
// and strings as strings, as SQLite's json_extract values do.
func (dialect) MetaField(col, key string) string { return "(" + col + "::jsonb -> '" + key + "')" }
func (dialect) MetaText(col, key string) string  { return "(" + col + "::jsonb ->> '" + key + "')" }

func (dialect) MetaValue(v any) (string, any) {
	b, _ := json.Marshal(v) // a string, number or boolean
	return "CAST(CAST(? AS text) AS jsonb)", string(b)
}

func (dialect) Contains(col string) string { return "strpos(" + col + ", CAST(? AS text)) > 0" }

// Fold is lower() in ICU's root collation, which folds every letter
// Unicode gives a lower case ("É" as "é"), where the C collation's folds A
// to Z alone; on a server without ICU, lower() in the database's own
// collation when its locale folds every letter (foldCollation); on a
// server with neither (unicodeFold false), A to Z alone.
//
// Text of ASCII alone (as many characters as bytes) takes the C
// collation's, the same for it and cheaper: a speaker filter's scan of
// 100,000 drawers of ASCII names took 90 ms so, 117 ms with ICU on every
// row and 82 ms with A to Z alone (medians of three; names that are not
// ASCII, 124 ms). ICU, or a libc locale, folds a few letters otherwise
// than Go does (a Greek word's last sigma as ς, "İ" as "i̇"), so an
// argument is folded here too (FoldArg), and both sides compare alike.
func (d dialect) Fold(expr string) string {
	if !d.unicodeFold {
		return `lower(` + expr + ` COLLATE "C")`
	}
	return `(CASE WHEN octet_length(` + expr + `) = char_length(` + expr + `) THEN lower(` + expr + ` COLLATE "C") ` +
		`ELSE lower(` + expr + d.foldWith + `) COLLATE "C" END)`
}

// FoldArg is an argument folded as Fold folds text that is not ASCII.
func (d dialect) FoldArg() string {
	if !d.unicodeFold {
		return `lower(CAST(? AS text) COLLATE "C")`
	}
	return `lower(CAST(? AS text)` + d.foldWith + `) COLLATE "C"`
}

// foldCollation is the dialect of the server db reaches: whether, and in
// which collation, lower() folds every letter. ICU's root collation does,
// on a server built with ICU; else the database's own may (a UTF-8 libc
// locale does, C and POSIX do not). Each is tried on capitals of three
// scripts; where neither folds them, Fold folds A to Z alone.
func foldCollation(ctx context.Context, db *sql.DB) (dialect, error) {
	return foldFirst(ctx, db, ` COLLATE "und-x-icu"`, "")
}

// foldFirst is the dialect that folds in the first of the COLLATE clauses
// given ("": the database's own collation) in which lower() folds every
// letter, or A to Z alone where none does.
func foldFirst(ctx context.Context, db *sql.DB, collations ...string) (dialect, error) {
	for _, with := range collations {
		// An error is a server without the collation, or a database
		// whose encoding has no such capitals (LATIN1): neither folds.
		var folds bool
		err := db.QueryRowContext(ctx, `SELECT lower(CAST('ÉΣД' AS text)`+with+`) = 'éσд'`).Scan(&folds)
		if err == nil && folds {
			return dialect{unicodeFold: true, foldWith: with}, nil
		}
	}
	return dialect{}, ctx.Err()
}

func (dialect) PairList(a, b string) string { return "string_agg(" + a + " || ' ' || " + b + ", ' ')" }

// Loaded runs ANALYZE: without statistics, the planner's guesses for a
// table filled moments ago scanned 100k drawers for each key lookup (60 ms
// recalls) until autovacuum got to it. Inside the copy's transaction it
// samples the transaction's own rows.
func (dialect) Loaded(ctx context.Context, q sqlstore.Querier, table string) error {
	_, err := q.ExecContext(ctx, `ANALYZE `+table)
	return err
}

func (dialect) Tables(ctx context.Context, q sqlstore.Querier) ([]string, error) {
	return sqlstore.Strings(ctx, q, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
		AND table_name <> 'schema_migrations' ORDER BY table_name`)
}

// Generated keys come from identity columns, whose sequences PostgreSQL
// names (pg_get_serial_sequence). A sequence is not transactional: a
// rolled-back insert leaves a gap, never a reuse.
func (dialect) LastKey(ctx context.Context, q sqlstore.Querier, table, col string) (int64, error) {
	seq, err := sequenceOf(ctx, q, table, col)
	if err != nil {
		return 0, err
	}
	var last int64
	err = q.QueryRowContext(ctx, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+seq).Scan(&last)
	return last, err
}

func (d dialect) RaiseKey(ctx context.Context, q sqlstore.Querier, table, col string, n int64) error {
	seq, err := sequenceOf(ctx, q, table, col)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `SELECT setval($1, $2)
		WHERE $2 > (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+seq+`)`, seq, n)
	return err
}

// sequenceOf is the qualified name of the sequence behind table.col, as
// PostgreSQL quotes it.
func sequenceOf(ctx context.Context, q sqlstore.Querier, table, col string) (string, error) {
	var seq sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT pg_get_serial_sequence($1, $2)`, table, col).Scan(&seq); err != nil {
		return "", err
	}
	if !seq.Valid {
		return "", fmt.Errorf("%s.%s has no sequence", table, col)
	}
	return seq.String, nil
}
