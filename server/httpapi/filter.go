package httpapi

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
)

// The filter DSL of seed 001, compiled into a palace.Pred. A node is an
// object whose keys are "AND" (all children), "OR" (any child) or one of
// the allowed fields; keys at one level are joined with AND. A field's
// value is a scalar (equality) or an operator map whose operators are
// joined with AND.
//
//	field        kind             operators
//	session_id   string           eq ne in
//	parent_type  string           eq ne in
//	parent_id    string           eq ne in
//	timestamp    timestamp        eq ne gt gte lt lte   (epoch ms / s, or ISO-8601)
//	sender_id    array of string  eq in                 (membership in sender_ids)
//
// owner_id, owner_type, app_id and project_id are reserved: they belong at
// the top of the request. Every other problem is a compile error naming
// the field or operator, reported as a 422.

// maxFilterDepth bounds nesting; maxFilterNodes bounds size.
const (
	maxFilterDepth = 16
	maxFilterNodes = 256
	maxInValues    = 500
)

type fieldKind int

const (
	kindString fieldKind = iota
	kindTime
	kindArray
)

var filterFields = map[string]struct {
	kind fieldKind
	pred string // palace.Pred field
}{
	"session_id":  {kindString, "session_id"},
	"parent_type": {kindString, "meta.parent_type"},
	"parent_id":   {kindString, "parent_id"},
	"timestamp":   {kindTime, "timestamp"},
	"sender_id":   {kindArray, "sender_id"},
}

var reservedFields = map[string]bool{"owner_id": true, "owner_type": true, "app_id": true, "project_id": true}

var opsByKind = map[fieldKind][]string{
	kindString: {"eq", "ne", "in"},
	kindTime:   {"eq", "ne", "gt", "gte", "lt", "lte"},
	kindArray:  {"eq", "in"},
}

// filterError is a compile error (a 422).
type filterError struct{ msg string }

func (e *filterError) Error() string { return e.msg }

func filterErrf(format string, a ...any) error {
	return &filterError{msg: "Invalid filters: " + fmt.Sprintf(format, a...)}
}

type filterCompiler struct {
	loc   *time.Location
	nodes int
}

// compileFilter turns a filters object into a predicate; nil for an empty
// filter.
func compileFilter(node map[string]any, loc *time.Location) (*palace.Pred, error) {
	if len(node) == 0 {
		return nil, nil
	}
	c := &filterCompiler{loc: loc}
	p, err := c.node(node, 0)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, nil
	}
	return p, nil
}

func (c *filterCompiler) node(node map[string]any, depth int) (*palace.Pred, error) {
	if depth > maxFilterDepth {
		return nil, filterErrf("filters nest deeper than %d levels", maxFilterDepth)
	}
	c.nodes++
	if c.nodes > maxFilterNodes {
		return nil, filterErrf("filters have more than %d nodes", maxFilterNodes)
	}
	keys := make([]string, 0, len(node))
	for k := range node {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic SQL for identical filters
	var parts []palace.Pred
	for _, k := range keys {
		val := node[k]
		switch k {
		case "AND", "OR":
			list, ok := val.([]any)
			if !ok {
				return nil, filterErrf("%s must be a list of filter objects", k)
			}
			var kids []palace.Pred
			matchAll := false // an OR with an empty child object matches everything
			for i, item := range list {
				m, ok := item.(map[string]any)
				if !ok {
					return nil, filterErrf("%s[%d] must be a filter object", k, i)
				}
				p, err := c.node(m, depth+1)
				if err != nil {
					return nil, err
				}
				if p != nil {
					kids = append(kids, *p)
				} else {
					matchAll = true
				}
			}
			if len(kids) == 0 || (k == "OR" && matchAll) {
				continue // an empty AND / OR list adds no condition
			}
			if k == "AND" {
				parts = append(parts, palace.Pred{And: kids})
			} else {
				parts = append(parts, palace.Pred{Or: kids})
			}
		default:
			p, err := c.field(k, val)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p...)
		}
	}
	switch len(parts) {
	case 0:
		return nil, nil
	case 1:
		return &parts[0], nil
	default:
		return &palace.Pred{And: parts}, nil
	}
}

func (c *filterCompiler) field(name string, val any) ([]palace.Pred, error) {
	if reservedFields[name] {
		return nil, filterErrf("field '%s' is reserved; set it at the top level of the request, not inside filters", name)
	}
	f, ok := filterFields[name]
	if !ok {
		if strings.EqualFold(name, "and") || strings.EqualFold(name, "or") {
			return nil, filterErrf("unknown field '%s' (combinators are upper case: AND, OR)", name)
		}
		return nil, filterErrf("unknown field '%s'; allowed fields are session_id, parent_type, parent_id, timestamp, sender_id", name)
	}
	ops, isMap := val.(map[string]any)
	if !isMap {
		if val == nil {
			return nil, filterErrf("field '%s' has a null value", name)
		}
		if _, isList := val.([]any); isList {
			return nil, filterErrf("field '%s': use {\"in\": [...]} to match a list of values", name)
		}
		ops = map[string]any{"eq": val}
	}
	if len(ops) == 0 {
		return nil, filterErrf("field '%s' has an empty operator map", name)
	}
	names := make([]string, 0, len(ops))
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	out := make([]palace.Pred, 0, len(names))
	for _, op := range names {
		if !contains(opsByKind[f.kind], op) {
			if contains([]string{"eq", "ne", "gt", "gte", "lt", "lte", "in"}, op) {
				return nil, filterErrf("operator '%s' does not apply to field '%s' (allowed: %s)", op, name, strings.Join(opsByKind[f.kind], ", "))
			}
			return nil, filterErrf("unknown operator '%s' on field '%s'", op, name)
		}
		v, err := c.value(name, f.kind, op, ops[op])
		if err != nil {
			return nil, err
		}
		out = append(out, palace.Pred{Field: f.pred, Op: op, Value: v})
	}
	return out, nil
}

func (c *filterCompiler) value(name string, kind fieldKind, op string, raw any) (any, error) {
	if op == "in" {
		list, ok := raw.([]any)
		if !ok || len(list) == 0 {
			return nil, filterErrf("operator 'in' on field '%s' needs a non-empty list", name)
		}
		if len(list) > maxInValues {
			return nil, filterErrf("operator 'in' on field '%s' has more than %d values", name, maxInValues)
		}
		out := make([]any, len(list))
		for i, item := range list {
			s, ok := item.(string)
			if !ok {
				return nil, filterErrf("operator 'in' on field '%s' needs strings, got %s", name, jsonType(item))
			}
			out[i] = s
		}
		return out, nil
	}
	if kind == kindTime {
		t, err := c.timeValue(raw)
		if err != nil {
			return nil, filterErrf("field '%s' operator '%s': %v", name, op, err)
		}
		return t, nil
	}
	s, ok := raw.(string)
	if !ok {
		return nil, filterErrf("field '%s' operator '%s' needs a string, got %s", name, op, jsonType(raw))
	}
	return s, nil
}

// timeValue reads an epoch (ms, or seconds below 10^12) or an ISO-8601
// string (naive strings in the display time zone).
func (c *filterCompiler) timeValue(raw any) (time.Time, error) {
	switch x := raw.(type) {
	case json.Number:
		n, msg := toInt(x)
		if msg != "" {
			return time.Time{}, fmt.Errorf("an epoch timestamp must be an integer")
		}
		return fromEpoch(n, c.loc), nil
	case string:
		t, err := parseISO(x, c.loc)
		if err != nil {
			return time.Time{}, fmt.Errorf("%v; use epoch milliseconds or ISO-8601", err)
		}
		return t, nil
	default:
		return time.Time{}, fmt.Errorf("needs epoch milliseconds or an ISO-8601 string, got %s", jsonType(raw))
	}
}

// topLevelSession returns filters.session_id when it is a top-level
// scalar string (the only shape that surfaces unprocessed messages).
func topLevelSession(filters map[string]any) (string, bool) {
	s, ok := filters["session_id"].(string)
	return s, ok && s != ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
