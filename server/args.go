package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/loci-mem/loci/palace"
)

// Tool arguments. Every tool declares a params struct; decodeArgs fills it
// from the call's raw "arguments" in one pass, answering the messages seed
// 003 shows for wrong types and missing fields ("missing 'text'", "'top_k'
// must be an integer, got string"). The same struct generates the tool's
// JSON schema (schema.go), so what is documented and what is accepted
// cannot drift apart. Field tags:
//
//	json:"top_k"       the argument's name
//	required:"true"    must be present, not null and, for strings, not blank
//	                   ("schema": listed as required, checked by the struct itself)
//	alias:"top_k"      another accepted name, not in the schema
//	default:"10"       a JSON literal: the value when absent, and the schema's default
//	min:"1"            the smallest accepted integer, also in the schema
//	max:"100"          the largest useful integer, also in the schema: a
//	                   larger value is clamped to it, not refused (the
//	                   contracts set no upper bound on counts)
//	enum:"a,b,c"       the accepted strings, also in the schema
//	desc:"..."         the schema's description
//
// Field types: string, bool, int, float64, pointers to them (nil when the
// argument is absent), slices, nested structs (decoded the same way, their
// names indexed: 'messages[1].role'), and any type implementing
// argDecoder. A decoded value implementing checker then validates itself
// (validate.go); so does the struct, for rules across its fields.
//
// Argument errors are palace.ErrInvalid errors whose message names the
// argument; the face prefixes the tool name (errors.go).

// argDecoder is implemented by argument types that decode themselves from
// the raw JSON value; name is the argument's full name for messages.
type argDecoder interface {
	decodeArg(name string, raw json.RawMessage) error
}

// checker is implemented by argument types (through a pointer) that
// validate, and may normalise, their decoded value. For a struct, name is
// the prefix of its members' names ("" or "messages[0].").
type checker interface {
	check(name string) error
}

// argErrorf is a bad argument: the message is shown after the tool name.
func argErrorf(format string, a ...any) error { return palace.Invalidf(format, a...) }

// decodeArgs decodes a call's arguments (a JSON object, or absent) into
// dst, a pointer to a params struct. unknown names, sorted, the members
// the struct has no argument for, which are ignored (unknown_args.go).
func decodeArgs(raw json.RawMessage, dst any) (unknown []string, err error) {
	raw = bytes.TrimSpace(raw)
	v := reflect.ValueOf(dst).Elem()
	if len(raw) == 0 || isNull(raw) {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return nil, argErrorf("arguments must be an object, got %s", jsonKind(raw))
	}
	members, err := objectMembers("", raw)
	if err != nil {
		return nil, err
	}
	plan := planOf(v.Type())
	for name := range members {
		if !plan.takes(name) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	return unknown, decodeMembers("", members, v)
}

// objectMembers reads the JSON object raw, named prefix in messages.
func objectMembers(prefix string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, argErrorf("'%s' is not a valid JSON object", strings.TrimSuffix(prefix, "."))
	}
	return members, nil
}

// decodeObject decodes the JSON object raw into the struct v, whose
// members are named prefix+name in messages.
func decodeObject(prefix string, raw json.RawMessage, v reflect.Value) error {
	members, err := objectMembers(prefix, raw)
	if err != nil {
		return err
	}
	return decodeMembers(prefix, members, v)
}

// decodeMembers decodes an object's members into the struct v.
func decodeMembers(prefix string, members map[string]json.RawMessage, v reflect.Value) error {
	for _, f := range planOf(v.Type()).fields {
		name := f.name
		val, ok := members[name]
		if (!ok || isNull(val)) && f.alias != "" {
			if alt, has := members[f.alias]; has && !isNull(alt) {
				name, val, ok = f.alias, alt, true
			}
		}
		full := prefix + name
		fv := v.Field(f.index)
		if !ok || isNull(val) {
			if f.required {
				if len(f.enum) > 0 {
					return argErrorf("missing '%s' (%s)", full, orList(f.enum))
				}
				return argErrorf("missing '%s'", full)
			}
			if f.def == nil {
				continue
			}
			val = f.def
		}
		if err := decodeValue(full, val, fv); err != nil {
			return err
		}
		if err := f.validate(full, fv); err != nil {
			return err
		}
	}
	if c, ok := v.Addr().Interface().(checker); ok {
		return c.check(prefix)
	}
	return nil
}

// decodeValue decodes one JSON value (not null) into v.
func decodeValue(name string, raw json.RawMessage, v reflect.Value) error {
	if d, ok := v.Addr().Interface().(argDecoder); ok {
		return d.decodeArg(name, raw)
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := decodeValue(name, raw, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.String:
		if raw[0] != '"' {
			return argErrorf("'%s' must be a string, got %s", name, jsonKind(raw))
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return argErrorf("'%s' is not a valid string", name)
		}
		v.SetString(s)
	case reflect.Bool:
		switch string(raw) {
		case "true", "false":
			v.SetBool(raw[0] == 't')
		default:
			return argErrorf("'%s' must be a boolean, got %s", name, jsonKind(raw))
		}
	case reflect.Int:
		n, err := integer(name, raw)
		if err != nil {
			return err
		}
		v.SetInt(int64(n))
	case reflect.Float64:
		f, err := number(name, raw)
		if err != nil {
			return err
		}
		v.SetFloat(f)
	case reflect.Slice:
		if raw[0] != '[' {
			if v.Type().Elem().Kind() == reflect.String {
				return argErrorf("'%s' must be an array of strings, got %s", name, jsonKind(raw))
			}
			return argErrorf("'%s' must be an array, got %s", name, jsonKind(raw))
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return argErrorf("'%s' is not a valid JSON array", name)
		}
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, item := range items {
			at := fmt.Sprintf("%s[%d]", name, i)
			if isNull(item) {
				return argErrorf("'%s' must not be null", at)
			}
			if err := decodeValue(at, item, s.Index(i)); err != nil {
				return err
			}
			if err := checkValue(at, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Struct:
		if raw[0] != '{' {
			return argErrorf("'%s' must be an object, got %s", name, jsonKind(raw))
		}
		return decodeObject(name+".", raw, v)
	default:
		panic(fmt.Sprintf("server: argument %s has unsupported type %s", name, v.Type()))
	}
	return nil
}

// integer reads a JSON number that must be a whole number. Values past
// ±2^31 are clamped: every count loci takes is far smaller.
func integer(name string, raw json.RawMessage) (int, error) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || !isNumber(raw) {
		return 0, argErrorf("'%s' must be an integer, got %s", name, jsonKind(raw))
	}
	if f != math.Trunc(f) {
		return 0, argErrorf("'%s' must be an integer, got %v", name, f)
	}
	return int(max(min(f, math.MaxInt32), math.MinInt32)), nil
}

func number(name string, raw json.RawMessage) (float64, error) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || !isNumber(raw) {
		return 0, argErrorf("'%s' must be a number, got %s", name, jsonKind(raw))
	}
	return f, nil
}

// checkValue runs v's own check, if its type has one (through a pointer,
// and through a non-nil pointer field).
func checkValue(name string, v reflect.Value) error {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		return nil // structs check themselves in decodeObject
	}
	if c, ok := v.Addr().Interface().(checker); ok {
		return c.check(name)
	}
	return nil
}

// argField is one decoded member of a params struct.
type argField struct {
	index    int
	name     string
	alias    string
	required bool // decoder and schema
	listed   bool // schema only: the struct checks it
	def      json.RawMessage
	min, max *int
	enum     []string
	desc     string
}

// validate applies the tag rules to a decoded value, then the value's own
// check.
func (f argField) validate(name string, v reflect.Value) error {
	e := v
	if e.Kind() == reflect.Pointer {
		if e.IsNil() {
			return nil
		}
		e = e.Elem()
	}
	switch e.Kind() {
	case reflect.String:
		s := e.String()
		if f.required && strings.TrimSpace(s) == "" {
			return argErrorf("'%s' is empty", name)
		}
		if len(f.enum) > 0 && !(s == "" && !f.required) && !contains(f.enum, s) {
			return argErrorf("'%s' must be %s, got %q", name, orList(f.enum), oneLine(s, 40))
		}
	case reflect.Int:
		n := int(e.Int())
		if f.max != nil && n > *f.max {
			e.SetInt(int64(*f.max)) // a larger value asks for everything there is
		}
		if f.min != nil && n < *f.min {
			return argErrorf("'%s' must be at least %d, got %d", name, *f.min, n)
		}
	}
	return checkValue(name, v)
}

// argPlan is the decoding plan of a params struct type.
type argPlan struct{ fields []argField }

var plans sync.Map // reflect.Type -> *argPlan

// planOf reads (once) the tags of a params struct type.
func planOf(t reflect.Type) *argPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*argPlan)
	}
	p := &argPlan{}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		f := argField{index: i, name: name, alias: sf.Tag.Get("alias"), desc: sf.Tag.Get("desc")}
		switch sf.Tag.Get("required") {
		case "true":
			f.required = true
		case "schema":
			f.listed = true
		}
		if d := sf.Tag.Get("default"); d != "" {
			if !json.Valid([]byte(d)) {
				panic(fmt.Sprintf("server: %s.%s: default %q is not JSON", t, sf.Name, d))
			}
			f.def = json.RawMessage(d)
		}
		for _, b := range []struct {
			tag string
			dst **int
		}{{"min", &f.min}, {"max", &f.max}} {
			if v := sf.Tag.Get(b.tag); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil {
					panic(fmt.Sprintf("server: %s.%s: %s %q is not an integer", t, sf.Name, b.tag, v))
				}
				*b.dst = &n
			}
		}
		if e := sf.Tag.Get("enum"); e != "" {
			f.enum = strings.Split(e, ",")
		}
		p.fields = append(p.fields, f)
	}
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*argPlan)
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

func isNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// jsonKind names the JSON type of a value, for messages.
func jsonKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// orList renders a, b or c.
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}
