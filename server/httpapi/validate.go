package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/redact"
)

// Request validation follows seed 001: the body is checked field by field
// in declaration order, and only the first problem is reported, as
// "<message>: <location>" with the location's parts joined by dots
// ("Field required: messages", "Input should be greater than 0:
// messages.0.timestamp"). Model-level rules that span fields report their
// message alone ("Value error, exactly one of user_id / agent_id must be
// provided"). Messages mirror the wording seed 001's server uses.

// validationError is a 422 with its one message.
type validationError struct{ msg string }

func (e *validationError) Error() string { return e.msg }

// validator walks a decoded JSON body and records its first error.
type validator struct{ err *validationError }

func (v *validator) ok() bool { return v.err == nil }

func (v *validator) fail(loc []string, format string, a ...any) {
	if v.err != nil {
		return
	}
	msg := fmt.Sprintf(format, a...)
	if len(loc) > 0 {
		msg += ": " + strings.Join(loc, ".")
	}
	v.err = &validationError{msg: msg}
}

// modelFail records a model-level error (no location).
func (v *validator) modelFail(format string, a ...any) {
	v.fail(nil, "Value error, "+format, a...)
}

func at(loc []string, parts ...string) []string {
	out := make([]string, 0, len(loc)+len(parts))
	return append(append(out, loc...), parts...)
}

// decodeBody parses a request body into generic JSON (numbers kept
// exact). A syntax error becomes seed 001's "JSON decode error: <offset>".
func decodeBody(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		off := int64(len(body))
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			off = se.Offset
		}
		return nil, &validationError{msg: fmt.Sprintf("JSON decode error: %d", off)}
	}
	if dec.More() {
		return nil, &validationError{msg: fmt.Sprintf("JSON decode error: %d", dec.InputOffset())}
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, &validationError{msg: "Input should be a valid dictionary or object to extract fields from"}
	}
	return m, nil
}

// object is one JSON object being validated, with its location.
type object struct {
	v   *validator
	m   map[string]any
	loc []string
}

// str reads a string field. present is false when absent or null (the
// caller applies the default). Required fields fail when absent.
func (o object) str(name string, required, nullable bool) (s string, present bool) {
	val, ok := o.m[name]
	loc := at(o.loc, name)
	switch {
	case !ok && required:
		o.v.fail(loc, "Field required")
		return "", false
	case !ok:
		return "", false
	case val == nil && nullable:
		return "", false
	}
	s, isStr := val.(string)
	if !isStr {
		o.v.fail(loc, "Input should be a valid string")
		return "", false
	}
	return s, true
}

// lengthBetween checks a string's length in characters.
func (o object) lengthBetween(name, s string, lo, hi int) {
	n := utf8.RuneCountInString(s)
	loc := at(o.loc, name)
	if n < lo {
		o.v.fail(loc, "String should have at least %d character%s", lo, plural(lo))
	} else if hi > 0 && n > hi {
		o.v.fail(loc, "String should have at most %d character%s", hi, plural(hi))
	}
}

// notSecret refuses an identifier that holds a credential. Identifiers
// (session, sender, user and scope ids) are keys: they are stored and
// shown as given, since redacting one would merge it with every other id
// that redacts alike. The value is not echoed.
func (o object) notSecret(name, s string) {
	if o.v.ok() && redact.Contains(s) {
		o.v.fail(at(o.loc, name), "Value error, %s looks like a credential (an access token or key); choose an identifier without one", name)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// integer reads an integer field: a JSON integer, or a string of digits
// (lax mode, as seed 001's server accepts).
func (o object) integer(name string, required bool) (n int64, present bool) {
	val, ok := o.m[name]
	loc := at(o.loc, name)
	if !ok || val == nil {
		if required {
			if ok {
				o.v.fail(loc, "Input should be a valid integer")
			} else {
				o.v.fail(loc, "Field required")
			}
		}
		return 0, false
	}
	n, err := toInt(val)
	if err != "" {
		o.v.fail(loc, "%s", err)
		return 0, false
	}
	return n, true
}

func toInt(val any) (int64, string) {
	switch x := val.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n, ""
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.Abs(f) > 1<<62 {
			return 0, "Input should be a valid integer"
		}
		if f != math.Trunc(f) {
			return 0, "Input should be a valid integer, got a number with a fractional part"
		}
		return int64(f), ""
	case string:
		s := strings.TrimSpace(x)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, ""
		}
		return 0, "Input should be a valid integer, unable to parse string as an integer"
	case bool:
		return 0, "Input should be a valid integer"
	default:
		return 0, "Input should be a valid integer"
	}
}

// number reads a float field (integers accepted).
func (o object) number(name string) (f float64, present bool) {
	val, ok := o.m[name]
	if !ok || val == nil {
		return 0, false
	}
	loc := at(o.loc, name)
	switch x := val.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			o.v.fail(loc, "Input should be a finite number")
			return 0, false
		}
		return f, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			o.v.fail(loc, "Input should be a valid number, unable to parse string as a number")
			return 0, false
		}
		return f, true
	default:
		o.v.fail(loc, "Input should be a valid number")
		return 0, false
	}
}

// boolean reads a bool field (true/false, or the strings and numbers
// seed 001's server accepts in lax mode).
func (o object) boolean(name string) (b bool, present bool) {
	val, ok := o.m[name]
	if !ok || val == nil {
		return false, false
	}
	switch x := val.(type) {
	case bool:
		return x, true
	case json.Number:
		switch string(x) {
		case "0":
			return false, true
		case "1":
			return true, true
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1", "yes", "on", "t", "y":
			return true, true
		case "false", "0", "no", "off", "f", "n":
			return false, true
		}
	}
	o.v.fail(at(o.loc, name), "Input should be a valid boolean")
	return false, false
}

// literal reads a string field that must be one of allowed.
func (o object) literal(name string, required bool, allowed ...string) (string, bool) {
	s, present := o.str(name, required, !required)
	if !present {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	o.v.fail(at(o.loc, name), "Input should be %s", quoteList(allowed))
	return "", false
}

// quoteList renders 'a', 'b' or 'c'.
func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// list reads an array field.
func (o object) list(name string, required bool) (l []any, present bool) {
	val, ok := o.m[name]
	loc := at(o.loc, name)
	if !ok || val == nil {
		if required {
			if ok {
				o.v.fail(loc, "Input should be a valid list")
			} else {
				o.v.fail(loc, "Field required")
			}
		}
		return nil, false
	}
	l, isList := val.([]any)
	if !isList {
		o.v.fail(loc, "Input should be a valid list")
		return nil, false
	}
	return l, true
}

// dict reads an object field (null or absent: not present).
func (o object) dict(name string) (map[string]any, bool) {
	val, ok := o.m[name]
	if !ok || val == nil {
		return nil, false
	}
	m, isMap := val.(map[string]any)
	if !isMap {
		o.v.fail(at(o.loc, name), "Input should be a valid dictionary")
		return nil, false
	}
	return m, true
}

// child reads a nested model.
func (o object) child(val any, loc []string) (object, bool) {
	m, ok := val.(map[string]any)
	if !ok {
		o.v.fail(loc, "Input should be a valid dictionary or object to extract fields from")
		return object{}, false
	}
	return object{v: o.v, m: m, loc: loc}, true
}

// scopePattern is the charset of app_id and project_id.
var scopePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// scopeID reads app_id or project_id: default "default", 1–128
// characters of [a-zA-Z0-9_.-], not "." or "..".
func (o object) scopeID(name string) string {
	s, present := o.str(name, false, false)
	if !present {
		return "default"
	}
	o.lengthBetween(name, s, 1, 128)
	o.notSecret(name, s)
	if !o.v.ok() {
		return ""
	}
	if !scopePattern.MatchString(s) {
		o.v.fail(at(o.loc, name), "String should match pattern '^[a-zA-Z0-9_.-]+$'")
		return ""
	}
	if s == "." || s == ".." {
		o.v.fail(at(o.loc, name), "Value error, %s must not be '.' or '..'", name)
		return ""
	}
	return s
}

// owner reads user_id or agent_id: null or a string of at least one
// character.
func (o object) owner(name string) string {
	s, present := o.str(name, false, true)
	if present {
		o.lengthBetween(name, s, 1, 0)
		o.notSecret(name, s)
	}
	return s
}
