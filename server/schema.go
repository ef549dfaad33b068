package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Tool input schemas are generated from the params structs (args.go lists
// the tags). Keys come out in one fixed order — type, default, enum,
// minimum, maximum, description, then items, properties and required —
// which is the order seed 003 prints them in, and number literals are
// kept as written in the tags ("default":1.0), so the snapshots in
// testdata/toolsnaps stay byte for byte what the seed shows.

// schema is one JSON schema node.
type schema struct {
	Type        any             `json:"type,omitempty"` // a string, or a list of them
	Default     json.RawMessage `json:"default,omitempty"`
	Enum        []string        `json:"enum,omitempty"`
	Minimum     json.RawMessage `json:"minimum,omitempty"`
	Maximum     json.RawMessage `json:"maximum,omitempty"`
	Description string          `json:"description,omitempty"`
	Items       *schema         `json:"items,omitempty"`
	Properties  *properties     `json:"properties,omitempty"`
	Required    []string        `json:"required,omitempty"`
}

// properties keeps an object's properties in declaration order.
type properties struct {
	names []string
	nodes []*schema
}

func (p *properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range p.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		v, err := json.Marshal(p.nodes[i])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// schemaer is implemented by argument types whose schema is not the one
// of their Go kind (a fact kind's enum, a timestamp's two types).
type schemaer interface {
	schema() *schema
}

// palaceDescription describes every tool's 'palace' argument.
const palaceDescription = "Palace ID (optional if server started with --palace)"

// descriptions expands {name} in description tags: text computed from the
// core rather than written twice.
var descriptions = map[string]func() string{
	"kinds": kindsDescription,
}

// schemaOf builds the schema of a params type. With requirePalace, a
// 'palace' member is listed as required (seed 003's tools, without a
// default palace).
func schemaOf(t reflect.Type, requirePalace bool) *schema {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := reflect.New(t).Interface().(schemaer); ok {
		return s.schema()
	}
	switch t.Kind() {
	case reflect.String:
		return &schema{Type: "string"}
	case reflect.Bool:
		return &schema{Type: "boolean"}
	case reflect.Int:
		return &schema{Type: "integer"}
	case reflect.Float64:
		return &schema{Type: "number"}
	case reflect.Slice:
		return &schema{Type: "array", Items: schemaOf(t.Elem(), false)}
	case reflect.Struct:
		obj := &schema{Type: "object", Properties: &properties{}}
		for _, f := range planOf(t).fields {
			node := schemaOf(t.Field(f.index).Type, false)
			node.Default = f.def
			if len(f.enum) > 0 {
				node.Enum = f.enum
			}
			if f.min != nil {
				node.Minimum = json.RawMessage(fmt.Sprint(*f.min))
			}
			if f.max != nil {
				node.Maximum = json.RawMessage(fmt.Sprint(*f.max))
			}
			node.Description = expand(f.desc)
			if f.name == "palace" && node.Description == "" {
				node.Description = palaceDescription
			}
			obj.Properties.names = append(obj.Properties.names, f.name)
			obj.Properties.nodes = append(obj.Properties.nodes, node)
			if f.required || f.listed || (f.name == "palace" && requirePalace) {
				obj.Required = append(obj.Required, f.name)
			}
		}
		return obj
	}
	panic(fmt.Sprintf("server: no schema for argument type %s", t))
}

func expand(desc string) string {
	for name, fn := range descriptions {
		if tag := "{" + name + "}"; strings.Contains(desc, tag) {
			desc = strings.ReplaceAll(desc, tag, fn())
		}
	}
	return desc
}

// schemaJSON renders a tool's input schema.
func schemaJSON(t reflect.Type, requirePalace bool) json.RawMessage {
	b, err := json.Marshal(schemaOf(t, requirePalace))
	if err != nil {
		panic(fmt.Sprintf("server: schema of %s: %v", t, err))
	}
	return b
}
