package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/server/httpapi"
)

type sseEvent struct {
	id, name string
	data     map[string]any
}

// readEvents parses a text/event-stream, sending each event on a channel.
func readEvents(t *testing.T, url string, hdr map[string]string) (<-chan sseEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ch := make(chan sseEvent, 100)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					ch <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data)
			}
		}
	}()
	return ch, cancel
}

func waitEvent(t *testing.T, ch <-chan sseEvent, name string) sseEvent {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended before %s", name)
			}
			if ev.name == name {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event within 5s", name)
		}
	}
}

// TestEventsStreamSeesOtherProcesses: writes made through a second
// registry (standing for another process on the same data dir) appear on
// the stream, refined into the dashboard's event names.
func TestEventsStreamSeesOtherProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	e.palace("default")
	ch, stop := readEvents(t, e.srv.URL+"/events?palace=default", nil)
	defer stop()

	other, err := palace.OpenRegistry(palace.Config{DataDir: e.reg.DataDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	p, err := other.Open(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	d := &palace.Drawer{Content: "The staging cluster moved to eu-west-3"}
	if err := p.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, ch, "drawer.added")
	if ev.data["palace"] != "default" || ev.data["drawer_id"] != d.ID || ev.data["type"] != "drawer.added" {
		t.Errorf("added event = %+v", ev)
	}
	if !strings.HasPrefix(ev.id, "default=") {
		t.Errorf("event id %q does not carry the cursor", ev.id)
	}
	if _, _, err := p.Forget(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if ev := waitEvent(t, ch, "drawer.forgotten"); ev.data["drawer_id"] != d.ID {
		t.Errorf("forgotten event = %+v", ev)
	}
	if _, err := p.LogEvent(ctx, "kg.asserted", map[string]any{"subject": "staging"}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ch, "kg.asserted")
	if _, err := p.LogEvent(ctx, dreamlog.EventFinished, map[string]any{"status": "ok"}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ch, dreamlog.EventFinished)
	if _, err := session.Of(p).Append(ctx, "s", []extract.Message{{Role: "user", Text: "I like figs."}}, session.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Of(p).Flush(ctx, "s", session.Options{}); err != nil {
		t.Fatal(err)
	}
	if ev := waitEvent(t, ch, session.EventExtracted); obj(ev.data["detail"])["session_id"] != "s" {
		t.Errorf("session event = %+v", ev)
	}
}

// TestEventsResumeAndNewPalaces: Last-Event-ID resumes after a cursor, and
// a palace created while streaming is followed from its first event.
func TestEventsResumeAndNewPalaces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	ctx := context.Background()
	p := e.palace("default")
	var ids []string
	for i := range 3 {
		d := &palace.Drawer{Content: fmt.Sprintf("note %d", i)}
		if err := p.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	// Resume after the first event: the second and third follow.
	ch, stop := readEvents(t, e.srv.URL+"/events?palace=default", map[string]string{"Last-Event-ID": "default=1"})
	if ev := waitEvent(t, ch, "drawer.added"); ev.data["drawer_id"] != ids[1] {
		t.Errorf("first resumed event = %v, want %s", ev.data, ids[1])
	}
	if ev := waitEvent(t, ch, "drawer.added"); ev.data["drawer_id"] != ids[2] || ev.id != "default=3" {
		t.Errorf("second resumed event = %v (id %s)", ev.data, ev.id)
	}
	stop()
	// All palaces: one created after the stream started is seen from its start.
	ch, stop = readEvents(t, e.srv.URL+"/events", nil)
	defer stop()
	q := e.palace("fresh")
	d := &palace.Drawer{Content: "first memory of a new palace"}
	if err := q.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	if ev := waitEvent(t, ch, "drawer.added"); ev.data["palace"] != "fresh" || ev.data["drawer_id"] != d.ID {
		t.Errorf("new palace event = %v", ev.data)
	}
}

func TestEventsBadRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	for _, q := range []string{"?palace=../x", "?since=5", "?palace=a&palace=b&since=1", "?palace=a&since=-1"} {
		resp, err := http.Get(e.srv.URL + "/events" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("/events%s: %d, want 400", q, resp.StatusCode)
		}
	}
}

func TestMetricsExposition(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	e.ok("/api/v1/memory/add", seedAdd(seedTS))
	e.fail("/api/v1/memory/search", `{"query":"x"}`, 422)
	e.api.Metrics().ObserveTool("memory_recall", false, 3*time.Millisecond)
	e.api.Metrics().ObserveTool("memory_recall", true, 30*time.Millisecond)
	resp, err := http.Get(e.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	lines := map[string]string{}
	types := map[string]string{}
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "# TYPE ") {
			f := strings.Fields(l)
			types[f[2]] = f[3]
			continue
		}
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		if i < 0 {
			t.Fatalf("malformed sample %q", l)
		}
		lines[l[:i]] = l[i+1:]
	}
	for series, want := range map[string]string{
		`loci_http_requests_total{route="/api/v1/memory/add",method="POST",code="200"}`:    "1",
		`loci_http_requests_total{route="/api/v1/memory/search",method="POST",code="422"}`: "1",
		`loci_http_request_duration_seconds_bucket{route="/api/v1/memory/add",le="+Inf"}`:  "1",
		`loci_http_request_duration_seconds_count{route="/api/v1/memory/add"}`:             "1",
		`loci_mcp_tool_calls_total{tool="memory_recall",outcome="ok"}`:                     "1",
		`loci_mcp_tool_calls_total{tool="memory_recall",outcome="error"}`:                  "1",
		`loci_mcp_tool_duration_seconds_bucket{tool="memory_recall",le="0.005"}`:           "1",
		`loci_mcp_tool_duration_seconds_bucket{tool="memory_recall",le="0.05"}`:            "2",
		`loci_palace_session_buffered_messages{palace="default"}`:                          "3",
		`loci_palaces_open`:               "1",
		`loci_build_info{version="test"}`: "1",
	} {
		if got := lines[series]; got != want {
			t.Errorf("%s = %q, want %q", series, got, want)
		}
	}
	for name, typ := range map[string]string{"loci_http_requests_total": "counter", "loci_http_request_duration_seconds": "histogram",
		"loci_palace_drawers": "gauge", "loci_dreamer_runs_total": "counter", "loci_palace_index_lag": "gauge"} {
		if types[name] != typ {
			t.Errorf("TYPE of %s = %q, want %q", name, types[name], typ)
		}
	}
}

func TestDevOnlyOpenAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	resp, _ := http.Get(e.srv.URL + "/openapi.json")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/openapi.json outside dev: %d", resp.StatusCode)
	}
	dev := newEnv(t, palace.Config{}, func(c *httpapi.Config) { c.Dev = true })
	resp, err := http.Get(dev.srv.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	json.NewDecoder(resp.Body).Decode(&spec)
	resp.Body.Close()
	paths := obj(spec["paths"])
	for _, p := range []string{"/api/v1/memory/add", "/api/v1/memory/flush", "/api/v1/memory/search", "/api/v1/memory/get"} {
		if paths[p] == nil {
			t.Errorf("spec lacks %s", p)
		}
	}
	if spec["openapi"] != "3.1.0" || obj(obj(spec["components"])["schemas"])["MessageItem"] == nil {
		t.Errorf("spec = %v", spec["openapi"])
	}
	resp, err = http.Get(dev.srv.URL + "/docs")
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/docs: %v %v", err, resp)
	}
	resp.Body.Close()
}
