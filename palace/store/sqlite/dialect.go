package sqlite

import (
	"context"

	"github.com/loci-mem/loci/palace/store/sqlstore"
)

// dialect is SQLite's side of sqlstore.Dialect.
type dialect struct{}

var _ sqlstore.Dialect = dialect{}

func (dialect) Name() string              { return "sqlite" }
func (dialect) Bind(q string) string      { return q }
func (dialect) IsUnique(err error) bool   { return isUnique(err) }
func (dialect) Unavailable(error) bool    { return false } // a file is always there
func (dialect) JSONKey(col string) string { return "json_extract(" + col + ", ?)" }
func (dialect) JSONKeyArg(key string) any { return `$."` + key + `"` }
func (dialect) Contains(col string) string {
	return "instr(" + col + ", ?) > 0"
}

// Fold calls Go's strings.ToLower, registered on every connection
// (foldFunc), where SQLite's lower() folds A to Z alone in a build
// without ICU, as this one is. Text of ASCII alone (as many characters
// as bytes) is folded by lower(), the same for it: a call into Go for
// each row made a speaker filter's scan of 100,000 drawers six times
// slower (15 ms to 93 ms), this 1.6 times (24 ms).
func (dialect) Fold(expr string) string {
	return "(CASE WHEN length(" + expr + ") = length(CAST(" + expr + " AS BLOB)) THEN lower(" + expr + ") ELSE " + foldFunc + "(" + expr + ") END)"
}

// FoldArg calls Go once a query: the function is deterministic, so
// SQLite computes it of a constant once.
func (dialect) FoldArg() string { return foldFunc + "(CAST(? AS text))" }

// IndexedBy: SQLite's planner needs the hint on the paths measured to
// matter (the comments at each query say by how much).
func (dialect) IndexedBy(name string) string {
	if name == "" {
		return " NOT INDEXED"
	}
	return " INDEXED BY " + name
}

func (dialect) JSONEach(col, alias string) string { return "json_each(" + col + ") AS " + alias }

// MetaField is json_extract, which gives a JSON number, string or boolean
// as the SQL value it is, so it compares with a plain argument.
func (dialect) MetaField(col, key string) string {
	return `json_extract(` + col + `, '$."` + key + `"')`
}
func (d dialect) MetaText(col, key string) string { return d.MetaField(col, key) }
func (dialect) MetaValue(v any) (string, any)     { return "?", v }

// PairList is group_concat: one string instead of a row per drawer, which
// through database/sql costs ~0.4 µs each.
func (dialect) PairList(a, b string) string {
	return "group_concat(" + a + " || ' ' || " + b + ", ' ')"
}

// Loaded does nothing: the queries that need an index name it.
func (dialect) Loaded(context.Context, sqlstore.Querier, string) error { return nil }

func (dialect) Tables(ctx context.Context, q sqlstore.Querier) ([]string, error) {
	return sqlstore.Strings(ctx, q, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name`)
}

// Generated keys: an AUTOINCREMENT table (events, fact_ids,
// session_buffer) keeps its highest key in sqlite_sequence, even after
// its row is gone; a plain INTEGER PRIMARY KEY continues from the largest
// row id. LastKey takes the larger of the two, and RaiseKey records n in
// sqlite_sequence, which a plain rowid table ignores (its next key
// follows its rows).
func (dialect) LastKey(ctx context.Context, q sqlstore.Querier, table, col string) (int64, error) {
	var last int64
	err := q.QueryRowContext(ctx, `SELECT max(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?), 0),
		COALESCE((SELECT max(`+col+`) FROM `+table+`), 0))`, table).Scan(&last)
	return last, err
}

func (dialect) RaiseKey(ctx context.Context, q sqlstore.Querier, table, col string, n int64) error {
	if _, err := q.ExecContext(ctx, `UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?`, n, table); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `INSERT INTO sqlite_sequence(name, seq) SELECT ?, ?
		WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)`, table, n, table)
	return err
}
