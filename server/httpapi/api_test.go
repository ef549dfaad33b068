package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/server/httpapi"
)

// seedAdd is seed 001's /add cURL example (TS=$(date +%s): seconds, which
// the server reads as seconds because they are below 10^12).
func seedAdd(ts int64) string {
	return fmt.Sprintf(`{ "session_id": "demo-002", "app_id": "default", "project_id": "default", "messages": [
 {"sender_id": "alice", "role": "user", "timestamp": %d, "content": "I love climbing in Yosemite every spring."},
 {"sender_id": "alice", "role": "user", "timestamp": %d, "content": "My favorite coffee shop is Blue Bottle in SOMA."},
 {"sender_id": "alice", "role": "user", "timestamp": %d, "content": "I bike to work most days."} ] }`, ts, ts+10, ts+20)
}

var (
	isoZ    = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	epIDRe  = regexp.MustCompile(`^alice_ep_\d{8}_\d{8}$`)
	afIDRe  = regexp.MustCompile(`^alice_af_\d{8}_\d{8}$`)
	seedTS  = int64(1779967836) // 2026-05-28T11:30:36Z, in seconds
	seedDay = "20260528"
)

// TestSeedCurlExamples replays the four cURL examples of seed 001 and
// checks the documented result shapes.
func TestSeedCurlExamples(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	data := e.ok("/api/v1/memory/add", seedAdd(seedTS))
	if data["message_count"] != 3.0 || data["status"] != "accumulated" || len(data) != 2 {
		t.Fatalf("add = %v", data)
	}
	data = e.ok("/api/v1/memory/flush", `{"session_id":"demo-002","app_id":"default","project_id":"default"}`)
	if data["status"] != "extracted" || len(data) != 1 {
		t.Fatalf("flush = %v", data)
	}
	// Read-your-writes: the episode is searchable as soon as flush returns.
	data = e.ok("/api/v1/memory/search", `{ "user_id": "alice", "app_id": "default", "project_id": "default", "query": "Where do I like to climb?", "top_k": 5 }`)
	for _, k := range []string{"episodes", "profiles", "agent_cases", "agent_skills", "unprocessed_messages"} {
		if _, ok := data[k].([]any); !ok {
			t.Errorf("search data lacks the array %q: %v", k, data)
		}
	}
	eps := list(data["episodes"])
	if len(eps) != 1 {
		t.Fatalf("episodes = %v", eps)
	}
	ep := obj(eps[0])
	checkEpisode(t, ep, true)
	if id := ep["id"].(string); !strings.Contains(id, "_"+seedDay+"_") {
		t.Errorf("episode id %q is not dated %s", id, seedDay)
	}
	if ep["timestamp"] != "2026-05-28T11:30:36Z" {
		t.Errorf("timestamp = %v, want the first message's time", ep["timestamp"])
	}
	facts := list(ep["atomic_facts"])
	if len(facts) == 0 {
		t.Fatal("no atomic facts nested in the episode")
	}
	top := obj(facts[0])
	if !afIDRe.MatchString(top["id"].(string)) || !strings.Contains(top["content"].(string), "Yosemite") {
		t.Errorf("best atomic fact = %v", top)
	}
	if _, ok := top["score"].(float64); !ok {
		t.Errorf("atomic fact score = %v", top["score"])
	}

	data = e.ok("/api/v1/memory/get", `{ "user_id": "alice", "app_id": "default", "project_id": "default", "memory_type": "episode" }`)
	if data["total_count"] != 1.0 || data["count"] != 1.0 {
		t.Errorf("get counts = %v / %v", data["total_count"], data["count"])
	}
	for _, k := range []string{"episodes", "profiles", "agent_cases", "agent_skills"} {
		if _, ok := data[k].([]any); !ok {
			t.Errorf("get data lacks the array %q", k)
		}
	}
	checkEpisode(t, obj(list(data["episodes"])[0]), false)
}

func checkEpisode(t *testing.T, ep map[string]any, search bool) {
	t.Helper()
	if !epIDRe.MatchString(fmt.Sprint(ep["id"])) {
		t.Errorf("episode id %v does not match %v", ep["id"], epIDRe)
	}
	want := map[string]any{"user_id": "alice", "app_id": "default", "project_id": "default", "session_id": "demo-002", "type": "Conversation"}
	for k, v := range want {
		if ep[k] != v {
			t.Errorf("episode %s = %v, want %v", k, ep[k], v)
		}
	}
	if !isoZ.MatchString(fmt.Sprint(ep["timestamp"])) {
		t.Errorf("timestamp %v is not ISO-8601 in UTC", ep["timestamp"])
	}
	if s := list(ep["sender_ids"]); len(s) != 1 || s[0] != "alice" {
		t.Errorf("sender_ids = %v", ep["sender_ids"])
	}
	for _, k := range []string{"summary", "subject", "episode"} {
		if s, _ := ep[k].(string); strings.TrimSpace(s) == "" {
			t.Errorf("episode %s is empty", k)
		}
	}
	if s, _ := ep["summary"].(string); len(s) > 200 {
		t.Errorf("summary is %d bytes", len(s))
	}
	if n, _ := ep["episode"].(string); !strings.Contains(n, "May 28, 2026") {
		t.Errorf("narrative lacks the absolute date: %q", n)
	}
	_, hasScore := ep["score"]
	_, hasFacts := ep["atomic_facts"]
	if hasScore != search || hasFacts != search {
		t.Errorf("score/atomic_facts present = %v/%v, want %v", hasScore, hasFacts, search)
	}
	n := 11
	if search {
		n = 13
	}
	if len(ep) != n {
		t.Errorf("episode has %d fields, want %d: %v", len(ep), n, ep)
	}
}

func TestUnprocessedMessagesOnlyForScalarSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	e.ok("/api/v1/memory/add", `{"session_id":"s1","messages":[
		{"sender_id":"bob","sender_name":"Bob","role":"user","timestamp":1779968400000,"content":[{"type":"text","text":"hello there"}]},
		{"sender_id":"bot","role":"assistant","timestamp":1779968401000,"content":"","tool_calls":[{"id":"c1","function":{"name":"lookup","arguments":"{\"q\":1}"}}]},
		{"sender_id":"bot","role":"tool","timestamp":1779968402000,"content":"42","tool_call_id":"c1"}]}`)
	data := e.ok("/api/v1/memory/search", `{"user_id":"bob","query":"hello","filters":{"session_id":"s1"}}`)
	um := list(data["unprocessed_messages"])
	if len(um) != 3 {
		t.Fatalf("unprocessed = %v", um)
	}
	first := obj(um[0])
	if first["sender_name"] != "Bob" || first["role"] != "user" || first["session_id"] != "s1" ||
		first["timestamp"] != "2026-05-28T11:40:00Z" || first["tool_calls"] != nil || first["tool_call_id"] != nil {
		t.Errorf("first unprocessed = %v", first)
	}
	if items := list(first["content"]); len(items) != 1 || obj(items[0])["text"] != "hello there" {
		t.Errorf("array content not returned as sent: %v", first["content"])
	}
	if id, _ := first["id"].(string); id == "" {
		t.Error("unprocessed message has no id")
	}
	second := obj(um[1])
	tc := obj(list(second["tool_calls"])[0])
	if tc["id"] != "c1" || tc["type"] != "function" || obj(tc["function"])["name"] != "lookup" || obj(tc["function"])["arguments"] != `{"q":1}` {
		t.Errorf("tool_calls = %v", second["tool_calls"])
	}
	if obj(um[2])["tool_call_id"] != "c1" || obj(um[2])["content"] != "42" {
		t.Errorf("tool message = %v", um[2])
	}
	for _, f := range []string{`{"session_id":{"eq":"s1"}}`, `{"AND":[{"session_id":"s1"}]}`, `{"session_id":{"in":["s1"]}}`} {
		data := e.ok("/api/v1/memory/search", `{"user_id":"bob","query":"hello","filters":`+f+`}`)
		if n := len(list(data["unprocessed_messages"])); n != 0 {
			t.Errorf("filters %s surfaced %d unprocessed messages", f, n)
		}
	}
}

func TestScopesNeverCross(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	add := func(app, project, text string) {
		e.ok("/api/v1/memory/add", fmt.Sprintf(`{"session_id":"s","app_id":%q,"project_id":%q,"messages":[{"sender_id":"u","role":"user","timestamp":1779968400000,"content":%q}]}`, app, project, text))
		e.ok("/api/v1/memory/flush", fmt.Sprintf(`{"session_id":"s","app_id":%q,"project_id":%q}`, app, project))
	}
	add("default", "default", "I keep bees on the roof.")
	add("acme", "prod", "I deploy on Fridays.")
	add("acme_prod", "x", "I play the oboe.")
	search := func(app, project, q string) []any {
		return list(e.ok("/api/v1/memory/search", fmt.Sprintf(`{"user_id":"u","app_id":%q,"project_id":%q,"query":%q,"top_k":10}`, app, project, q))["episodes"])
	}
	if got := search("acme", "prod", "deploy Fridays"); len(got) != 1 || obj(got[0])["app_id"] != "acme" || obj(got[0])["project_id"] != "prod" {
		t.Errorf("acme/prod search = %v", got)
	}
	for _, sc := range [][2]string{{"default", "default"}, {"acme_prod", "x"}, {"acme", "prod2"}} {
		for _, ep := range search(sc[0], sc[1], "deploy Fridays") {
			if strings.Contains(obj(ep)["episode"].(string), "Fridays") {
				t.Errorf("scope %v sees acme/prod's episode", sc)
			}
		}
	}
	if n := len(search("nope", "nothing", "anything")); n != 0 {
		t.Errorf("an unknown scope returned %d episodes", n)
	}
	if e.reg.Exists(httpapi.PalaceName("nope", "nothing")) {
		t.Error("a search created a palace for an unknown scope")
	}
}

func TestServerErrorHidesDetails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{Extractor: brokenExtractor{}}, nil)
	e.ok("/api/v1/memory/add", `{"session_id":"s","messages":[{"sender_id":"u","role":"user","timestamp":1779968400000,"content":"I like tea."}]}`)
	errObj := e.fail("/api/v1/memory/flush", `{"session_id":"s"}`, http.StatusInternalServerError)
	if errObj["message"] != "Internal server error" {
		t.Errorf("500 message = %v", errObj["message"])
	}
	if !strings.Contains(e.log.String(), "database on fire") {
		t.Errorf("the cause is not in the log: %s", e.log.String())
	}
	// Nothing was lost: the message is still buffered, and /metrics counts
	// the session whose extraction fails.
	msgs, _ := session.Of(e.palace("default")).Messages(context.Background(), "s")
	if len(msgs) != 1 {
		t.Errorf("%d buffered after a failed flush, want 1", len(msgs))
	}
	resp, err := http.Get(e.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `loci_palace_extraction_failing_sessions{palace="default"} 1`; !strings.Contains(string(body), want) {
		t.Errorf("/metrics lacks %q", want)
	}
}

type brokenExtractor struct{}

func (brokenExtractor) Name() string { return "broken" }
func (brokenExtractor) Extract(context.Context, string, bool, []extract.Message) (extract.Result, error) {
	return extract.Result{}, errors.New("database on fire")
}
func (brokenExtractor) Facts(context.Context, []extract.Message) ([]extract.Fact, error) {
	return nil, errors.New("database on fire")
}

func TestTransportErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	for _, c := range []struct {
		method, path, ctype, body string
		status                    int
	}{
		{http.MethodPost, "/api/v1/memory/add", "text/plain", `{}`, http.StatusUnsupportedMediaType},
		{http.MethodPost, "/api/v1/memory/search", "", `{}`, http.StatusUnsupportedMediaType},
		{http.MethodGet, "/api/v1/memory/get", "", ``, http.StatusMethodNotAllowed},
		{http.MethodPost, "/api/v1/memory/nope", "application/json", `{}`, http.StatusNotFound},
	} {
		req, _ := http.NewRequest(c.method, e.srv.URL+c.path, strings.NewReader(c.body))
		if c.ctype != "" {
			req.Header.Set("Content-Type", c.ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s (%q): %d %s, want %d JSON", c.method, c.path, c.ctype, resp.StatusCode, resp.Header.Get("Content-Type"), c.status)
		}
	}
	// charset parameters are fine.
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/api/v1/memory/flush", strings.NewReader(`{"session_id":"x"}`))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("JSON with charset: %v %v", err, resp.StatusCode)
	}
	resp.Body.Close()
}

func TestAgentTrackSearchAndGet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	e.ok("/api/v1/memory/add", `{"session_id":"run-7","messages":[
		{"sender_id":"alice","role":"user","timestamp":1779968400000,"content":"Fix the flaky login test."},
		{"sender_id":"coder","role":"assistant","timestamp":1779968401000,"content":"Running it in a loop.","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_tests","arguments":"{}"}}]},
		{"sender_id":"coder","role":"tool","timestamp":1779968402000,"content":"1 failure in 50 runs","tool_call_id":"c1"},
		{"sender_id":"coder","role":"assistant","timestamp":1779968403000,"content":"The fix was a missing await because the session write raced the redirect."}]}`)
	e.ok("/api/v1/memory/flush", `{"session_id":"run-7"}`)
	// A skill as the dreamer writes it.
	p := e.palace("default")
	ids, _ := session.Of(p).AllocIDs(context.Background(), "coder", "sk", time.Date(2026, 5, 28, 0, 0, 0, 0, time.UTC), 1)
	if err := p.Add(context.Background(), &palace.Drawer{ID: ids[0], Kind: palace.KindAgentSkill, AgentID: "coder",
		Content: "Debugging flaky login tests: loop the test, look for missing awaits.",
		Meta: map[string]any{"name": "debug-flaky-tests", "description": "Find races in flaky tests", "content": "Loop the test; look for missing awaits.",
			"confidence": 0.8, "maturity_score": 0.4, "source_case_ids": []string{"coder_ac_20260528_00000001"}}}); err != nil {
		t.Fatal(err)
	}
	data := e.ok("/api/v1/memory/search", `{"agent_id":"coder","query":"flaky login test","top_k":5}`)
	cases, skills := list(data["agent_cases"]), list(data["agent_skills"])
	if len(cases) != 1 || len(skills) != 1 || len(list(data["episodes"])) != 0 {
		t.Fatalf("agent search = %v", data)
	}
	c := obj(cases[0])
	if c["id"] != "coder_ac_20260528_00000001" || c["agent_id"] != "coder" || c["session_id"] != "run-7" ||
		c["task_intent"] != "Fix the flaky login test." || c["quality_score"] == nil || c["score"] == nil ||
		!strings.Contains(fmt.Sprint(c["key_insight"]), "because") || !isoZ.MatchString(fmt.Sprint(c["timestamp"])) {
		t.Errorf("case = %v", c)
	}
	s := obj(skills[0])
	if s["name"] != "debug-flaky-tests" || s["maturity_score"] != 0.4 || s["confidence"] != 0.8 ||
		len(list(s["source_case_ids"])) != 1 || s["content"] != "Loop the test; look for missing awaits." {
		t.Errorf("skill = %v", s)
	}
	get := e.ok("/api/v1/memory/get", `{"agent_id":"coder","memory_type":"agent_case"}`)
	if get["count"] != 1.0 || obj(list(get["agent_cases"])[0])["score"] != nil {
		t.Errorf("get agent_case = %v", get)
	}
	get = e.ok("/api/v1/memory/get", `{"agent_id":"coder","memory_type":"agent_skill","sort_by":"timestamp"}`)
	if get["count"] != 1.0 {
		t.Errorf("get agent_skill = %v", get)
	}
	// The user side of the same run: an episode for alice.
	if n := len(list(e.ok("/api/v1/memory/search", `{"user_id":"alice","query":"flaky login"}`)["episodes"])); n != 1 {
		t.Errorf("alice's episodes = %d", n)
	}
}

func TestProfileAndPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	for i := range 5 {
		ts := int64(1779968400000) + int64(i)*24*3600*1000 // one per day
		e.ok("/api/v1/memory/add", fmt.Sprintf(`{"session_id":"s%d","messages":[{"sender_id":"carol","role":"user","timestamp":%d,"content":"Note number %d. I live in Porto."}]}`, i, ts, i))
		e.ok("/api/v1/memory/flush", fmt.Sprintf(`{"session_id":"s%d"}`, i))
	}
	data := e.ok("/api/v1/memory/search", `{"user_id":"carol","query":"where does carol live","include_profile":true}`)
	profs := list(data["profiles"])
	if len(profs) != 1 {
		t.Fatalf("profiles = %v", data["profiles"])
	}
	pr := obj(profs[0])
	if pr["score"] != nil || obj(pr["profile_data"])["location"] != "Porto" || pr["user_id"] != "carol" {
		t.Errorf("profile = %v", pr)
	}
	// Without include_profile, none.
	if n := len(list(e.ok("/api/v1/memory/search", `{"user_id":"carol","query":"live"}`)["profiles"])); n != 0 {
		t.Errorf("profiles without include_profile: %d", n)
	}
	page := func(body string) ([]string, float64) {
		d := e.ok("/api/v1/memory/get", body)
		var subjects []string
		for _, ep := range list(d["episodes"]) {
			subjects = append(subjects, obj(ep)["subject"].(string))
		}
		return subjects, d["total_count"].(float64)
	}
	got, total := page(`{"user_id":"carol","memory_type":"episode","page":2,"page_size":2}`)
	if total != 5 || strings.Join(got, "|") != "Note number 2.|Note number 1." {
		t.Errorf("page 2 desc = %v (total %v)", got, total)
	}
	got, _ = page(`{"user_id":"carol","memory_type":"episode","page":1,"page_size":2,"sort_order":"asc"}`)
	if strings.Join(got, "|") != "Note number 0.|Note number 1." {
		t.Errorf("page 1 asc = %v", got)
	}
	got, _ = page(`{"user_id":"carol","memory_type":"episode","page":9}`)
	if len(got) != 0 {
		t.Errorf("page past the end = %v", got)
	}
	got, _ = page(`{"user_id":"carol","memory_type":"episode","filters":{"timestamp":{"gte":"2026-05-30T00:00:00Z","lt":1780272000000}}}`)
	if strings.Join(got, "|") != "Note number 3.|Note number 2." {
		t.Errorf("timestamp window = %v", got)
	}
	d := e.ok("/api/v1/memory/get", `{"user_id":"carol","memory_type":"profile"}`)
	if d["count"] != 1.0 || obj(list(d["profiles"])[0])["id"] != "carol_profile" {
		t.Errorf("get profile = %v", d)
	}
}

func TestSearchMethodsAndRadius(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	texts := []string{"I grow tomatoes and basil on the balcony.", "My car is a red Volvo estate.", "I swim at the lido every morning."}
	for i, txt := range texts {
		e.ok("/api/v1/memory/add", fmt.Sprintf(`{"session_id":"m%d","messages":[{"sender_id":"dan","role":"user","timestamp":1779968400000,"content":%q}]}`, i, txt))
		e.ok("/api/v1/memory/flush", fmt.Sprintf(`{"session_id":"m%d"}`, i))
	}
	for _, m := range []string{"keyword", "vector", "hybrid", "agentic"} {
		eps := list(e.ok("/api/v1/memory/search", `{"user_id":"dan","query":"tomatoes basil balcony","method":"`+m+`","top_k":1}`)["episodes"])
		if len(eps) != 1 || !strings.Contains(obj(eps[0])["episode"].(string), "tomatoes") {
			t.Errorf("method %s: %v", m, eps)
		}
	}
	// radius 1.0 keeps nothing but exact matches; keyword search ignores it.
	if n := len(list(e.ok("/api/v1/memory/search", `{"user_id":"dan","query":"tomatoes","radius":1.0}`)["episodes"])); n != 0 {
		t.Errorf("radius 1: %d episodes", n)
	}
	if n := len(list(e.ok("/api/v1/memory/search", `{"user_id":"dan","query":"tomatoes","method":"keyword","radius":1.0}`)["episodes"])); n != 1 {
		t.Errorf("keyword with radius 1: %d episodes", n)
	}
	// radius 0 (given) applies no threshold even with top_k -1.
	if n := len(list(e.ok("/api/v1/memory/search", `{"user_id":"dan","query":"zebra crossing","radius":0}`)["episodes"])); n == 0 {
		t.Error("radius 0 filtered everything")
	}
}

// A retried /add with the same Idempotency-Key buffers its messages once
// (a client that timed out and retries must not duplicate the turn).
func TestAddIsIdempotentWithAKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, palace.Config{}, nil)
	body := `{"session_id":"s","messages":[{"sender_id":"bob","role":"user","timestamp":1779968400000,"content":"I moved to Porto"}]}`
	send := func(key string) map[string]any {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/api/v1/memory/add", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env struct {
			Data  map[string]any `json:"data"`
			Error map[string]any `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
			t.Fatal(err)
		}
		if key == "bad key" {
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("bad key answered %d", resp.StatusCode)
			}
			return env.Error
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %v", resp.StatusCode, env.Error)
		}
		return env.Data
	}
	if first := send("k-1"); first["duplicate"] != nil {
		t.Fatalf("first send = %v", first)
	}
	if again := send("k-1"); again["duplicate"] != true || again["message_count"] != float64(1) {
		t.Fatalf("retry = %v", again)
	}
	msgs, err := session.Of(e.palace("default")).Messages(context.Background(), "s")
	if err != nil || len(msgs) != 1 {
		t.Fatalf("buffered after a retry: %d, %v", len(msgs), err)
	}
	send("k-2") // another key: another request
	send("")    // no key: every send counts
	if msgs, _ = session.Of(e.palace("default")).Messages(context.Background(), "s"); len(msgs) != 3 {
		t.Fatalf("buffered %d, want 3", len(msgs))
	}
	if errBody := send("bad key"); errBody == nil {
		t.Fatal("a key with a space was accepted")
	}
	// A key is kept only as its hash: one holding a credential still
	// dedupes, and reaches no file.
	secretKey := "k-" + fakeGHP
	send(secretKey)
	if again := send(secretKey); again["duplicate"] != true {
		t.Fatalf("retry with a token-like key = %v", again)
	}
	e.reg.Close()
	filepath.Walk(e.reg.DataDir(), func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(fakeGHP[4:])) {
				t.Errorf("%s holds the Idempotency-Key", path)
			}
		}
		return nil
	})
}
