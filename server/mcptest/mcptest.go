// Package mcptest holds what tests replaying MCP transcripts share: the
// txtar files of testdata/transcripts (read and rewritten), the split of
// a client section into messages, and the normalisation that makes a
// server's responses comparable across runs. It is imported by tests only.
package mcptest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// Lines returns the non-blank, non-comment (#) lines of a section.
func Lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// IsNotification reports whether a client line is a JSON-RPC
// notification (a method and no id), which gets no response.
func IsNotification(line string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil {
		return false
	}
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	return hasMethod && !hasID
}

var drawerIDRe = regexp.MustCompile(`drawer_id\\?":\\?"([0-9a-f-]{36})`)

// FindDrawerID returns the first drawer_id in a response, or "".
func FindDrawerID(line string) string {
	if m := drawerIDRe.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

var dateInTextRe = regexp.MustCompile(`\d{4}-\d\d-\d\d`)

var (
	uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	timeRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`)
)

// Normalize makes a response comparable across runs: keys sorted, UUIDs,
// times, the data dir, the version, scores and palace_info's index state
// replaced by placeholders, and
// the JSON text of tool results normalised the same way (kept as a string).
func Normalize(t testing.TB, line, home string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatalf("not JSON: %q", line)
	}
	v = normValue(v, "", home)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(buf.String())
}

func normValue(v any, key, home string) any {
	switch x := v.(type) {
	case map[string]any:
		if key == "index" || key == "keyword_index" {
			// The indexes load in the background at start: whether they
			// are loaded yet depends on timing. palace tests cover them.
			return "<index>"
		}
		for k, e := range x {
			x[k] = normValue(e, k, home)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normValue(e, key, home)
		}
		return x
	case float64:
		if key == "score" {
			return "<score>"
		}
		if key == "uptime_seconds" || key == "last_seq" || key == "caught_up_seq" {
			return "<n>"
		}
		return x
	case string:
		switch {
		case key == "text" && (strings.HasPrefix(x, "{") || strings.HasPrefix(x, "[")):
			var inner any
			if json.Unmarshal([]byte(x), &inner) == nil {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				enc.Encode(normValue(inner, "", home))
				return strings.TrimSpace(buf.String())
			}
		case key == "version":
			return "<version>"
		case key == "undo" && strings.HasPrefix(x, "undo-"):
			return "<undo>"
		case uuidRe.MatchString(x):
			return "<uuid>"
		case timeRe.MatchString(x):
			return "<time>"
		}
		if home != "" && strings.Contains(x, home) {
			x = strings.ReplaceAll(x, home, "<home>")
		}
		if key == "text" { // markdown results (mem_*, resources) carry today's date
			x = dateInTextRe.ReplaceAllString(x, "<date>")
		}
		return x
	}
	return v
}

// Txtar is a minimal reader/writer of the txtar format.
type Txtar struct {
	comment string
	names   []string
	data    map[string]string
}

var markerRe = regexp.MustCompile(`(?m)^-- (.+?) --$`)

// ParseTxtar reads a txtar file.
func ParseTxtar(b []byte) *Txtar {
	a := &Txtar{data: map[string]string{}}
	s := string(b)
	idx := markerRe.FindAllStringSubmatchIndex(s, -1)
	if len(idx) == 0 {
		a.comment = s
		return a
	}
	a.comment = s[:idx[0][0]]
	for i, m := range idx {
		name := s[m[2]:m[3]]
		end := len(s)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		body := s[m[1]:end]
		body = strings.TrimPrefix(body, "\n")
		a.names = append(a.names, name)
		a.data[name] = body
	}
	return a
}

// Get returns a section's body.
func (a *Txtar) Get(name string) string { return a.data[name] }

// Set replaces (or adds) a section.
func (a *Txtar) Set(name, body string) {
	if _, ok := a.data[name]; !ok {
		a.names = append(a.names, name)
	}
	a.data[name] = body
}

// Format writes the file back.
func (a *Txtar) Format() []byte {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, n := range a.names {
		b.WriteString("-- " + n + " --\n")
		body := a.data[n]
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		b.WriteString(body)
	}
	return []byte(b.String())
}
