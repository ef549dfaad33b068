package hub_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server/hub"
)

type sseEvent struct {
	name string
	data map[string]any
}

// readEvents parses a server-sent-event stream onto a channel until it
// ends.
func readEvents(t *testing.T, res *http.Response) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					ch <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data); err != nil {
					t.Errorf("bad event data %q: %v", line, err)
				}
			}
		}
	}()
	return ch
}

// next waits for the next event satisfying ok.
func next(t *testing.T, ch <-chan sseEvent, what string, ok func(sseEvent) bool) sseEvent {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, open := <-ch:
			if !open {
				t.Fatalf("stream ended before %s", what)
			}
			if ok(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s within 5s", what)
		}
	}
}

func TestEventsStream(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/hub/api/events", nil)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	ch := readEvents(t, res)
	hello := next(t, ch, "hello", func(e sseEvent) bool { return e.name == "hello" })
	marks, _ := hello.data["palaces"].(map[string]any)
	if len(marks) != 2 || marks["alpha"].(float64) < 1 {
		t.Errorf("hello = %v", hello.data)
	}

	// A write by anyone appears, with the drawer attached; nothing from
	// before the stream opened is replayed.
	d := &palace.Drawer{Content: "A live memory written while the hub watches"}
	if err := f.beta.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch, "change", func(e sseEvent) bool { return e.name == "change" })
	if ev.data["drawer_id"] != d.ID || ev.data["palace"] != "beta" || ev.data["type"] != palace.EventAdded {
		t.Errorf("first change = %v; want the new drawer %s", ev.data, d.ID)
	}
	if dr, _ := ev.data["drawer"].(map[string]any); dr["content"] != d.Content {
		t.Errorf("change carries drawer %v", ev.data["drawer"])
	}

	// A palace created later is announced and streamed from its start.
	gamma, err := f.reg.Create(ctx, "gamma", "")
	if err != nil {
		t.Fatal(err)
	}
	next(t, ch, "palaces", func(e sseEvent) bool {
		names, _ := e.data["palaces"].([]any)
		return e.name == "palaces" && len(names) == 3
	})
	g := &palace.Drawer{Content: "first memory of gamma"}
	if err := gamma.Add(ctx, g); err != nil {
		t.Fatal(err)
	}
	next(t, ch, "gamma change", func(e sseEvent) bool { return e.name == "change" && e.data["drawer_id"] == g.ID })

	// A status change reports from and to.
	if _, _, err := f.alpha.Forget(ctx, f.known.ID); err != nil {
		t.Fatal(err)
	}
	ev = next(t, ch, "forget", func(e sseEvent) bool { return e.name == "change" && e.data["drawer_id"] == f.known.ID })
	if det, _ := ev.data["detail"].(map[string]any); det["to"] != palace.StatusDeleted || det["from"] != palace.StatusActive {
		t.Errorf("forget change = %v", ev.data)
	}
}

// TestShutdownEndsStreams checks that an open live stream does not hold a
// graceful shutdown of the server for its whole drain timeout.
func TestShutdownEndsStreams(t *testing.T) {
	t.Parallel()
	f := seed(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: hub.Handler(f.reg, hub.Options{PollInterval: 50 * time.Millisecond})}
	go srv.Serve(ln)
	res, err := http.Get("http://" + ln.Addr().String() + "/hub/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	next(t, readEvents(t, res), "hello", func(e sseEvent) bool { return e.name == "hello" })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("shutdown took %v with a stream open", took)
	}
}
