package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/rs/zerolog"
)

// lockedBuffer is a log sink the fuzz targets read after each input.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) takeString() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return s
}

func fuzzServer(f *testing.F) (*Server, *lockedBuffer) {
	reg, err := palace.OpenRegistry(palace.Config{DataDir: f.TempDir(), Logger: zerolog.Nop()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { reg.Close() })
	logs := &lockedBuffer{}
	s, err := New(Config{Registry: reg, DefaultPalace: "p", Version: "fuzz", Logger: zerolog.New(logs)})
	if err != nil {
		f.Fatal(err)
	}
	return s, logs
}

// checkResponse asserts one encoded response line: a JSON-RPC 2.0 object
// with an id and exactly one of result and error, ending in one newline.
func checkResponse(t *testing.T, line []byte) {
	t.Helper()
	if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
		t.Fatalf("response is not one line: %q", line)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		t.Fatalf("response is not a JSON object: %v: %q", err, line)
	}
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("response is not JSON: %v: %q", err, line)
	}
	if _, hasID := keys["id"]; r.JSONRPC != "2.0" || !hasID || (r.Result == nil) == (r.Error == nil) {
		t.Fatalf("malformed response: %q", line)
	}
	if r.Error != nil {
		switch r.Error.Code {
		case codeParseError, codeInvalidRequest, codeMethodNotFound, codeInvalidParams, codeInternalError, codeResourceNotFound:
		default:
			t.Fatalf("unexpected error code %d: %q", r.Error.Code, line)
		}
		if r.Error.Message == "" {
			t.Fatalf("error without a message: %q", line)
		}
	}
}

// FuzzNDJSON feeds arbitrary bytes through the stdio framing and the one
// dispatch path: every line that gets an answer gets one well-formed
// JSON-RPC response, and nothing panics (respond recovers, so a panic
// shows in the log).
func FuzzNDJSON(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"x","top_k":3}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_remember","arguments":{"text":"t","tags":["a"]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"mem://search?q=x&topK=2"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		"[1,2]\n{\"jsonrpc\":\"2.0\",\"id\":null}\n\xff\n{}",
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[]}`,
	} {
		f.Add([]byte(s))
	}
	s, logs := fuzzServer(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for {
			line, err := readLine(r)
			if len(bytes.TrimSpace(line)) > 0 {
				m, errResp := s.parseMessage(line)
				switch {
				case errResp != nil:
					checkResponse(t, errResp)
				case m != nil && !m.isNotification() && !m.isResponse():
					checkResponse(t, s.respond(ctx, m))
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("readLine: %v", err)
				}
				break
			}
		}
		if l := logs.takeString(); strings.Contains(l, "panicked") {
			t.Fatalf("a request panicked: %s", l)
		}
	})
}

// FuzzToolArgs decodes arbitrary arguments into every tool's params
// struct: nothing panics, every refusal is bad input whose message stays
// short (it never echoes a large argument back).
func FuzzToolArgs(f *testing.F) {
	for _, s := range []string{
		`{"text":"hello","room":"Backend","tags":["a","b"],"importance":0.3}`,
		`{"query":"x","top_k":1e9,"room":"R\u0000"}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"flush":true}`,
		`{"subject":"a","predicate":"b","object":"c","confidence":1.5,"valid_from":"2026-01-01"}`,
		`{"fact":"I prefer tea","kind":"preference","confidence":"0.9"}`,
		`null`, `[]`, `{"limit":-1}`,
	} {
		for i := range toolset() {
			f.Add(uint8(i), []byte(s))
		}
	}
	tools := toolset()
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		tl := tools[int(which)%len(tools)]
		p := reflect.New(tl.params)
		_, err := decodeArgs(json.RawMessage(raw), p.Interface())
		if err == nil {
			return
		}
		if palace.ErrorCode(err) != palace.CodeInvalid {
			t.Fatalf("%s: %q: a refusal that is not bad input: %v", tl.name, raw, err)
		}
		if n := len(err.Error()); n > 600 {
			t.Fatalf("%s: a %d-byte message for a %d-byte input", tl.name, n, len(raw))
		}
	})
}
