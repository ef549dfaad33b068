package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// End-to-end tests of the HTTP companion as a real process: `loci http`
// and `loci serve --http`.

var listenRe = regexp.MustCompile(`listening on https?://(127\.0\.0\.1:\d+)|"addr":"(127\.0\.0\.1:\d+)"[^\n]*HTTP companion listening`)

// waitAddr waits for the process to report the address it listens on.
func waitAddr(t *testing.T, p *proc) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenRe.FindStringSubmatch(p.stderr.String()); m != nil {
			if m[1] != "" {
				return m[1]
			}
			return m[2]
		}
		select {
		case <-p.done:
			t.Fatalf("process exited before listening: %s", p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no listening address in stderr: %s", p.stderr.String())
	return ""
}

// api posts a JSON body to the companion and returns status and answer.
func api(t *testing.T, addr, path, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: not JSON: %s", path, raw)
	}
	return resp.StatusCode, m
}

func apiData(t *testing.T, addr, path, body string) map[string]any {
	t.Helper()
	code, m := api(t, addr, path, body)
	if code != 200 {
		t.Fatalf("%s %s: %d %v", path, body, code, m)
	}
	if id, _ := m["request_id"].(string); !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
		t.Errorf("request_id %v", m["request_id"])
	}
	return m["data"].(map[string]any)
}

func arr(v any) []any { l, _ := v.([]any); return l }

func TestHTTPCompanionProcess(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := startLoci(t, home, nil, "http", "--addr", "127.0.0.1:0")
	addr := waitAddr(t, p)

	// Seed 001's cURL examples, with TS=$(date +%s) moved back to the
	// last quarter hour: every zone's midnight falls on one, and messages
	// that straddle a midnight close the stretch (a day change is a
	// session boundary), so a run just before midnight would see
	// "extracted" where the seed shows "accumulated".
	ts := time.Now().Unix()
	ts -= ts%900 - 1
	add := fmt.Sprintf(`{ "session_id": "demo-002", "app_id": "default", "project_id": "default", "messages": [
 {"sender_id": "alice", "role": "user", "timestamp": %d, "content": "I love climbing in Yosemite every spring."},
 {"sender_id": "alice", "role": "user", "timestamp": %d, "content": "My favorite coffee shop is Blue Bottle in SOMA."},
 {"sender_id": "alice", "role": "user", "timestamp": %d, "content": "I bike to work most days."} ] }`, ts, ts+10, ts+20)
	if d := apiData(t, addr, "/api/v1/memory/add", add); d["message_count"] != 3.0 || d["status"] != "accumulated" {
		t.Fatalf("add = %v", d)
	}
	if d := apiData(t, addr, "/api/v1/memory/flush", `{"session_id":"demo-002","app_id":"default","project_id":"default"}`); d["status"] != "extracted" {
		t.Fatalf("flush = %v", d)
	}
	d := apiData(t, addr, "/api/v1/memory/search", `{ "user_id": "alice", "app_id": "default", "project_id": "default", "query": "Where do I like to climb?", "top_k": 5 }`)
	eps := arr(d["episodes"])
	if len(eps) != 1 || len(arr(eps[0].(map[string]any)["atomic_facts"])) == 0 {
		t.Fatalf("search = %v", d)
	}
	for _, k := range []string{"profiles", "agent_cases", "agent_skills", "unprocessed_messages"} {
		if l, ok := d[k].([]any); !ok || len(l) != 0 {
			t.Errorf("search %s = %v", k, d[k])
		}
	}
	d = apiData(t, addr, "/api/v1/memory/get", `{ "user_id": "alice", "app_id": "default", "project_id": "default", "memory_type": "episode" }`)
	if d["total_count"] != 1.0 || d["count"] != 1.0 {
		t.Errorf("get = %v", d)
	}
	code, m := api(t, addr, "/api/v1/memory/add", `{"session_id":"x"}`)
	if e, _ := m["error"].(map[string]any); code != 422 || e["message"] != "Field required: messages" || e["code"] != "HTTP_ERROR" {
		t.Errorf("422 = %d %v", code, m)
	}

	// Events: a write by another process shows on the stream.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/events?palace=default", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			events <- sc.Text()
		}
		close(events)
	}()
	other := startLoci(t, home, nil, "serve", "--palace", "default")
	other.initialize()
	var remembered struct {
		DrawerID string `json:"drawer_id"`
	}
	other.tool("memory_remember", map[string]any{"text": "The release train leaves every second Tuesday"}, &remembered)
	if code := other.closeAndWait(10 * time.Second); code != 0 {
		t.Fatalf("serve exit %d", code)
	}
	deadline := time.After(10 * time.Second)
	for found := false; !found; {
		select {
		case line, ok := <-events:
			if !ok {
				t.Fatal("event stream ended")
			}
			found = strings.HasPrefix(line, "data: ") && strings.Contains(line, remembered.DrawerID) && strings.Contains(line, `"drawer.added"`)
		case <-deadline:
			t.Fatalf("no drawer.added event for %s", remembered.DrawerID)
		}
	}
	cancel()

	// A restart with a non-empty buffer loses nothing.
	apiData(t, addr, "/api/v1/memory/add", fmt.Sprintf(`{"session_id":"keep","messages":[
		{"sender_id":"alice","role":"user","timestamp":%d,"content":"I am learning the cello."},
		{"sender_id":"alice","role":"user","timestamp":%d,"content":"My teacher is called Ines."}]}`, ts+100, ts+110))
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(15 * time.Second); code != 0 {
		t.Fatalf("loci http exit %d after SIGTERM; stderr:\n%s", code, p.stderr.String())
	}
	p = startLoci(t, home, nil, "http", "--addr", "127.0.0.1:0")
	addr = waitAddr(t, p)
	d = apiData(t, addr, "/api/v1/memory/search", `{"user_id":"alice","query":"cello","filters":{"session_id":"keep"}}`)
	if um := arr(d["unprocessed_messages"]); len(um) != 2 || um[0].(map[string]any)["content"] != "I am learning the cello." {
		t.Fatalf("buffer after restart = %v", d["unprocessed_messages"])
	}
	if d := apiData(t, addr, "/api/v1/memory/flush", `{"session_id":"keep"}`); d["status"] != "extracted" {
		t.Fatalf("flush after restart = %v", d)
	}
	d = apiData(t, addr, "/api/v1/memory/search", `{"user_id":"alice","query":"cello teacher","top_k":3}`)
	if eps := arr(d["episodes"]); len(eps) == 0 || !strings.Contains(eps[0].(map[string]any)["episode"].(string), "Ines") {
		t.Errorf("episode after restart = %v", d["episodes"])
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(15 * time.Second); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestServeWithHTTP: `loci serve --http` answers both faces on one store,
// and stdin EOF stops both.
func TestServeWithHTTP(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := startLoci(t, home, nil, "serve", "--palace", "default", "--http", "127.0.0.1:0")
	addr := waitAddr(t, p)
	p.initialize()
	var saved map[string]any
	p.tool("mem_save_turn", map[string]any{"sessionKey": "k", "flush": true, "userId": "alice",
		"messages": []any{map[string]any{"role": "user", "content": "I keep my passport in the blue drawer."}}}, &saved)
	if saved["status"] != "extracted" {
		t.Fatalf("mem_save_turn = %v", saved)
	}
	// The same memory through the EverOS face.
	d := apiData(t, addr, "/api/v1/memory/search", `{"user_id":"alice","query":"where is the passport"}`)
	if eps := arr(d["episodes"]); len(eps) != 1 {
		t.Errorf("HTTP search of a stdio write = %v", d)
	}
	if code := p.closeAndWait(15 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := http.Get("http://" + addr + "/health"); err == nil {
		t.Error("the HTTP companion still answers after stdin EOF")
	}
}
