package palace

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Filter selects drawers before any ranking. The zero Filter selects every
// active drawer.
type Filter struct {
	Kinds     []string
	Statuses  []string // nil means active only; use AnyStatus for all
	Room      string   // normalised with NormalizeRoom
	Tags      []string // every tag must be present
	UserID    string
	AgentID   string
	SessionID string
	IDs       []string
	Since     time.Time // event time >= Since
	Until     time.Time // event time < Until
	Where     *Pred     // an arbitrary predicate tree (the faces' filter DSLs)
}

// AnyStatus is a Statuses value that selects drawers of every status.
var AnyStatus = []string{"*"}

// Pred is a predicate tree over drawer fields. A node is either a
// combinator (And or Or, non-empty) or a comparison (Field, Op, Value).
//
// Fields: id, kind, room, status, user_id, agent_id, session_id, parent_id,
// content, timestamp, created_at, updated_at, importance, confidence,
// tag (membership in tags), sender_id (membership in sender_ids) and
// meta.<key> (a top-level key of the meta object).
//
// Ops: eq, ne, in, nin, gt, gte, lt, lte, contains (substring for text
// fields). Time fields take time.Time values; membership fields accept eq,
// ne, in and nin.
type Pred struct {
	And   []Pred
	Or    []Pred
	Field string
	Op    string
	Value any
}

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

// compile renders the filter as an SQL condition over alias d.
func (f Filter) compile() (string, []any, error) {
	var conds []string
	var args []any
	add := func(c string, a ...any) { conds = append(conds, c); args = append(args, a...) }

	switch {
	case len(f.Statuses) == 1 && f.Statuses[0] == "*":
	case len(f.Statuses) == 0:
		add("d.status = 'active'")
	default:
		for _, s := range f.Statuses {
			if !validStatus[s] {
				return "", nil, Invalidf("unknown status %q", s)
			}
		}
		add("d.status IN ("+placeholders(len(f.Statuses))+")", toAny(f.Statuses)...)
	}
	if len(f.Kinds) > 0 {
		add("d.kind IN ("+placeholders(len(f.Kinds))+")", toAny(f.Kinds)...)
	}
	if f.Room != "" {
		add("d.room = ?", NormalizeRoom(f.Room))
	}
	for _, t := range f.Tags {
		add("EXISTS (SELECT 1 FROM json_each(d.tags) WHERE json_each.value = ?)", t)
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
		c, a, err := f.Where.compile(0)
		if err != nil {
			return "", nil, err
		}
		add(c, a...)
	}
	if len(conds) == 0 {
		return "1", nil, nil
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

func (p Pred) compile(depth int) (string, []any, error) {
	if depth > 32 {
		return "", nil, Invalidf("filter nests deeper than 32 levels")
	}
	if len(p.And) > 0 || len(p.Or) > 0 {
		if p.Field != "" {
			return "", nil, Invalidf("a filter node cannot be both a combinator and a comparison")
		}
		var parts []string
		var args []any
		for _, g := range []struct {
			list   []Pred
			joiner string
		}{{p.And, " AND "}, {p.Or, " OR "}} {
			if len(g.list) == 0 {
				continue
			}
			sub := make([]string, 0, len(g.list))
			for _, c := range g.list {
				s, a, err := c.compile(depth + 1)
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
		return "", nil, Invalidf("filter node has no field")
	}
	switch {
	case strings.HasPrefix(p.Field, "meta."):
		key := strings.TrimPrefix(p.Field, "meta.")
		if key == "" || strings.ContainsAny(key, `"'$.[]\`) {
			return "", nil, Invalidf("bad meta field %q", p.Field)
		}
		return compareExpr(`json_extract(d.meta, '$."`+key+`"')`, p, valueScalar)
	case timeCols[p.Field] != "":
		return compareExpr(timeCols[p.Field], p, valueTime)
	case scalarCols[p.Field] != "":
		return compareExpr(scalarCols[p.Field], p, valueScalar)
	case arrayCols[p.Field] != "":
		col := arrayCols[p.Field]
		member := "EXISTS (SELECT 1 FROM json_each(" + col + ") WHERE json_each.value = ?)"
		switch p.Op {
		case "eq", "contains":
			return member, []any{p.Value}, checkScalar(p)
		case "ne":
			return "NOT " + member, []any{p.Value}, checkScalar(p)
		case "in", "nin":
			vals, err := listValue(p)
			if err != nil {
				return "", nil, err
			}
			c := "EXISTS (SELECT 1 FROM json_each(" + col + ") WHERE json_each.value IN (" + placeholders(len(vals)) + "))"
			if p.Op == "nin" {
				c = "NOT " + c
			}
			return c, vals, nil
		default:
			return "", nil, Invalidf("operator %q is not supported for %s", p.Op, p.Field)
		}
	default:
		return "", nil, Invalidf("unknown filter field %q", p.Field)
	}
}

type valueKind int

const (
	valueScalar valueKind = iota
	valueTime
)

func compareExpr(col string, p Pred, kind valueKind) (string, []any, error) {
	conv := func(v any) (any, error) {
		if kind == valueTime {
			t, ok := v.(time.Time)
			if !ok {
				return nil, Invalidf("%s needs a time value, got %T", p.Field, v)
			}
			return t.UnixMilli(), nil
		}
		switch x := v.(type) {
		case string, bool, int, int64:
			return x, nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, Invalidf("%s: not a finite number", p.Field)
			}
			return x, nil
		default:
			return nil, Invalidf("%s: unsupported value type %T", p.Field, v)
		}
	}
	switch p.Op {
	case "eq", "ne", "gt", "gte", "lt", "lte":
		v, err := conv(p.Value)
		if err != nil {
			return "", nil, err
		}
		return col + " " + sqlOps[p.Op] + " ?", []any{v}, nil
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
		return col + " " + not + "IN (" + placeholders(len(vals)) + ")", vals, nil
	case "contains":
		s, ok := p.Value.(string)
		if !ok || kind == valueTime {
			return "", nil, Invalidf("contains on %s needs a string", p.Field)
		}
		return "instr(" + col + ", ?) > 0", []any{s}, nil
	default:
		return "", nil, Invalidf("unknown operator %q", p.Op)
	}
}

func checkScalar(p Pred) error {
	switch p.Value.(type) {
	case string, int, int64, float64, bool:
		return nil
	}
	return Invalidf("%s %s needs a scalar value, got %T", p.Field, p.Op, p.Value)
}

func listValue(p Pred) ([]any, error) {
	switch v := p.Value.(type) {
	case []any:
		if len(v) == 0 {
			return nil, Invalidf("%s %s needs a non-empty list", p.Field, p.Op)
		}
		return v, nil
	case []string:
		if len(v) == 0 {
			return nil, Invalidf("%s %s needs a non-empty list", p.Field, p.Op)
		}
		return toAny(v), nil
	default:
		return nil, Invalidf("%s %s needs a list, got %s", p.Field, p.Op, fmt.Sprintf("%T", p.Value))
	}
}
