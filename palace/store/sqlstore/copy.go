package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loci-mem/loci/palace/store"
)

// Tables is implemented by the stores of the backends built on this
// package: it gives Copy the rows underneath the store interface.
type Tables interface {
	// ReadTables runs fn on a querier that sees one consistent state of
	// the palace.
	ReadTables(ctx context.Context, fn func(Querier, Dialect) error) error
	// WriteTables runs fn in one write transaction of the palace (the
	// backend's usual lock), committing when fn returns nil.
	WriteTables(ctx context.Context, fn func(Querier, Dialect) error) error
}

// copyTables are a palace's tables in an order that puts every row a
// foreign key names before the row naming it. Each generated key is
// listed with its column so that the copy's counters continue past the
// source's (a fact number is never handed out twice, in either store).
var copyTables = []copyTable{
	{"palace_meta", ""},
	{"drawers", "rid"},
	{"events", "seq"},
	{"kg_triples", "id"},
	{"session_buffer", "id"},
	{"session_state", ""},
	{"id_counters", ""},
	{"fact_ids", "n"},
	{"review_undo", ""},
	{"dream_runs", ""},
	{"dream_changes", "id"},
	{"dream_lock", ""},
	{"dream_decay", ""},
	{"closets", ""},
	{"request_keys", ""},
}

type copyTable struct{ name, key string }

// CopyStats counts the rows Copy wrote, by table.
type CopyStats map[string]int64

// Copy copies every row of every table of palace src into palace dst,
// which must be empty, keeping every column as it is (row ids, seqs,
// vector keys, fact numbers), in one write transaction of dst: it lands
// whole or not at all. Reading src sees one consistent state. progress,
// when not nil, is called after each batch with the table and the rows
// copied of it so far.
func Copy(ctx context.Context, dst, src store.Store, progress func(table string, rows int64)) (CopyStats, error) {
	d, ok1 := dst.(Tables)
	s, ok2 := src.(Tables)
	if !ok1 || !ok2 {
		return nil, errors.New("copy: both stores must be SQL backends of loci")
	}
	stats := CopyStats{}
	err := d.WriteTables(ctx, func(dq Querier, dd Dialect) error {
		for _, t := range copyTables {
			var n int64
			if err := dq.QueryRowContext(ctx, `SELECT count(*) FROM `+t.name).Scan(&n); err != nil {
				return fmt.Errorf("copy: destination %s: %w", t.name, err)
			}
			if n > 0 {
				return fmt.Errorf("copy: the destination palace is not empty (%d rows in %s): %w", n, t.name, store.ErrConflict)
			}
		}
		return s.ReadTables(ctx, func(sq Querier, sd Dialect) error {
			// A table this list does not know (a migration newer than
			// it) would be left behind: refuse instead.
			have, err := sd.Tables(ctx, sq)
			if err != nil {
				return fmt.Errorf("copy: list the source's tables: %w", err)
			}
			for _, name := range have {
				if !slices.ContainsFunc(copyTables, func(t copyTable) bool { return t.name == name }) {
					return fmt.Errorf("copy: the source has a table %s that this loci does not know how to copy", name)
				}
			}
			for _, t := range copyTables {
				n, err := copyRows(ctx, conn{dq, dd}, sq, t.name, func(n int64) {
					if progress != nil {
						progress(t.name, n)
					}
				})
				stats[t.name] = n
				if err != nil {
					return fmt.Errorf("copy %s: %w", t.name, err)
				}
				if err := dd.Loaded(ctx, dq, t.name); err != nil {
					return fmt.Errorf("copy %s: %w", t.name, err)
				}
				if t.key == "" {
					continue
				}
				last, err := sd.LastKey(ctx, sq, t.name, t.key)
				if err != nil {
					return fmt.Errorf("copy %s: read its key counter: %w", t.name, err)
				}
				if last > 0 {
					if err := dd.RaiseKey(ctx, dq, t.name, t.key, last); err != nil {
						return fmt.Errorf("copy %s: set its key counter: %w", t.name, err)
					}
				}
			}
			return nil
		})
	})
	return stats, err
}

// copyBatchRows and copyBatchBytes bound one multi-row INSERT: well under
// both engines' limit on parameters (32766 in SQLite, 65535 in
// PostgreSQL) for the widest table, and a few megabytes of values.
const (
	copyBatchRows  = 256
	copyBatchBytes = 8 << 20
)

// copyRows streams table's rows from src into dst by column name.
func copyRows(ctx context.Context, dst conn, src Querier, table string, progress func(int64)) (int64, error) {
	rows, err := src.QueryContext(ctx, `SELECT * FROM `+table)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	var (
		batch []any
		size  int
		n     int64
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		k := len(batch) / len(cols)
		one := "(" + placeholders(len(cols)) + ")"
		q := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES ` + one + strings.Repeat(", "+one, k-1)
		if _, err := dst.ExecContext(ctx, q, batch...); err != nil {
			return err
		}
		n += int64(k)
		batch, size = batch[:0], 0
		progress(n)
		return nil
	}
	for rows.Next() {
		vals, err := ScanRow(rows, len(cols))
		if err != nil {
			return n, err
		}
		for _, v := range vals {
			switch x := v.(type) {
			case []byte:
				size += len(x)
			case string:
				size += len(x)
			}
		}
		batch = append(batch, vals...)
		if len(batch)/len(cols) >= copyBatchRows || size >= copyBatchBytes {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// ScanRow reads the current row of rows, n columns, as the driver gives
// them.
func ScanRow(rows *sql.Rows, n int) ([]any, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return vals, rows.Scan(ptrs...)
}
