package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server"
	"github.com/rs/zerolog"
)

// pipeServer runs ServeStdio over an in-process pipe pair: lines written
// with send reach the server; next reads one response line.
type pipeServer struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
	reg  *palace.Registry // the server's palaces
}

func startPipeServer(tb testing.TB, defaultPalace string) *pipeServer {
	tb.Helper()
	return startPipeServerWith(tb, server.Config{DefaultPalace: defaultPalace})
}

// startPipeServerWith is startPipeServer with more of the server's
// configuration; it opens the registry itself.
func startPipeServerWith(tb testing.TB, cfg server.Config) *pipeServer {
	tb.Helper()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Registry, cfg.Version = reg, "bench"
	if reflect.ValueOf(cfg.Logger).IsZero() {
		cfg.Logger = zerolog.Nop()
	}
	srv, err := server.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ps := newPipe(inW, outR)
	ps.reg = reg
	go func() {
		ps.done <- srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	tb.Cleanup(func() {
		inW.Close()
		<-ps.done
		reg.Close()
	})
	return ps
}

func newPipe(in *io.PipeWriter, out *io.PipeReader) *pipeServer {
	return &pipeServer{in: in, out: bufio.NewReaderSize(out, 1<<20), done: make(chan error, 1)}
}

func (ps *pipeServer) roundTrip(tb testing.TB, line []byte) []byte {
	if _, err := ps.in.Write(line); err != nil {
		tb.Fatal(err)
	}
	resp, err := ps.out.ReadBytes('\n')
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

// BenchmarkStdioRemember measures one memory_remember round trip over
// ServeStdio: framing, dispatch, argument decoding, the palace write
// (embedding and a committed SQLite transaction) and the response.
func BenchmarkStdioRemember(b *testing.B) {
	ps := startPipeServer(b, "bench")
	ps.roundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`+"\n"))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_remember","arguments":{"text":"Benchmark note %d: the deploy window opens at %d:00 on weekdays","room":"Backend","tags":["bench","deploy"]}}}`+"\n", i+1, i, i%24)
		ps.roundTrip(b, line)
	}
}

// BenchmarkStdioRecall measures one memory_recall round trip over
// ServeStdio against a palace of 500 notes.
func BenchmarkStdioRecall(b *testing.B) {
	ps := startPipeServer(b, "bench")
	ps.roundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`+"\n"))
	topics := []string{"deploy window", "database backup", "API rate limit", "login flow", "cache eviction"}
	for i := range 500 {
		ps.roundTrip(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"seed-%d","method":"tools/call","params":{"name":"memory_remember","arguments":{"text":"Note %d about the %s: step %d of the runbook"}}}`+"\n", i, i, topics[i%len(topics)], i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"what does the runbook say about the %s?","top_k":5}}}`+"\n", i+1, topics[i%len(topics)])
		ps.roundTrip(b, line)
	}
}

// BenchmarkStdioPing measures the protocol's floor: a ping round trip.
func BenchmarkStdioPing(b *testing.B) {
	ps := startPipeServer(b, "bench")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ps.roundTrip(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+1))
	}
}

// BenchmarkStdioBadArguments measures the dispatch path without palace
// work: a memory_remember call refused for a mistyped argument.
func BenchmarkStdioBadArguments(b *testing.B) {
	ps := startPipeServer(b, "bench")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ps.roundTrip(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_remember","arguments":{"text":42,"room":"Backend","tags":["a","b"]}}}`+"\n", i+1))
	}
}

// BenchmarkStdioToolsList measures a tools/list round trip.
func BenchmarkStdioToolsList(b *testing.B) {
	ps := startPipeServer(b, "bench")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ps.roundTrip(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i+1))
	}
}

// rpc sends one request and returns the text of its answer and whether
// it failed (a JSON-RPC error, or a tool result with isError).
func (ps *pipeServer) rpc(t *testing.T, id int, method string, params any) (string, bool) {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	resp := ps.roundTrip(t, append(req, '\n'))
	var r struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
		Error *struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("%s: %s", method, resp)
	}
	switch {
	case r.Error != nil:
		return r.Error.Message, true
	case len(r.Result.Content) == 0:
		return string(resp), r.Result.IsError
	}
	return r.Result.Content[0].Text, r.Result.IsError
}

// callTool sends one tools/call over the pipe and decodes the tool's JSON
// answer into out.
func (ps *pipeServer) callTool(t *testing.T, id int, name string, args map[string]any, out any) {
	t.Helper()
	text, failed := ps.rpc(t, id, "tools/call", map[string]any{"name": name, "arguments": args})
	if failed {
		t.Fatalf("%s: %s", name, text)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("%s answer %q: %v", name, text, err)
	}
}
