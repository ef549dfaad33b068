package hostconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// jsonObject is a JSON object that keeps its keys in file order, so that a
// config file rewritten by `loci install` differs from the original only
// where loci changed it. Values stay raw: nested objects keep their order
// too.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject reads a JSON object; empty input is an empty object.
func parseObject(b []byte) (*jsonObject, error) {
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(b)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("the document is not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o.set(key, raw)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return o, nil
}

func (o *jsonObject) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// object returns the value at key as an object (a new empty one if absent),
// failing when it is there but not an object.
func (o *jsonObject) object(key string) (*jsonObject, error) {
	raw, ok := o.vals[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return &jsonObject{vals: map[string]json.RawMessage{}}, nil
	}
	sub, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", key, err)
	}
	return sub, nil
}

// set stores a value, keeping the key's place if it exists.
func (o *jsonObject) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *jsonObject) setValue(key string, v any) {
	o.set(key, jsonOf(v))
}

func (o *jsonObject) setObject(key string, sub *jsonObject) {
	o.set(key, sub.compact())
}

func (o *jsonObject) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *jsonObject) empty() bool { return len(o.keys) == 0 }

// compact renders the object without insignificant space and without
// escaping HTML characters.
func (o *jsonObject) compact() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonOf(k))
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			b.Write(o.vals[k])
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// pretty renders the object indented by two spaces, as Claude Code, Cursor
// and Claude Desktop write their files, with a final newline.
func (o *jsonObject) pretty() []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, o.compact(), "", "  "); err != nil {
		return append(o.compact(), '\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func jsonOf(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only loci's own plain values are encoded here
	}
	return bytes.TrimSpace(b.Bytes())
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
