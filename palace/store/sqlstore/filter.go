package sqlstore

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

// Filters compile to an SQL condition over the drawers table aliased d.

var scalarCols = map[string]string{
	"id": "d.id", "kind": "d.kind", "room": "d.room", "status": "d.status",
	"user_id": "d.user_id", "agent_id": "d.agent_id", "session_id": "d.session_id",
	"parent_id": "d.parent_id", "content": "d.content",
	"importance": "d.importance", "confidence": "d.confidence",
}

var timeCols = map[string]string{
	"timestamp": "d.ts", "created_at": "d.created_at", "updated_at": "d.updated_at",
}

var arrayCols = map[string]string{"tag": "d.tags", "sender_id": "d.sender_ids"}

// compileFilter renders f as an SQL condition over alias d in dialect dl.
func compileFilter(dl Dialect, f store.Filter) (string, []any, error) {
	var conds []string
	var args []any
	add := func(c string, a ...any) { conds = append(conds, c); args = append(args, a...) }

	switch {
	case f.AllStatuses():
	case len(f.Statuses) == 0:
		add("d.status = 'active'")
	default:
		for _, s := range f.Statuses {
			if !store.ValidStatus(s) {
				return "", nil, store.Invalidf("unknown status %q", s)
			}
		}
		add("d.status IN ("+placeholders(len(f.Statuses))+")", toAny(f.Statuses)...)
	}
	if len(f.Kinds) > 0 {
		add("d.kind IN ("+placeholders(len(f.Kinds))+")", toAny(f.Kinds)...)
	}
	if f.Room != "" {
		add("d.room = ?", f.Room)
	}
	for _, t := range f.Tags {
		add("EXISTS (SELECT 1 FROM "+dl.JSONEach("d.tags", "je")+" WHERE je.value = ?)", t)
	}
	if f.UserID != "" {
		add("d.user_id = ?", f.UserID)
	}
	if f.AgentID != "" {
		add("d.agent_id = ?", f.AgentID)
	}
	if f.SessionID != "" {
		add("d.session_id = ?", f.SessionID)
	}
	if len(f.IDs) > 0 {
		add("d.id IN ("+placeholders(len(f.IDs))+")", toAny(f.IDs)...)
	}
	if !f.Since.IsZero() {
		add("d.ts >= ?", f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		add("d.ts < ?", f.Until.UnixMilli())
	}
	if f.Where != nil {
		c, a, err := compilePred(dl, *f.Where, 0)
		if err != nil {
			return "", nil, err
		}
		add(c, a...)
	}
	if len(conds) == 0 {
		return "1=1", nil, nil
	}
	return strings.Join(conds, " AND "), args, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

var sqlOps = map[string]string{"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}

func compilePred(dl Dialect, p store.Pred, depth int) (string, []any, error) {
	if depth > 32 {
		return "", nil, store.Invalidf("filter nests deeper than 32 levels")
	}
	if len(p.And) > 0 || len(p.Or) > 0 {
		if p.Field != "" {
			return "", nil, store.Invalidf("a filter node cannot be both a combinator and a comparison")
		}
		var parts []string
		var args []any
		for _, g := range []struct {
			list   []store.Pred
			joiner string
		}{{p.And, " AND "}, {p.Or, " OR "}} {
			if len(g.list) == 0 {
				continue
			}
			sub := make([]string, 0, len(g.list))
			for _, c := range g.list {
				s, a, err := compilePred(dl, c, depth+1)
				if err != nil {
					return "", nil, err
				}
				sub = append(sub, s)
				args = append(args, a...)
			}
			parts = append(parts, "("+strings.Join(sub, g.joiner)+")")
		}
		return "(" + strings.Join(parts, " AND ") + ")", args, nil
	}
	if p.Field == "" {
		return "", nil, store.Invalidf("filter node has no field")
	}
	if p.Fold && arrayCols[p.Field] == "" {
		return "", nil, store.Invalidf("a folded comparison is for tag and sender_id, not %q", p.Field)
	}
	switch {
	case strings.HasPrefix(p.Field, "meta."):
		key := strings.TrimPrefix(p.Field, "meta.")
		if key == "" || strings.ContainsAny(key, `"'$.[]\`) {
			return "", nil, store.Invalidf("bad meta field %q", p.Field)
		}
		if p.Op == "contains" {
			return compareExpr(dl, dl.MetaText("d.meta", key), p, valueScalar)
		}
		return compareExpr(dl, dl.MetaField("d.meta", key), p, valueMeta)
	case timeCols[p.Field] != "":
		return compareExpr(dl, timeCols[p.Field], p, valueTime)
	case scalarCols[p.Field] != "":
		return compareExpr(dl, scalarCols[p.Field], p, valueScalar)
	case arrayCols[p.Field] != "":
		var args []any
		switch p.Op {
		case "eq", "contains", "ne":
			if err := checkScalar(p); err != nil {
				return "", nil, err
			}
			args = []any{p.Value}
		case "in", "nin":
			vals, err := listValue(p)
			if err != nil {
				return "", nil, err
			}
			args = vals
		default:
			return "", nil, store.Invalidf("operator %q is not supported for %s", p.Op, p.Field)
		}
		elem, list := "je.value", placeholders(len(args))
		if p.Fold {
			// Both sides fold in SQL, by one function, so that they
			// compare alike whatever the database's encoding.
			if err := stringArgs(args); err != nil {
				return "", nil, err
			}
			folded := make([]string, len(args))
			for i := range folded {
				folded[i] = dl.FoldArg()
			}
			elem, list = dl.Fold(elem), strings.Join(folded, ", ")
		}
		c := "EXISTS (SELECT 1 FROM " + dl.JSONEach(arrayCols[p.Field], "je") + " WHERE " + elem + " IN (" + list + "))"
		if p.Op == "ne" || p.Op == "nin" {
			c = "NOT " + c
		}
		return c, args, nil
	default:
		return "", nil, store.Invalidf("unknown filter field %q", p.Field)
	}
}

// stringArgs checks that args, the values a folded comparison compares
// with, are strings.
func stringArgs(args []any) error {
	for _, a := range args {
		if _, ok := a.(string); !ok {
			return store.Invalidf("a folded comparison needs strings, got %T", a)
		}
	}
	return nil
}

type valueKind int

const (
	valueScalar valueKind = iota
	valueTime
	valueMeta // a value inside the meta object (Dialect.MetaValue)
)

func compareExpr(dl Dialect, col string, p store.Pred, kind valueKind) (string, []any, error) {
	ph := "?"
	conv := func(v any) (any, error) {
		if kind == valueTime {
			t, ok := v.(time.Time)
			if !ok {
				return nil, store.Invalidf("%s needs a time value, got %T", p.Field, v)
			}
			return t.UnixMilli(), nil
		}
		switch x := v.(type) {
		case string, bool, int, int64, float64:
			if f, ok := x.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				return nil, store.Invalidf("%s: not a finite number", p.Field)
			}
			if kind == valueMeta {
				var arg any
				ph, arg = dl.MetaValue(x)
				return arg, nil
			}
			return x, nil
		default:
			return nil, store.Invalidf("%s: unsupported value type %T", p.Field, v)
		}
	}
	switch p.Op {
	case "eq", "ne", "gt", "gte", "lt", "lte":
		v, err := conv(p.Value)
		if err != nil {
			return "", nil, err
		}
		return col + " " + sqlOps[p.Op] + " " + ph, []any{v}, nil
	case "in", "nin":
		raw, err := listValue(p)
		if err != nil {
			return "", nil, err
		}
		vals := make([]any, len(raw))
		for i, r := range raw {
			if vals[i], err = conv(r); err != nil {
				return "", nil, err
			}
		}
		not := ""
		if p.Op == "nin" {
			not = "NOT "
		}
		list := ph + strings.Repeat(","+ph, len(vals)-1)
		return col + " " + not + "IN (" + list + ")", vals, nil
	case "contains":
		s, ok := p.Value.(string)
		if !ok || kind == valueTime {
			return "", nil, store.Invalidf("contains on %s needs a string", p.Field)
		}
		return dl.Contains(col), []any{s}, nil
	default:
		return "", nil, store.Invalidf("unknown operator %q", p.Op)
	}
}

func checkScalar(p store.Pred) error {
	switch p.Value.(type) {
	case string, int, int64, float64, bool:
		return nil
	}
	return store.Invalidf("%s %s needs a scalar value, got %T", p.Field, p.Op, p.Value)
}

func listValue(p store.Pred) ([]any, error) {
	switch v := p.Value.(type) {
	case []any:
		if len(v) == 0 {
			return nil, store.Invalidf("%s %s needs a non-empty list", p.Field, p.Op)
		}
		return v, nil
	case []string:
		if len(v) == 0 {
			return nil, store.Invalidf("%s %s needs a non-empty list", p.Field, p.Op)
		}
		return toAny(v), nil
	default:
		return nil, store.Invalidf("%s %s needs a list, got %s", p.Field, p.Op, fmt.Sprintf("%T", p.Value))
	}
}
