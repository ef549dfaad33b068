package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/server/httpapi"
)

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

// TestFilterCompileErrors: every compile error names the field or the
// operator.
func TestFilterCompileErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ filter, want string }{
		{`{"owner_id":"x"}`, "field 'owner_id' is reserved"},
		{`{"owner_type":"user"}`, "field 'owner_type' is reserved"},
		{`{"app_id":"a"}`, "field 'app_id' is reserved"},
		{`{"project_id":"p"}`, "field 'project_id' is reserved"},
		{`{"OR":[{"user_id":"x"}]}`, "unknown field 'user_id'"},
		{`{"and":[]}`, "unknown field 'and' (combinators are upper case"},
		{`{"session_id":{"gt":"a"}}`, "operator 'gt' does not apply to field 'session_id'"},
		{`{"sender_id":{"ne":"a"}}`, "operator 'ne' does not apply to field 'sender_id'"},
		{`{"timestamp":{"in":[1]}}`, "operator 'in' does not apply to field 'timestamp'"},
		{`{"timestamp":{"like":1}}`, "unknown operator 'like' on field 'timestamp'"},
		{`{"timestamp":{}}`, "field 'timestamp' has an empty operator map"},
		{`{"timestamp":"yesterday"}`, "field 'timestamp' operator 'eq'"},
		{`{"timestamp":{"gte":1.5}}`, "field 'timestamp' operator 'gte': an epoch timestamp must be an integer"},
		{`{"timestamp":true}`, "field 'timestamp' operator 'eq': needs epoch milliseconds or an ISO-8601 string"},
		{`{"session_id":5}`, "field 'session_id' operator 'eq' needs a string, got a number"},
		{`{"session_id":null}`, "field 'session_id' has a null value"},
		{`{"session_id":["a"]}`, `field 'session_id': use {"in": [...]}`},
		{`{"session_id":{"in":[]}}`, "operator 'in' on field 'session_id' needs a non-empty list"},
		{`{"sender_id":{"in":["a",2]}}`, "operator 'in' on field 'sender_id' needs strings"},
		{`{"AND":[{"OR":[{"parent_type":{"eq":1}}]}]}`, "field 'parent_type' operator 'eq' needs a string"},
		{`{"AND":"x"}`, "AND must be a list of filter objects"},
	} {
		_, err := httpapi.CompileFilter(decodeJSON(t, c.filter), time.UTC)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("filter %s: err = %v, want it to contain %q", c.filter, err, c.want)
		}
	}
	deep := strings.Repeat(`{"AND":[`, 20) + `{"session_id":"x"}` + strings.Repeat(`]}`, 20)
	if _, err := httpapi.CompileFilter(decodeJSON(t, deep), time.UTC); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("deep filter: %v", err)
	}
}

// TestFilterSemantics runs filters against real drawers through /get.
func TestFilterSemantics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	ctx := context.Background()
	p := e.palace("default")
	day := time.Date(2026, 5, 28, 0, 0, 0, 0, time.UTC)
	for i, d := range []struct {
		session string
		senders []string
	}{
		{"demo-001", []string{"alice"}},
		{"demo-001", []string{"bob"}},
		{"demo-002", []string{"alice", "carol"}},
		{"demo-003", []string{"dave"}},
	} {
		msgs := []extract.Message{}
		for _, s := range d.senders {
			msgs = append(msgs, extract.Message{Role: "user", SenderID: s, Text: fmt.Sprintf("Episode %d from %s.", i, s), Timestamp: day.Add(time.Duration(i) * time.Hour)})
		}
		if _, err := session.Of(p).Append(ctx, fmt.Sprintf("%s#%d", d.session, i), msgs, session.Options{UserID: "u"}); err != nil {
			t.Fatal(err)
		}
		res, err := session.Of(p).Flush(ctx, fmt.Sprintf("%s#%d", d.session, i), session.Options{UserID: "u"})
		if err != nil || len(res.DrawerIDs) == 0 {
			t.Fatalf("flush: %v %v", res, err)
		}
		// Keep the seed's session ids: rename the session of the drawers.
		for _, id := range res.DrawerIDs {
			if _, err := p.Update(ctx, id, func(dr *palace.Drawer) error { dr.SessionID = d.session; return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	count := func(filter string) int {
		t.Helper()
		d := e.ok("/api/v1/memory/get", `{"user_id":"u","memory_type":"episode","filters":`+filter+`}`)
		return int(d["total_count"].(float64))
	}
	for _, c := range []struct {
		filter string
		want   int
	}{
		{`{}`, 4},
		{`{"session_id":"demo-001"}`, 2},
		// the seed's example: session AND (sender alice OR bob)
		{`{"session_id":"demo-001","OR":[{"sender_id":"alice"},{"sender_id":"bob"}]}`, 2},
		{`{"session_id":"demo-002","OR":[{"sender_id":"alice"},{"sender_id":"bob"}]}`, 1},
		{`{"sender_id":"carol"}`, 1},
		{`{"sender_id":{"in":["alice","dave"]}}`, 3},
		{`{"session_id":{"in":["demo-001","demo-002"]}}`, 3},
		{`{"session_id":{"ne":"demo-001"}}`, 2},
		{`{"parent_type":"memcell"}`, 4},
		{`{"parent_id":{"eq":"nothing"}}`, 0},
		{`{"timestamp":{"gte":1779926400000,"lt":1779933600000}}`, 2}, // 00:00 to 02:00 UTC, ms
		{`{"timestamp":{"gte":1779926400,"lt":1779933600}}`, 2},       // the same in seconds
		{`{"timestamp":{"gte":"2026-05-28T02:00:00Z"}}`, 2},
		{`{"timestamp":{"gte":"2026-05-28T03:00:00+01:00"}}`, 2}, // 02:00 UTC
		{`{"timestamp":"2026-05-28T01:00:00Z"}`, 1},
		{`{"AND":[{"session_id":"demo-001"},{"sender_id":"bob"}]}`, 1},
		{`{"OR":[{"session_id":"demo-003"},{"sender_id":"carol"}]}`, 2},
		{`{"OR":[{},{"session_id":"demo-003"}]}`, 4},
		{`{"AND":[],"OR":[]}`, 4},
	} {
		if got := count(c.filter); got != c.want {
			t.Errorf("filter %s: %d episodes, want %d", c.filter, got, c.want)
		}
	}
	// A compile error is a 422 naming the field.
	errObj := e.fail("/api/v1/memory/get", `{"user_id":"u","memory_type":"episode","filters":{"colour":"red"}}`, 422)
	if !strings.Contains(errObj["message"].(string), "'colour'") {
		t.Errorf("message = %v", errObj["message"])
	}
}

// TestNaiveFilterTimeInDisplayZone: an ISO string without offset is read
// in LOCI_TIMEZONE's zone; rendered timestamps carry that zone's offset.
func TestNaiveFilterTimeInDisplayZone(t *testing.T) {
	t.Parallel()
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, palace.Config{}, func(c *httpapi.Config) { c.Location = shanghai })
	e.ok("/api/v1/memory/add", `{"session_id":"s","messages":[{"sender_id":"u","role":"user","timestamp":1779967836000,"content":"I read novels."}]}`)
	e.ok("/api/v1/memory/flush", `{"session_id":"s"}`)
	d := e.ok("/api/v1/memory/get", `{"user_id":"u","memory_type":"episode"}`)
	if ts := obj(list(d["episodes"])[0])["timestamp"]; ts != "2026-05-28T19:30:36+08:00" {
		t.Errorf("timestamp = %v, want the Shanghai rendering", ts)
	}
	// 19:30 Shanghai is 11:30 UTC: a naive 19:00 bound includes it, 20:00 excludes it.
	for bound, want := range map[string]float64{"2026-05-28T19:00:00": 1, "2026-05-28T20:00:00": 0} {
		d := e.ok("/api/v1/memory/get", `{"user_id":"u","memory_type":"episode","filters":{"timestamp":{"gte":"`+bound+`"}}}`)
		if d["total_count"] != want {
			t.Errorf("gte %s: %v, want %v", bound, d["total_count"], want)
		}
	}
	errObj := e.fail("/api/v1/memory/get", `{}`, 422)
	if ts := errObj["timestamp"].(string); !strings.HasSuffix(ts, "+08:00") {
		t.Errorf("error timestamp %q not in the display zone", ts)
	}
}

func TestTimestamps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   int64
		want string
	}{
		{1779967836, "2026-05-28T11:30:36Z"},        // seconds
		{1779967836000, "2026-05-28T11:30:36Z"},     // milliseconds
		{1779967836123, "2026-05-28T11:30:36.123Z"}, // fractional seconds shown
		{999999999999, "33658-09-27T01:46:39Z"},     // just below 10^12: seconds
		{1000000000000, "2001-09-09T01:46:40Z"},     // 10^12: milliseconds
	} {
		if got := httpapi.FormatTime(httpapi.FromEpoch(c.in, time.UTC), time.UTC); got != c.want {
			t.Errorf("epoch %d -> %s, want %s", c.in, got, c.want)
		}
	}
	ny, _ := time.LoadLocation("America/New_York")
	if got := httpapi.FormatTime(httpapi.FromEpoch(1779967836000, time.UTC), ny); got != "2026-05-28T07:30:36-04:00" {
		t.Errorf("New York rendering = %s", got)
	}
	if got := httpapi.FormatErrorTime(time.Date(2026, 6, 1, 12, 24, 46, 0, time.UTC), time.UTC); got != "2026-06-01T12:24:46+00:00" {
		t.Errorf("error time = %s", got)
	}
	for in, want := range map[string]string{
		"2026-05-28T11:30:00Z":      "2026-05-28T11:30:00Z",
		"2026-05-28T11:30:00+08:00": "2026-05-28T03:30:00Z",
		"2026-05-28T11:30:00":       "2026-05-28T15:30:00Z", // naive, read in New York (EDT)
		"2026-05-28 11:30":          "2026-05-28T15:30:00Z",
		"2026-05-28":                "2026-05-28T04:00:00Z",
		"2026-05-28T11:30:00.250Z":  "2026-05-28T11:30:00.25Z",
	} {
		tm, err := httpapi.ParseISO(in, ny)
		if err != nil {
			t.Errorf("ParseISO(%q): %v", in, err)
			continue
		}
		if got := httpapi.FormatTime(tm, time.UTC); got != want {
			t.Errorf("ParseISO(%q) = %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "May 28", "2026-13-01", "11:30"} {
		if _, err := httpapi.ParseISO(bad, time.UTC); err == nil {
			t.Errorf("ParseISO(%q) accepted", bad)
		}
	}
}

func TestPalaceNameRule(t *testing.T) {
	t.Parallel()
	seen := map[string][2]string{}
	pairs := [][2]string{
		{"default", "default"}, {"acme", "prod"}, {"acme_", "prod"}, {"acme", "_prod"}, {"acme_.prod", "x"},
		{"acme", ".prod_x"}, {"a_", ".b"}, {"a", "_.b"}, {"a__", "b"}, {"a", "__b"}, {"-x", "y"}, {".x", "y"},
		{"default", "other"}, {"other", "default"}, {"a.b", "c"}, {"a", "b.c"},
		{strings.Repeat("x", 128), strings.Repeat("y", 128)}, {strings.Repeat("x", 128), strings.Repeat("y", 127)},
		{strings.Repeat("_", 128), "z"},
	}
	for _, pr := range pairs {
		name := httpapi.PalaceName(pr[0], pr[1])
		if err := palace.ValidateName(name); err != nil {
			t.Errorf("PalaceName%v = %q is not a valid palace name: %v", pr, name, err)
		}
		if prev, dup := seen[name]; dup {
			t.Errorf("PalaceName%v = PalaceName%v = %q", pr, prev, name)
		}
		seen[name] = pr
	}
	if got := httpapi.PalaceName("default", "default"); got != "default" {
		t.Errorf("default scope -> %q", got)
	}
	if got := httpapi.PalaceName("my_app", "prod"); got != "scope_my__app_.prod" {
		t.Errorf("my_app/prod -> %q", got)
	}
}
