package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/loci-mem/loci/palace/store"
)

// texts rewrites and erases the free text of a palace's tables other than
// drawers (store.TextWriter).
type texts struct{ c conn }

// textTable is where a text set lives: its table, its key column (an
// integer key is paged in numeric order) and its text columns.
type textTable struct {
	table, key string
	intKey     bool
	cols       []textCol
}

type textCol struct {
	name     string
	json     bool
	nullable bool
}

var textTables = map[store.TextSet]textTable{
	store.TextMeta:          {"palace_meta", "key", false, []textCol{{name: "value"}}},
	store.TextEvents:        {"events", "seq", true, []textCol{{name: "detail", json: true}}},
	store.TextMessages:      {"session_buffer", "id", true, []textCol{{name: "message", json: true}}},
	store.TextSessionErrors: {"session_state", "session_id", false, []textCol{{name: "last_error"}}},
	store.TextDreamRuns:     {"dream_runs", "id", false, []textCol{{name: "report", json: true}}},
	store.TextDreamChanges:  {"dream_changes", "id", true, []textCol{{name: "before", json: true}, {name: "after", json: true}}},
	store.TextClosets:       {"closets", "room", false, []textCol{{name: "keywords", json: true}, {name: "summary"}}},
	store.TextTriples: {"kg_triples", "id", true, []textCol{{name: "subject"}, {name: "predicate"},
		{name: "object"}, {name: "provenance", nullable: true}}},
}

func (x texts) Rewrite(ctx context.Context, set store.TextSet, after string, limit int,
	fn func(text string, json bool) (string, bool)) (string, int, error) {
	t, ok := textTables[set]
	if !ok {
		return "", 0, fmt.Errorf("rewrite text: unknown set %q", set)
	}
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
		if c.nullable {
			names[i] = "COALESCE(" + c.name + ", '')"
		}
	}
	where, args := ``, []any{}
	switch {
	case t.intKey && after != "":
		n, err := strconv.ParseInt(after, 10, 64)
		if err != nil {
			return "", 0, fmt.Errorf("rewrite %s: key %q is not a number", t.table, after)
		}
		where, args = ` WHERE `+t.key+` > ?`, append(args, n)
	case after != "":
		where, args = ` WHERE `+t.key+` > ?`, append(args, after)
	}
	rows, err := x.c.QueryContext(ctx, `SELECT `+t.key+`, `+strings.Join(names, ", ")+` FROM `+t.table+
		where+` ORDER BY `+t.key+` LIMIT ?`, append(args, limit)...)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", t.table, err)
	}
	type update struct {
		key  any
		vals []string
	}
	var todo []update
	last := ""
	for rows.Next() {
		var key any
		var ik int64
		var sk string
		vals := make([]string, len(t.cols))
		dest := []any{&sk}
		if t.intKey {
			dest = []any{&ik}
		}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return "", 0, fmt.Errorf("read %s: %w", t.table, err)
		}
		key, last = sk, sk
		if t.intKey {
			key, last = ik, strconv.FormatInt(ik, 10)
		}
		changed := false
		for i, c := range t.cols {
			if v, ok := fn(vals[i], c.json); ok && v != vals[i] {
				vals[i], changed = v, true
			}
		}
		if changed {
			todo = append(todo, update{key, vals})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", 0, fmt.Errorf("read %s: %w", t.table, err)
	}
	set1 := make([]string, len(t.cols))
	for i, c := range t.cols {
		set1[i] = c.name + ` = ?`
	}
	q := `UPDATE ` + t.table + ` SET ` + strings.Join(set1, ", ") + ` WHERE ` + t.key + ` = ?`
	for _, u := range todo {
		args := make([]any, 0, len(u.vals)+1)
		for _, v := range u.vals {
			args = append(args, v)
		}
		if _, err := x.c.ExecContext(ctx, q, append(args, u.key)...); err != nil {
			return "", 0, fmt.Errorf("rewrite %s: %w", t.table, err)
		}
	}
	return last, len(todo), nil
}

func (x texts) EraseDrawer(ctx context.Context, id, room string) (int64, error) {
	var total int64
	for _, s := range []struct {
		what, q string
		args    []any
	}{
		{"events", `UPDATE events SET detail = '{}' WHERE drawer_id = ? AND detail <> '{}'`, []any{id}},
		{"dream changes", `UPDATE dream_changes SET before = '{}', after = '{}', undone = 1
			WHERE drawer_id = ? AND (before <> '{}' OR after <> '{}' OR undone = 0)`, []any{id}},
		{"undo tokens", `DELETE FROM review_undo WHERE drawer_id = ?`, []any{id}},
		{"closet", `DELETE FROM closets WHERE room = ?`, []any{room}},
	} {
		res, err := x.c.ExecContext(ctx, s.q, s.args...)
		if err != nil {
			return total, fmt.Errorf("erase %s of drawer: %w", s.what, err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}
