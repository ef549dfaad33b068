package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/palacetest"
)

// proc is a loci process spawned from the test binary.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout, line by line
	stderr *syncBuffer
	done   chan struct{}
	err    error
	nextID int
}

// syncBuffer is a process's stderr or stdout as the test watches it.
type syncBuffer = palacetest.Buffer

// startLoci runs `loci args...` with LOCI_HOME=home and extra env.
func startLoci(t testing.TB, home string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home, "LOCI_LOG=debug")
	cmd.Env = append(cmd.Env, env...)
	p := &proc{t: t, cmd: cmd, lines: make(chan string, 1024), stderr: &syncBuffer{}, done: make(chan struct{})}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("stderr of %v:\n%s", args, tail(p.stderr.String(), 4000))
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func (p *proc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("write stdin: %v", err)
	}
}

// next returns the next stdout line, failing after timeout. Every line must
// be a JSON-RPC message: stdout is the protocol.
func (p *proc) next(timeout time.Duration) string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("stdout closed; stderr:\n%s", tail(p.stderr.String(), 4000))
		}
		checkJSONRPCLine(p.t, l)
		return l
	case <-time.After(timeout):
		p.t.Fatalf("no response within %v", timeout)
	}
	return ""
}

func checkJSONRPCLine(t testing.TB, l string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(l), &m); err != nil {
		t.Fatalf("stdout line is not JSON: %q", l)
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		t.Fatalf("stdout line is not JSON-RPC 2.0: %q", l)
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if _, hasID := m["id"]; !hasID || hasResult == hasError {
		t.Fatalf("stdout line is not a JSON-RPC response: %q", l)
	}
}

// call sends a request and returns its result (or fails on an error).
func (p *proc) call(method string, params any) json.RawMessage {
	p.t.Helper()
	resp := p.request(method, params)
	if resp.Error != nil {
		p.t.Fatalf("%s: error %s", method, resp.Error)
	}
	return resp.Result
}

type rpcResp struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (p *proc) request(method string, params any) rpcResp {
	p.t.Helper()
	p.nextID++
	id := 1000 + p.nextID
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	p.send(string(b))
	var r rpcResp
	if err := json.Unmarshal([]byte(p.next(20*time.Second)), &r); err != nil {
		p.t.Fatal(err)
	}
	if string(r.ID) != fmt.Sprint(id) {
		p.t.Fatalf("response id %s, want %d", r.ID, id)
	}
	return r
}

// tool calls a tool and decodes the JSON text of its result into out.
func (p *proc) tool(name string, args map[string]any, out any) {
	p.t.Helper()
	res := p.call("tools/call", map[string]any{"name": name, "arguments": args})
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
		p.t.Fatalf("%s: bad result %s", name, res)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(r.Content[0].Text), out); err != nil {
			p.t.Fatalf("%s: result text is not JSON: %q", name, r.Content[0].Text)
		}
	}
}

func (p *proc) initialize() {
	p.t.Helper()
	p.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "loci-test", "version": "1"}})
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// closeAndWait closes stdin and waits for exit, returning the exit code.
func (p *proc) closeAndWait(timeout time.Duration) int {
	p.t.Helper()
	p.stdin.Close()
	return p.wait(timeout)
}

func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("process did not exit within %v", timeout)
	}
	for l := range p.lines {
		checkJSONRPCLine(p.t, l)
		if strings.TrimSpace(l) != "" {
			p.t.Errorf("unexpected output after the last response: %s", l)
		}
	}
	if p.err == nil {
		return 0
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	p.t.Fatalf("wait: %v", p.err)
	return -1
}
