package httpapi

import (
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/loci-mem/loci/server/argname"
)

// Fields a request body does not take. Seed 001's server ignores them
// (pydantic's default), and so does loci: a body is answered as it always
// was. But an ignored field is most often a misspelt one ("topk" for
// "top_k", "filter" for "filters"), and a filter dropped in silence gives
// a client results it believes are filtered. So a response to a body
// with one gains "warnings" beside "request_id" (argname.Warning: "unknown
// field 'filter' ignored; did you mean 'filters'?"), in the success and
// the error envelope alike, and says nothing more where a body has none.
//
// What a body takes is read from the endpoint's request schema, the one
// /openapi.json serves, through the nested types it names (a message's
// fields, a content item's, a tool call's). A filter's own fields are the
// filter DSL's, which refuses unknown ones with a 422; a content item's
// extras are free-form.

// requestSchemas are the component schemas of openAPISpec, built once.
var requestSchemas = sync.OnceValue(func() obj {
	return openAPISpec("")["components"].(obj)["schemas"].(obj)
})

// unknownFields returns the warnings for the members of body that its
// request schema (a component schema's name) does not name, at most
// argname.MaxNamed of them and a count of the rest.
func unknownFields(schemaName string, taker string, body map[string]any) []string {
	w := unknownWalk{schemas: requestSchemas()}
	w.object(schemaName, taker, body, "")
	return argname.Bound("field", w.out, w.total)
}

type unknownWalk struct {
	schemas obj
	out     []string
	total   int
}

// object checks m against the named component schema; taker is what the
// warnings say takes its fields (the endpoint, or the type's name), at
// m's location ("" at the top).
func (w *unknownWalk) object(name, taker string, m map[string]any, at string) {
	s, _ := w.schemas[name].(obj)
	props, ok := s["properties"].(obj)
	if !ok || s["additionalProperties"] == true {
		return
	}
	var names []string // the fields taken, listed once a warning needs them
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p, ok := props[k].(obj)
		if !ok {
			w.total++
			if len(w.out) < argname.MaxNamed {
				if names == nil {
					names = slices.Sorted(maps.Keys(props))
				}
				w.out = append(w.out, argname.Warning("field", k, at, taker, names))
			}
			continue
		}
		w.value(p, m[k], join(at, k))
	}
}

// value checks the objects within v that schema s (a property's) names
// a component schema for: v itself, the items of an array, a branch of
// anyOf that fits v's kind.
func (w *unknownWalk) value(s obj, v any, at string) {
	if ref, ok := s["$ref"].(string); ok {
		name := ref[len("#/components/schemas/"):]
		if m, ok := v.(map[string]any); ok {
			w.object(name, name, m, at)
		}
		return
	}
	if branches, ok := s["anyOf"].([]any); ok {
		for _, b := range branches {
			if b, ok := b.(obj); ok && fits(b, v) {
				w.value(b, v, at)
				return
			}
		}
		return
	}
	if items, ok := s["items"].(obj); ok {
		if list, ok := v.([]any); ok {
			for i, e := range list {
				w.value(items, e, join(at, strconv.Itoa(i)))
			}
		}
	}
}

// fits reports whether v is of the kind schema s describes: an array
// for an array schema, an object for a reference; a scalar fits neither.
func fits(s obj, v any) bool {
	switch v.(type) {
	case []any:
		return s["type"] == "array"
	case map[string]any:
		_, ref := s["$ref"]
		return ref
	}
	return false
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}
