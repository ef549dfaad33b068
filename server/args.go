package server

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// toolError is a tool failure whose message is shown to the caller as is.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// args reads one tool call's arguments with type and range checks. Every
// error message starts with the tool name, as seed 003 shows.
type args struct {
	tool string
	m    map[string]any
}

func newArgs(tool string, raw any) (*args, error) {
	a := &args{tool: tool, m: map[string]any{}}
	switch v := raw.(type) {
	case nil:
	case map[string]any:
		a.m = v
	default:
		return nil, a.errf("arguments must be an object, got %s", jsonType(raw))
	}
	return a, nil
}

func (a *args) errf(format string, v ...any) error {
	return &toolError{msg: a.tool + ": " + fmt.Sprintf(format, v...)}
}

func (a *args) has(name string) bool {
	v, ok := a.m[name]
	return ok && v != nil
}

// str returns a string argument. A required one that is missing or blank
// is an error "missing 'name'".
func (a *args) str(name string, required bool) (string, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		if required {
			return "", a.errf("missing '%s'", name)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", a.errf("'%s' must be a string, got %s", name, jsonType(v))
	}
	if !utf8.ValidString(s) {
		return "", a.errf("'%s' is not valid UTF-8", name)
	}
	if required && strings.TrimSpace(s) == "" {
		return "", a.errf("'%s' is empty", name)
	}
	return s, nil
}

// integer returns an integer argument in [lo, hi], def when absent.
func (a *args) integer(name string, def, lo, hi int) (int, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def, nil
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, a.errf("'%s' must be an integer", name)
		}
	default:
		return 0, a.errf("'%s' must be an integer, got %s", name, jsonType(v))
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, a.errf("'%s' must be an integer, got %v", name, f)
	}
	if f < float64(lo) || f > float64(hi) {
		return 0, a.errf("'%s' must be between %d and %d, got %v", name, lo, hi, f)
	}
	return int(f), nil
}

// number returns a number argument in [lo, hi], def when absent.
func (a *args) number(name string, def, lo, hi float64) (float64, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def, nil
	}
	f, ok := v.(float64)
	if !ok {
		return 0, a.errf("'%s' must be a number, got %s", name, jsonType(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < lo || f > hi {
		return 0, a.errf("'%s' must be between %v and %v, got %v", name, lo, hi, f)
	}
	return f, nil
}

// strings returns an array-of-strings argument.
func (a *args) strings(name string) ([]string, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, a.errf("'%s' must be an array of strings, got %s", name, jsonType(v))
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, a.errf("'%s[%d]' must be a string, got %s", name, i, jsonType(item))
		}
		out = append(out, s)
	}
	return out, nil
}

func (a *args) boolean(name string, def bool) (bool, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, a.errf("'%s' must be a boolean, got %s", name, jsonType(v))
	}
	return b, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
