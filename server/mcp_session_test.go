package server_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server"
)

// An MCP session over HTTP is bound to the token that opened it: another
// user's token cannot post into an SSE session's stream (its client would
// take the answers for its own) nor cancel a request of a streamable
// session, even knowing the session id. Their own sessions work as before.
func TestMCPSessionsBoundToTheirHolder(t *testing.T) {
	t.Parallel()
	c := startCompanionWith(t, palace.Config{}, server.Config{ToolDelay: time.Second}, "")
	ctx := context.Background()
	ann, _, err := c.reg.CreateToken(ctx, "ann", palace.AccessWrite, []string{"p"})
	if err != nil {
		t.Fatal(err)
	}
	bob, _, err := c.reg.CreateToken(ctx, "bob", palace.AccessWrite, []string{"p"})
	if err != nil {
		t.Fatal(err)
	}
	auth := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

	// SSE: Ann opens a session; its message endpoint is the first event.
	req, _ := http.NewRequest(http.MethodGet, c.url+"/sse", nil)
	req.Header.Set("Authorization", "Bearer "+ann)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- data
			}
		}
		close(events)
	}()
	endpoint := <-events
	if !strings.Contains(endpoint, "sessionId=") {
		t.Fatalf("first SSE event %q; want the message endpoint", endpoint)
	}
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"palace_list","arguments":{}}}`
	}
	code, body := postJSON(t, c.url+endpoint, call("7"), auth(bob))
	if code != http.StatusBadRequest || !strings.Contains(body, "Invalid session ID") {
		t.Fatalf("Bob posting into Ann's SSE session: %d %s; want 400 Invalid session ID", code, body)
	}
	code, _ = postJSON(t, c.url+endpoint, call("8"), auth(ann))
	if code != http.StatusAccepted {
		t.Fatalf("Ann posting into her own session: %d", code)
	}
	select {
	case ev := <-events:
		if !strings.Contains(ev, `"id":8`) {
			t.Fatalf("Ann's stream carried %s; want only the answer to her request 8", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer on Ann's stream")
	}

	// Streamable HTTP: Bob's cancel of Ann's request in flight (same
	// session id, same request id) does not cancel it.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	hreq, _ := http.NewRequest(http.MethodPost, c.url+"/mcp", strings.NewReader(init))
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Authorization", "Bearer "+ann)
	hresp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	hresp.Body.Close()
	sid := hresp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize gave no session id")
	}
	// With Ann's listening stream open, her session is registered: Bob can
	// neither listen on it nor end it.
	gctx, stopListening := context.WithCancel(ctx)
	defer stopListening()
	greq, _ := http.NewRequestWithContext(gctx, http.MethodGet, c.url+"/mcp", nil)
	greq.Header.Set("Accept", "text/event-stream")
	greq.Header.Set("Authorization", "Bearer "+ann)
	greq.Header.Set("Mcp-Session-Id", sid)
	gresp, err := http.DefaultClient.Do(greq)
	if err != nil || gresp.StatusCode != http.StatusOK {
		t.Fatalf("Ann's listening stream: %v %v", err, gresp)
	}
	defer gresp.Body.Close()
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		breq, _ := http.NewRequest(method, c.url+"/mcp", nil)
		breq.Header.Set("Accept", "text/event-stream")
		breq.Header.Set("Authorization", "Bearer "+bob)
		breq.Header.Set("Mcp-Session-Id", sid)
		bresp, err := http.DefaultClient.Do(breq)
		if err != nil {
			t.Fatal(err)
		}
		bresp.Body.Close()
		if bresp.StatusCode != http.StatusNotFound {
			t.Errorf("Bob's %s of Ann's session: %d; want 404", method, bresp.StatusCode)
		}
	}

	// Each call is held by the tool delay; the cancels are sent again and
	// again until it answers, so one lands while it is in flight however
	// slow the machine.
	asAnn := map[string]string{"Authorization": "Bearer " + ann, "Mcp-Session-Id": sid}
	asBob := map[string]string{"Authorization": "Bearer " + bob, "Mcp-Session-Id": sid}
	callCancelled := func(id string, canceller map[string]string) string {
		done := make(chan string, 1)
		go func() {
			_, body := postJSON(t, c.url+"/mcp", call(id), asAnn)
			done <- body
		}()
		note := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"stop"}}`
		for {
			select {
			case body := <-done:
				return body
			case <-time.After(50 * time.Millisecond):
				postJSON(t, c.url+"/mcp", note, canceller)
			}
		}
	}
	if body := callCancelled("42", asBob); !strings.Contains(body, "palaces") {
		t.Fatalf("Ann's request while Bob cancels it: %q; want its answer", body)
	}
	if body := callCancelled("43", asAnn); strings.Contains(body, "palaces") {
		t.Fatalf("Ann's own cancel did not cancel: %q", body)
	}
}
