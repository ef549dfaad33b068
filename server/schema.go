package server

import (
	"encoding/json"
)

// withoutRequired removes name from a JSON schema's "required" list, keeping
// the order of every other key (properties stay as written).
func withoutRequired(schema, name string) string {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(schema), &doc); err != nil {
		panic("tool schema is not JSON: " + err.Error())
	}
	var req []string
	if raw, ok := doc["required"]; ok {
		_ = json.Unmarshal(raw, &req)
	}
	kept := make([]string, 0, len(req))
	for _, r := range req {
		if r != name {
			kept = append(kept, r)
		}
	}
	type ordered struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required,omitempty"`
	}
	var o ordered
	_ = json.Unmarshal(doc["type"], &o.Type)
	o.Properties = doc["properties"]
	o.Required = kept
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	return string(b)
}
