package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOfficialGoSDKClient drives `loci serve` with the official MCP Go SDK
// client over its stdio command transport: handshake, tools/list, and a
// call of every seed-003 tool.
func TestOfficialGoSDKClient(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(os.Args[0], "serve", "--palace", "interop")
	cmd.Env = append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+t.TempDir())
	client := sdk.NewClient(&sdk.Implementation{Name: "loci-interop-test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()

	init := session.InitializeResult()
	if init == nil || init.ServerInfo == nil || init.ServerInfo.Name != "loci" {
		t.Fatalf("initialize result = %+v", init)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"memory_remember", "memory_recall", "memory_recall_deep", "memory_list",
		"memory_forget", "palace_create", "palace_list", "palace_info", "kg_assert", "kg_query"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s", want)
		}
	}

	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError || len(res.Content) == 0 {
			t.Fatalf("%s: error result %+v", name, res)
		}
		text, ok := res.Content[0].(*sdk.TextContent)
		if !ok {
			t.Fatalf("%s: content is %T", name, res.Content[0])
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(text.Text), &out); err != nil {
			t.Fatalf("%s: text is not JSON: %q", name, text.Text)
		}
		return out
	}

	stored := call("memory_remember", map[string]any{"text": "Interop: the release train leaves every Tuesday.", "room": "Planning", "tags": []string{"release"}})
	id, _ := stored["drawer_id"].(string)
	if stored["status"] != "stored" || id == "" {
		t.Fatalf("memory_remember = %v", stored)
	}
	rec := call("memory_recall", map[string]any{"query": "when does the release train leave?"})
	if !strings.Contains(mustJSON(rec["results"]), "Tuesday") {
		t.Fatalf("memory_recall = %v", rec)
	}
	if deep := call("memory_recall_deep", map[string]any{"query": "release train", "top_k": 3}); !strings.Contains(mustJSON(deep["results"]), "Tuesday") {
		t.Fatalf("memory_recall_deep = %v", deep)
	}
	if l := call("memory_list", map[string]any{"room": "Planning"}); !strings.Contains(mustJSON(l["drawers"]), id) {
		t.Fatalf("memory_list = %v", l)
	}
	if c := call("palace_create", map[string]any{"name": "second", "description": "another"}); c["status"] != "created" {
		t.Fatalf("palace_create = %v", c)
	}
	if pl := call("palace_list", map[string]any{}); mustJSON(pl["palaces"]) != `["interop","second"]` {
		t.Fatalf("palace_list = %v", pl)
	}
	if info := call("palace_info", map[string]any{}); info["drawer_count"] != float64(1) || info["id"] != "interop" {
		t.Fatalf("palace_info = %v", info)
	}
	if a := call("kg_assert", map[string]any{"subject": "release-train", "predicate": "departs", "object": "Tuesday"}); a["status"] != "asserted" {
		t.Fatalf("kg_assert = %v", a)
	}
	if q := call("kg_query", map[string]any{"subject": "release-train"}); !strings.Contains(mustJSON(q["triples"]), "Tuesday") {
		t.Fatalf("kg_query = %v", q)
	}
	if f := call("memory_forget", map[string]any{"drawer_id": id}); f["status"] != "deleted" {
		t.Fatalf("memory_forget = %v", f)
	}

	// A tool failure is a JSON-RPC error for seed-003 tools.
	if _, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "memory_forget", Arguments: map[string]any{"drawer_id": id}}); err == nil ||
		!strings.Contains(err.Error(), "not found") {
		t.Fatalf("forgetting twice: err = %v, want a not-found error", err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
