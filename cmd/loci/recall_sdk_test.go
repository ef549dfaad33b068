package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOfficialSDKReadsResources drives `loci serve` with the official MCP
// Go SDK client: the resources capability is advertised, the resources
// and the search template are listed, each resource reads as markdown,
// a failed read is a JSON-RPC error, and the seed 000/004 tools answer
// (with isError for bad input).
func TestOfficialSDKReadsResources(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(os.Args[0], "serve", "--palace", "sdk")
	cmd.Env = append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+t.TempDir(), "LOCI_AUTOPROMOTE=true"), cliEnvVars[1:3]...)
	client := sdk.NewClient(&sdk.Implementation{Name: "loci-resources-test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	if caps := session.InitializeResult().Capabilities; caps == nil || caps.Resources == nil {
		t.Fatalf("resources capability not advertised: %+v", caps)
	}

	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text, ok := res.Content[0].(*sdk.TextContent)
		if !ok {
			t.Fatalf("%s: content is %T", name, res.Content[0])
		}
		return text.Text, res.IsError
	}
	if text, isErr := call("remember", map[string]any{"fact": "I prefer pnpm over npm", "kind": "tooling", "confidence": 0.9}); isErr || text != "promoted mem-0001: [tooling] I prefer pnpm over npm" {
		t.Fatalf("remember = %q (isError %v)", text, isErr)
	}
	if text, isErr := call("remember", map[string]any{"fact": "x", "kind": "hobby"}); !isErr || !strings.Contains(text, "valid kinds") {
		t.Fatalf("remember with a bad kind = %q (isError %v)", text, isErr)
	}
	call("memory_remember", map[string]any{"text": "The release train leaves every Tuesday", "room": "Planning"})
	if text, _ := call("recall", map[string]any{"query": "pnpm"}); !strings.Contains(text, `"id":"mem-0001"`) {
		t.Fatalf("recall = %s", text)
	}
	if text, isErr := call("mem_search", map[string]any{}); !isErr || !strings.Contains(text, "missing 'query'") {
		t.Fatalf("mem_search without query = %q (isError %v)", text, isErr)
	}

	list, err := session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]string{}
	for _, r := range list.Resources {
		uris[r.URI] = r.MIMEType
	}
	if uris["mem://profile"] != "text/markdown" || uris["memory://recall"] != "text/markdown" {
		t.Fatalf("resources/list = %+v", list.Resources)
	}
	tpls, err := session.ListResourceTemplates(ctx, nil)
	if err != nil || len(tpls.ResourceTemplates) != 1 || tpls.ResourceTemplates[0].URITemplate != "mem://search{?q,topK}" {
		t.Fatalf("resources/templates/list = %+v, %v", tpls, err)
	}

	read := func(uri string) string {
		t.Helper()
		res, err := session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" {
			t.Fatalf("read %s: %+v", uri, res.Contents)
		}
		return res.Contents[0].Text
	}
	if md := read("mem://profile"); !strings.Contains(md, "- [tooling] I prefer pnpm over npm") || !strings.Contains(md, "release train") {
		t.Fatalf("mem://profile:\n%s", md)
	}
	// Parameters in the other order and spelling than the template's.
	if md := read("mem://search?topK=3&q=release+train"); !strings.Contains(md, "1. The release train leaves every Tuesday") {
		t.Fatalf("mem://search:\n%s", md)
	}
	if md := read("mem://search?top_k=1&query=tuesday"); !strings.Contains(md, "Tuesday") {
		t.Fatalf("mem://search with query and top_k:\n%s", md)
	}
	if md := read("memory://recall"); !strings.Contains(md, "- [tooling] I prefer pnpm over npm") {
		t.Fatalf("memory://recall:\n%s", md)
	}
	_, err = session.ReadResource(ctx, &sdk.ReadResourceParams{URI: "mem://search?topK=3"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != -32602 {
		t.Fatalf("empty query: err %v, want a JSON-RPC -32602 error", err)
	}
	_, err = session.ReadResource(ctx, &sdk.ReadResourceParams{URI: "mem://nothing"})
	if !errors.As(err, &werr) || werr.Code != -32002 {
		t.Fatalf("unknown resource: err %v, want a JSON-RPC -32002 error", err)
	}
}
