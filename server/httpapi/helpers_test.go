package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server/httpapi"
	"github.com/rs/zerolog"
)

// env is one API served by httptest over a fresh data dir.
type env struct {
	t   *testing.T
	api *httpapi.API
	srv *httptest.Server
	reg *palace.Registry
	log *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newEnv(t *testing.T, pcfg palace.Config, mutate func(*httpapi.Config)) *env {
	t.Helper()
	pcfg.DataDir = t.TempDir()
	reg, err := palace.OpenRegistry(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	logs := &lockedBuffer{}
	cfg := httpapi.Config{Registry: reg, Version: "test", Logger: zerolog.New(logs), EventPoll: 20 * time.Millisecond}
	if mutate != nil {
		mutate(&cfg)
	}
	api, err := httpapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	api.Register(mux)
	srv := httptest.NewServer(api.Metrics().Middleware(mux, mux))
	t.Cleanup(func() { api.Close(); srv.Close() })
	return &env{t: t, api: api, srv: srv, reg: reg, log: logs}
}

// post sends a JSON body and decodes the JSON answer.
func (e *env) post(path, body string) (int, map[string]any) {
	e.t.Helper()
	resp, err := http.Post(e.srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		e.t.Fatalf("POST %s: answer is not JSON: %s", path, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		e.t.Errorf("POST %s: Content-Type %q", path, ct)
	}
	return resp.StatusCode, m
}

// ok posts and returns data, failing unless the answer is a 200 envelope.
func (e *env) ok(path, body string) map[string]any {
	e.t.Helper()
	code, m := e.post(path, body)
	if code != 200 {
		e.t.Fatalf("POST %s %s: %d %v", path, body, code, m)
	}
	checkRequestID(e.t, m)
	if w, ok := m["warnings"]; ok {
		e.t.Errorf("POST %s %s: warnings %v; every field sent is the endpoint's", path, body, w)
	}
	data, ok := m["data"].(map[string]any)
	if !ok {
		e.t.Fatalf("POST %s: no data object: %v", path, m)
	}
	return data
}

var requestIDRe = regexp.MustCompile(`^[0-9a-f]{32}$`)

func checkRequestID(t *testing.T, m map[string]any) {
	t.Helper()
	if id, _ := m["request_id"].(string); !requestIDRe.MatchString(id) {
		t.Errorf("request_id %v is not 32 lowercase hex", m["request_id"])
	}
}

// fail posts and returns the error object, checking the envelope.
func (e *env) fail(path, body string, status int) map[string]any {
	e.t.Helper()
	code, m := e.post(path, body)
	if code != status {
		e.t.Fatalf("POST %s %s: status %d, want %d: %v", path, body, code, status, m)
	}
	checkRequestID(e.t, m)
	errObj, ok := m["error"].(map[string]any)
	if !ok {
		e.t.Fatalf("no error object: %v", m)
	}
	wantCode := "HTTP_ERROR"
	if status >= 500 {
		wantCode = "SYSTEM_ERROR"
	}
	if errObj["code"] != wantCode || errObj["path"] != path {
		e.t.Errorf("error = %v, want code %s and path %s", errObj, wantCode, path)
	}
	if _, err := time.Parse(time.RFC3339, errObj["timestamp"].(string)); err != nil {
		e.t.Errorf("error timestamp %v: %v", errObj["timestamp"], err)
	}
	if len(m) != 2 {
		e.t.Errorf("error envelope has extra keys: %v", m)
	}
	return errObj
}

func (e *env) palace(name string) *palace.Palace {
	e.t.Helper()
	p, err := e.reg.OpenOrCreate(context.Background(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
