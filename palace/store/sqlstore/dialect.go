package sqlstore

import (
	"context"
	"strconv"
	"strings"
)

// Dialect is what differs between the SQL engines a backend speaks. The
// queries of this package are written once, with ? placeholders and the
// SQL that SQLite and PostgreSQL share (RETURNING, ON CONFLICT, substr on
// a blob, CASE); the few places where they part ways ask the dialect.
type Dialect interface {
	// Name is the engine: "sqlite" or "postgres".
	Name() string
	// Bind rewrites a query's ? placeholders into the engine's own.
	Bind(query string) string
	// IsUnique reports a unique or primary-key violation.
	IsUnique(err error) bool
	// Unavailable reports an error that means the server cannot be
	// reached (it is restarting, the connection broke); the operation
	// may be retried.
	Unavailable(err error) bool
	// IndexedBy is the hint after a table name that makes the planner
	// use index name ("" when the engine plans well alone or takes no
	// hints). An empty name asks for no index: a scan in row order.
	IndexedBy(name string) string
	// JSONEach is a FROM item listing the elements of the JSON array in
	// text column col, as alias.value.
	JSONEach(col, alias string) string
	// JSONKey is an expression with one placeholder: the value of a
	// top-level key of the JSON object in text column col, as text (NULL
	// when absent). JSONKeyArg is the argument that names key.
	JSONKey(col string) string
	JSONKeyArg(key string) any
	// MetaField is the value of top-level key of the JSON object in text
	// column col, in a form that compares with MetaValue; MetaText is the
	// same value as text. key has no quotes, dots or brackets.
	MetaField(col, key string) string
	MetaText(col, key string) string
	// MetaValue is the placeholder and argument a scalar compares with
	// MetaField through.
	MetaValue(v any) (placeholder string, arg any)
	// Contains is a condition with one placeholder: text column col
	// contains the argument.
	Contains(col string) string
	// Fold is text expression expr in lower case: each letter Unicode
	// gives a lower case letter of its own ("É" as "é", "Σ" as "σ"), every
	// other character as it is (SQLite's as Go's strings.ToLower writes
	// it, PostgreSQL's as the server can: ICU's root locale, else a UTF-8
	// database locale, else A to Z alone). expr has no placeholder (it may
	// be read more than once); FoldArg is an argument folded alike, one
	// placeholder.
	Fold(expr string) string
	FoldArg() string
	// PairList is an aggregate of two integer columns into one string:
	// "a1 b1 a2 b2 …" (NULL when no rows).
	PairList(a, b string) string
	// LastKey is the highest key the engine ever generated for column col
	// of table (0: none): a fact number, an event's seq. It and RaiseKey
	// run their own SQL on q, unbound.
	LastKey(ctx context.Context, q Querier, table, col string) (int64, error)
	// RaiseKey makes keys generated later for table.col exceed n.
	RaiseKey(ctx context.Context, q Querier, table, col string, n int64) error
	// Tables lists the palace's tables as the engine's catalog has them
	// (not the migrations' bookkeeping), sorted.
	Tables(ctx context.Context, q Querier) ([]string, error)
	// Loaded tells the engine that table was just filled in bulk (Copy),
	// so that its planner has statistics before the first query.
	Loaded(ctx context.Context, q Querier, table string) error
}

// Strings runs query and returns its one text column: the names a
// dialect's Tables lists, the migrations a schema has applied.
func Strings(ctx context.Context, q Querier, query string) ([]string, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// placeholders is n comma-separated ? placeholders.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?,", n-1) + "?"
}

// NumberPlaceholders rewrites ? placeholders as $1, $2 … (PostgreSQL's
// form) and ?NNN as $NNN, leaving string literals, quoted identifiers and
// comments alone. A query mixes the two forms only as SQLite allows.
func NumberPlaceholders(q string) string {
	if strings.IndexByte(q, '?') < 0 {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch c {
		case '\'', '"':
			j := i + 1
			for j < len(q) && q[j] != c {
				j++
			}
			if j >= len(q) {
				j = len(q) - 1
			}
			b.WriteString(q[i : j+1])
			i = j
		case '-':
			if i+1 < len(q) && q[i+1] == '-' {
				j := strings.IndexByte(q[i:], '\n')
				if j < 0 {
					j = len(q) - i
				}
				b.WriteString(q[i : i+j])
				i += j - 1
				continue
			}
			b.WriteByte(c)
		case '?':
			b.WriteByte('$')
			if i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9' {
				continue // ?NNN: the same parameter, $NNN
			}
			n++
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
