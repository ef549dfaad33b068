package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/palacetest"
	"github.com/loci-mem/loci/server"
)

// companion is a running HTTP companion for one test.
type companion struct {
	url  string
	reg  *palace.Registry
	stop func() error // cancels and waits for Serve
}

func startCompanion(t *testing.T, cfg palace.Config, addr string) *companion {
	t.Helper()
	return startCompanionWith(t, cfg, server.Config{}, addr)
}

// startCompanionWith is startCompanion with more of the MCP server's
// configuration (its registry, default palace and version are set here).
func startCompanionWith(t *testing.T, cfg palace.Config, scfg server.Config, addr string) *companion {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	reg, err := palace.OpenRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	scfg.Registry, scfg.DefaultPalace, scfg.Version = reg, "p", "test"
	srv, err := server.New(scfg)
	if err != nil {
		t.Fatal(err)
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	hs, err := server.NewHTTP(server.HTTPConfig{Server: srv, Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hs.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-done:
			case <-time.After(15 * time.Second):
				serveErr = errors.New("Serve did not return within 15s")
			}
		})
		return serveErr
	}
	t.Cleanup(func() { stop() })
	return &companion{url: "http://" + ln.Addr().String(), reg: reg, stop: stop}
}

func TestMCPOverStreamableHTTPAndSSE(t *testing.T) {
	t.Parallel()
	c := startCompanion(t, palace.Config{}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tr := range []struct {
		name string
		t    sdk.Transport
	}{
		{"streamable", &sdk.StreamableClientTransport{Endpoint: c.url + "/mcp", MaxRetries: -1}},
		{"sse", &sdk.SSEClientTransport{Endpoint: c.url + "/sse"}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
			cs, err := client.Connect(ctx, tr.t, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, tl := range tools.Tools {
				names[tl.Name] = true
			}
			for _, want := range []string{"memory_remember", "memory_recall", "mem_save_turn", "palace_list"} {
				if !names[want] {
					t.Errorf("tools/list over %s lacks %s", tr.name, want)
				}
			}
			text := "The " + tr.name + " transport stores the staging database password rotation schedule"
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "memory_remember", Arguments: map[string]any{"text": text}})
			if err != nil || res.IsError {
				t.Fatalf("memory_remember: %v %+v", err, res)
			}
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "memory_recall", Arguments: map[string]any{"query": tr.name + " transport rotation schedule"}})
			if err != nil || res.IsError {
				t.Fatalf("memory_recall: %v %+v", err, res)
			}
			if got := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(got, text) {
				t.Errorf("recall over %s did not find the memory: %s", tr.name, got)
			}
			// A tool failure is still a result, not a transport error.
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "mem_save_turn", Arguments: map[string]any{}})
			if err != nil || !res.IsError {
				t.Fatalf("mem_save_turn without turns: err %v, isError %v", err, res != nil && res.IsError)
			}
		})
	}
	// The tool calls are counted per tool and outcome.
	body := httpGet(t, c.url+"/metrics", nil, http.StatusOK)
	for _, want := range []string{
		`loci_mcp_tool_calls_total{tool="memory_remember",outcome="ok"} 2`,
		`loci_mcp_tool_calls_total{tool="mem_save_turn",outcome="error"} 2`,
		`loci_mcp_tool_duration_seconds_count{tool="memory_recall"} 2`,
		`loci_http_requests_total{route="/mcp",method="POST",code="200"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func httpGet(t *testing.T, url string, hdr map[string]string, want int) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s %v: status %d, want %d: %s", url, hdr, resp.StatusCode, want, b)
	}
	return string(b)
}

func postJSON(t *testing.T, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestCompanionGuards(t *testing.T) {
	t.Setenv("LOCI_HTTP_MAX_BODY", "4096")
	c := startCompanion(t, palace.Config{}, "")
	httpGet(t, c.url+"/health", nil, http.StatusOK)
	// DNS rebinding: a foreign Host or a cross-origin browser request.
	httpGet(t, c.url+"/health", map[string]string{"Host": "evil.example:80"}, http.StatusForbidden)
	httpGet(t, c.url+"/health", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden)
	httpGet(t, c.url+"/health", map[string]string{"Origin": c.url}, http.StatusOK)
	// A request without a Host (HTTP/1.0) or with an empty one.
	for _, req := range []string{"GET /health HTTP/1.0\r\n\r\n", "GET /health HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(c.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(conn, req)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", req, resp.StatusCode)
		}
		conn.Close()
	}
	// The body limit.
	big := `{"session_id":"s","messages":[{"sender_id":"a","role":"user","timestamp":1,"content":"` + strings.Repeat("x", 5000) + `"}]}`
	code, body := postJSON(t, c.url+"/api/v1/memory/add", big, nil)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"HTTP_ERROR"`) {
		t.Errorf("oversized body: %d %s", code, body)
	}
	if n, _ := c.reg.List(); len(n) != 0 {
		t.Errorf("a rejected request created palaces: %v", n)
	}
	// The health report.
	var h map[string]any
	json.Unmarshal([]byte(httpGet(t, c.url+"/health", nil, http.StatusOK)), &h)
	if h["status"] != "ok" || h["version"] != "test" || h["index"] == nil || h["palaces_open"] == nil {
		t.Errorf("health = %v", h)
	}
}

func TestCompanionTokenAndBinding(t *testing.T) {
	reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	srv, _ := server.New(server.Config{Registry: reg})
	t.Setenv("LOCI_HTTP_TOKEN", "")
	if _, err := server.NewHTTP(server.HTTPConfig{Server: srv, Addr: "0.0.0.0:0"}); err == nil {
		t.Fatal("bound every interface without a token")
	}
	// With a token, every route but /health requires it.
	t.Setenv("LOCI_HTTP_TOKEN", "s3cret-token")
	c := startCompanion(t, palace.Config{}, "127.0.0.1:0")
	httpGet(t, c.url+"/health", nil, http.StatusOK)
	httpGet(t, c.url+"/metrics", nil, http.StatusUnauthorized)
	httpGet(t, c.url+"/metrics", map[string]string{"Authorization": "Bearer wrong"}, http.StatusUnauthorized)
	httpGet(t, c.url+"/metrics", map[string]string{"Authorization": "Bearer s3cret-token"}, http.StatusOK)
	// The scheme is case-insensitive; another scheme is not a bearer token.
	httpGet(t, c.url+"/metrics", map[string]string{"Authorization": "bearer s3cret-token"}, http.StatusOK)
	httpGet(t, c.url+"/metrics", map[string]string{"Authorization": "BEARER s3cret-token"}, http.StatusOK)
	httpGet(t, c.url+"/metrics", map[string]string{"Authorization": "Basic s3cret-token"}, http.StatusUnauthorized)
	httpGet(t, c.url+"/metrics", map[string]string{"Authorization": "s3cret-token"}, http.StatusUnauthorized)
	code, _ := postJSON(t, c.url+"/api/v1/memory/flush", `{"session_id":"s"}`, nil)
	if code != http.StatusUnauthorized {
		t.Errorf("flush without token: %d", code)
	}
}

// slowExtractor blocks extraction until released.
type slowExtractor struct {
	started chan struct{}
	release chan struct{}
}

func (s *slowExtractor) Name() string { return "slow" }
func (s *slowExtractor) Extract(ctx context.Context, owner string, agent bool, msgs []extract.Message) (extract.Result, error) {
	close(s.started)
	<-s.release
	return extract.Heuristic().Extract(ctx, owner, agent, msgs)
}
func (s *slowExtractor) Facts(ctx context.Context, msgs []extract.Message) ([]extract.Fact, error) {
	return nil, nil
}

func TestGracefulShutdownDrainsAndEndsStreams(t *testing.T) {
	t.Parallel()
	ext := &slowExtractor{started: make(chan struct{}), release: make(chan struct{})}
	c := startCompanion(t, palace.Config{Extractor: ext}, "")
	code, body := postJSON(t, c.url+"/api/v1/memory/add",
		`{"session_id":"s","messages":[{"sender_id":"u","role":"user","timestamp":1779968400000,"content":"I like tea."}]}`, nil)
	if code != 200 {
		t.Fatalf("add: %d %s", code, body)
	}
	// An open event stream must not hold up the shutdown.
	resp, err := http.Get(c.url + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	flushDone := make(chan string, 1)
	go func() {
		code, body := postJSON(t, c.url+"/api/v1/memory/flush", `{"session_id":"s"}`, nil)
		flushDone <- strings.TrimSpace(body) + " " + http.StatusText(code)
	}()
	<-ext.started
	stopped := make(chan error, 1)
	go func() { stopped <- c.stop() }()
	// Shutdown has begun once the listener refuses new connections; it
	// must then wait for the flush in flight.
	palacetest.WaitFor(t, 5*time.Second, "the listener to close", func() bool {
		resp, err := http.Get(c.url + "/health")
		if err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) while a request was in flight", err)
	default:
	}
	close(ext.release)
	if got := <-flushDone; !strings.Contains(got, `"status":"extracted"`) || !strings.HasSuffix(got, "OK") {
		t.Errorf("in-flight flush = %s", got)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := net.DialTimeout("tcp", strings.TrimPrefix(c.url, "http://"), time.Second); err == nil {
		t.Error("still accepting connections after shutdown")
	}
}

// What the streamable HTTP transport refuses is refused as a JSON-RPC
// error, with the specification's status codes, where mcp-go would answer
// in plain text: a body that is not JSON, a message other than initialize
// without a session id (400), with an unknown one (404: initialize again),
// or with a protocol version the server does not speak, a listening
// stream or a session's end asked for without a session, and a method the
// transport does not take (405). The request's id is echoed when there is
// one.
func TestMCPOverHTTPRefusesWithJSONRPCErrors(t *testing.T) {
	t.Parallel()
	c := startCompanion(t, palace.Config{}, "")
	u := c.url + "/mcp"
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize returned no session id")
	}
	list := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	client := &http.Client{Timeout: 10 * time.Second} // a stream opened by mistake fails the case, not the run
	for _, tc := range []struct {
		name, method, ctype, body string
		hdr                       map[string]string
		status                    int
		id, says                  string
	}{
		{"not JSON", http.MethodPost, "text/plain", list, map[string]string{"Mcp-Session-Id": sid}, http.StatusUnsupportedMediaType, "null", "Content-Type: application/json"},
		{"no content type", http.MethodPost, "", list, map[string]string{"Mcp-Session-Id": sid}, http.StatusUnsupportedMediaType, "null", "Content-Type: application/json"},
		{"no session", http.MethodPost, "application/json", list, nil, http.StatusBadRequest, "7", "Mcp-Session-Id header is required"},
		{"unknown session", http.MethodPost, "application/json", list, map[string]string{"Mcp-Session-Id": "made-up"}, http.StatusNotFound, "7", "send initialize for a new one"},
		{"notification without a session", http.MethodPost, "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, http.StatusBadRequest, "null", "Mcp-Session-Id header is required"},
		{"protocol version", http.MethodPost, "application/json", list, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "1999-01-01"}, http.StatusBadRequest, "7", `unsupported MCP-Protocol-Version "1999-01-01"; supported: `},
		{"stream without a session", http.MethodGet, "", "", nil, http.StatusBadRequest, "null", "Mcp-Session-Id header is required"},
		{"stream of an unknown session", http.MethodGet, "", "", map[string]string{"Mcp-Session-Id": "made-up"}, http.StatusNotFound, "null", "send initialize for a new one"},
		{"end without a session", http.MethodDelete, "", "", nil, http.StatusBadRequest, "null", "Mcp-Session-Id header is required"},
		{"end of an unknown session", http.MethodDelete, "", "", map[string]string{"Mcp-Session-Id": "made-up"}, http.StatusNotFound, "null", "send initialize for a new one"},
		{"another method", http.MethodPut, "application/json", list, map[string]string{"Mcp-Session-Id": sid}, http.StatusMethodNotAllowed, "null", "takes POST, and GET and DELETE"},
	} {
		req, _ := http.NewRequest(tc.method, u, strings.NewReader(tc.body))
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		for k, v := range tc.hdr {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var rpc struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" ||
			json.Unmarshal(b, &rpc) != nil || rpc.JSONRPC != "2.0" || string(rpc.ID) != tc.id ||
			rpc.Error.Code != -32600 || !strings.Contains(rpc.Error.Message, tc.says) {
			t.Errorf("%s: %d %s %s; want %d and a JSON-RPC error (id %s) saying %q", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), b, tc.status, tc.id, tc.says)
		}
	}
	// The session itself still works.
	if code, body := postJSON(t, u, list, map[string]string{"Mcp-Session-Id": sid}); code != http.StatusOK || !strings.Contains(body, "memory_recall") {
		t.Errorf("tools/list in the session: %d %s", code, body)
	}
}
