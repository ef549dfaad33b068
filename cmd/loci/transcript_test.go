package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/ with the current output")

// TestTranscripts replays every testdata/transcripts/*.txtar against a real
// `loci` process. A transcript has sections:
//
//	-- args --    the command line after "loci" (one line)
//	-- env --     optional KEY=VALUE lines
//	-- client --  one JSON-RPC message per line (blank and # lines skipped);
//	              $DRAWER_ID is replaced by the latest drawer_id seen
//	-- server --  the expected responses, normalised (see normalize)
//
// A client line that is a JSON object without "id" is a notification and
// must get no response; any other line must get exactly one. Run
// `go test ./cmd/loci -run Transcripts -update` to
// rewrite the server sections.
func TestTranscripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runTranscript(t, file)
		})
	}
}

func runTranscript(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseTxtar(raw)
	home := t.TempDir()
	var env []string
	for _, l := range lines(ar.get("env")) {
		env = append(env, l)
	}
	p := startLoci(t, home, env, strings.Fields(strings.TrimSpace(ar.get("args")))...)
	var got []string
	drawerID := ""
	for _, line := range lines(ar.get("client")) {
		line = strings.ReplaceAll(line, "$DRAWER_ID", drawerID)
		p.send(line)
		if isNotification(line) {
			continue
		}
		out := p.next(20 * time.Second)
		if id := findDrawerID(out); id != "" {
			drawerID = id
		}
		got = append(got, normalize(t, out, home))
	}
	if code := p.closeAndWait(5 * time.Second); code != 0 {
		t.Fatalf("exit code %d after EOF, want 0", code)
	}
	want := lines(ar.get("server"))
	if *update {
		ar.set("server", strings.Join(got, "\n")+"\n")
		if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%d responses, golden has %d (run with -update to accept):\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("response %d differs\n got: %s\nwant: %s", i+1, got[i], want[i])
		}
	}
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func isNotification(line string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil {
		return false
	}
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	return hasMethod && !hasID
}

var drawerIDRe = regexp.MustCompile(`drawer_id\\?":\\?"([0-9a-f-]{36})`)

func findDrawerID(line string) string {
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

// normalize makes a response comparable across runs: keys sorted, UUIDs,
// times, the data dir, the version, scores and palace_info's index state
// replaced by placeholders, and
// the JSON text of tool results normalised the same way (kept as a string).
func normalize(t testing.TB, line, home string) string {
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

// txtar is a minimal reader/writer of the txtar format.
type txtar struct {
	comment string
	names   []string
	data    map[string]string
}

var markerRe = regexp.MustCompile(`(?m)^-- (.+?) --$`)

func parseTxtar(b []byte) *txtar {
	a := &txtar{data: map[string]string{}}
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

func (a *txtar) get(name string) string { return a.data[name] }

func (a *txtar) set(name, body string) {
	if _, ok := a.data[name]; !ok {
		a.names = append(a.names, name)
	}
	a.data[name] = body
}

func (a *txtar) format() []byte {
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
