//go:build linux && amd64

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWindowsBinaryUnderWine cross-compiles loci for windows/amd64 (cgo and
// SQLite included, with MinGW-w64) and runs the binary under Wine as a
// Windows user would: the CLI's remember, review and recall; an MCP session
// over stdio whose stdout holds JSON-RPC frames only and that ends at EOF;
// what that session stored, seen by the next process; a server killed
// outright keeping every write it acknowledged; the HTTP companion's
// file:// items (a drive path read, a share refused); palace names the
// file system would confuse; several processes writing one palace; `loci
// install claude-desktop`, whose configured command must start; and `loci
// install claude-code`, whose prompt hook must run under cmd.exe. Wine is not
// Windows, but it runs the same binary through the same Win32 calls
// (files, processes, SQLite's locking), which is what compiling alone
// cannot show.
func TestWindowsBinaryUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles loci and starts Wine: not a short test")
	}
	cc := need(t, "MinGW-w64 (Debian: apt-get install -y gcc-mingw-w64-x86-64-posix)", "x86_64-w64-mingw32-gcc")
	wine := need(t, "Wine (Debian: apt-get install -y wine64)", "wine64", "/usr/lib/wine/wine64", "wine")
	goTool := need(t, "the go command", "go", filepath.Join(os.Getenv("GOROOT"), "bin", "go"))

	dir := t.TempDir()
	exe := filepath.Join(dir, "loci.exe")
	build := exec.Command(goTool, "build", "-o", exe, ".")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=1", "CC="+cc)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-compile for windows/amd64: %v\n%s", err, out)
	}

	prefix := filepath.Join(dir, "prefix")
	w := &wineRun{t: t, wine: wine, exe: exe, dir: dir, prefix: prefix, env: wineEnv(dir, prefix)}
	t.Cleanup(w.stopServer)
	w.ensureProcessPrng(cc)

	var version struct {
		Data struct{ OS string } `json:"data"`
	}
	w.json(&version, "version", "--format", "json")
	if version.Data.OS != "windows" {
		t.Fatalf("version says os %q, want windows", version.Data.OS)
	}

	// The CLI: a fact staged, approved and recalled.
	if out := w.ok("remember", "--format", "text", "We deploy on Tuesdays"); !strings.Contains(out, "staged mem-0001") {
		t.Fatalf("remember: %s", out)
	}
	w.ok("review", "approve", "mem-0001", "--format", "text")
	if out := w.ok("recall", "--format", "text", "how do we deploy?"); !strings.Contains(out, "We deploy on Tuesdays") {
		t.Fatalf("recall after approval: %s", out)
	}

	// MCP over stdio: every stdout line a JSON-RPC frame, the write
	// acknowledged, found by the next call, and the server gone at EOF.
	frames := w.serve("proj",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wine-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_remember","arguments":{"text":"The staging database lives on db-stage-2, behind the VPN"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"where is the staging database?"}}}`,
	)
	if len(frames) != 3 {
		t.Fatalf("want 3 responses (initialize, remember, recall), got %d: %v", len(frames), frames)
	}
	for i, f := range frames {
		if f["error"] != nil || f["id"] != float64(i+1) {
			t.Fatalf("frame %d: %v", i+1, f)
		}
	}
	if got := fmt.Sprint(frames[2]["result"]); !strings.Contains(got, "db-stage-2") {
		t.Fatalf("memory_recall did not find what memory_remember stored: %s", got)
	}
	// The next process reads what the session stored.
	if out := w.ok("recall", "--all", "--palace", "proj", "--format", "text", "staging database"); !strings.Contains(out, "db-stage-2") {
		t.Fatalf("a later process does not see the MCP session's memory: %s", out)
	}

	// A server killed outright (TerminateProcess, as a host that dies
	// takes its server with it) keeps every write it acknowledged.
	w.killAfterAcks("killed", 12)
	var stats struct {
		Data struct{ Active int } `json:"data"`
	}
	if w.json(&stats, "stats", "--palace", "killed", "--format", "json"); stats.Data.Active != 12 {
		t.Fatalf("12 writes acknowledged before the kill, %d found after it", stats.Data.Active)
	}

	// The HTTP companion: a file:// item names a drive path, and a share
	// is refused before anything connects to it.
	w.httpFileItems()

	// Names the file system would confuse with another palace's, or not
	// hold at all, are refused with the reason, and nothing of the palace
	// they would have reached is read or changed.
	w.ok("remember", "--palace", "CaseTest", "--format", "json", "Alice keeps the spare key under the blue pot")
	for name, want := range map[string]string{
		"casetest": `is palace \"CaseTest\"'s directory`,
		"CASETEST": `is palace \"CaseTest\"'s directory`,
		"dot.":     "ends in a dot",
		"nul":      "device name on Windows",
	} {
		for _, args := range [][]string{
			{"review", "--palace", name, "--format", "json"},
			{"remember", "--palace", name, "--format", "json", "a note for " + name},
		} {
			out, errs, err := w.run(nil, args...)
			if err == nil || !strings.Contains(out, want) || !strings.Contains(out, `"invalid_args"`) {
				t.Errorf("loci.exe %s: want an invalid_args error saying %q, got %v\n%s%s", strings.Join(args, " "), want, err, out, errs)
			}
		}
	}
	var caseTest struct {
		Data struct{ Total int } `json:"data"`
	}
	if w.json(&caseTest, "review", "--palace", "CaseTest", "--format", "json"); caseTest.Data.Total != 1 {
		t.Fatalf("palace CaseTest holds %d staged facts after the refused names, want 1", caseTest.Data.Total)
	}

	// Several processes writing one palace at once (SQLite's locking on
	// Win32): every write acknowledged, none lost.
	const writers, each = 3, 4
	errc := make(chan error, writers)
	for i := range writers {
		go func() {
			for j := range each {
				if out, errs, err := w.run(nil, "remember", "--palace", "busy", "--format", "json",
					fmt.Sprintf("Writer %d's note number %d: the build cache lives under C:\\cache%d%d", i, j, i, j)); err != nil {
					errc <- fmt.Errorf("writer %d, note %d: %v\n%s%s", i, j, err, out, errs)
					return
				}
			}
			errc <- nil
		}()
	}
	for range writers {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	var pending struct {
		Data struct{ Total int } `json:"data"`
	}
	w.json(&pending, "review", "--palace", "busy", "--format", "json")
	if pending.Data.Total != writers*each {
		t.Fatalf("%d concurrent writes acknowledged, %d staged", writers*each, pending.Data.Total)
	}

	// install: the kept copy is loci.exe and the command written starts.
	w.ok("install", "claude-desktop", "--format", "json")
	b, err := os.ReadFile(w.find(filepath.Join(prefix, "drive_c", "users"), "claude_desktop_config.json"))
	if err != nil {
		t.Fatalf("install claude-desktop wrote no config where Claude Desktop reads it: %v", err)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("config: %v\n%s", err, b)
	}
	entry, ok := cfg.MCPServers["loci"]
	if !ok || !strings.HasSuffix(entry.Command, `\loci.exe`) {
		t.Fatalf("config's loci entry %+v: want a command ending in \\loci.exe", entry)
	}

	// install claude-code: its prompt hook, run by cmd.exe as a batch line
	// (as a host on Windows may run it; sh reads the same line alike,
	// TestShellQuoteRoundTrip), recalls the fact approved above.
	w.ok("install", "claude-code", "--format", "json")
	b, err = os.ReadFile(w.find(filepath.Join(prefix, "drive_c", "users"), "settings.json"))
	if err != nil {
		t.Fatalf("install claude-code wrote no settings.json: %v", err)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &settings); err != nil || len(settings.Hooks["UserPromptSubmit"]) == 0 || len(settings.Hooks["UserPromptSubmit"][0].Hooks) == 0 {
		t.Fatalf("settings.json has no UserPromptSubmit hook (%v):\n%s", err, b)
	}
	hookLine := settings.Hooks["UserPromptSubmit"][0].Hooks[0].Command
	// The line as install wrote it, with a budget of its own: what is
	// tested here is cmd.exe running it, and under Wine on a loaded machine
	// the 850 ms a prompt's hook has were spent before the search was
	// (it then fails open, by design, and printed nothing to find).
	os.WriteFile(filepath.Join(dir, "hook.bat"), []byte("@"+hookLine+" --budget 30s\r\n"), 0o600)
	cwd, _ := json.Marshal(`Z:` + strings.ReplaceAll(dir, "/", `\`)) // Wine's drive Z: is /
	// The note holds half the prompt's words: enough for the hybrid search,
	// and for the keyword search the hook falls back to on a loaded machine.
	prompt := `{"session_id":"s1","cwd":` + string(cwd) + `,"hook_event_name":"UserPromptSubmit","prompt":"which day do we deploy?"}`
	out, errs, err := w.runIn(dir, strings.NewReader(prompt), "cmd", "/c", "hook.bat")
	if err != nil || !strings.Contains(out, "We deploy on Tuesdays") {
		t.Fatalf("cmd.exe running the hook command %s: %v\nstdout: %s\nstderr: %s", hookLine, err, out, errs)
	}
	// uninstall recognises its own hooks in the form install wrote them.
	w.ok("uninstall", "claude-code", "--format", "json")
	if b, err := os.ReadFile(w.find(filepath.Join(prefix, "drive_c", "users"), "settings.json")); err == nil && strings.Contains(string(b), "loci.exe") {
		t.Fatalf("uninstall claude-code left loci's hooks:\n%s", b)
	}

	// OpenCode reads ~/.config/opencode on every system, Windows included.
	w.ok("install", "opencode", "--format", "json")
	if p := w.find(filepath.Join(prefix, "drive_c", "users"), "opencode.json"); !strings.HasSuffix(filepath.ToSlash(p), "/.config/opencode/opencode.json") {
		t.Fatalf("install opencode wrote %q, want the profile's .config\\opencode\\opencode.json", p)
	}

	w.exe = entry.Command // Wine takes the Windows path as Windows would
	if out := w.ok("version", "--format", "text"); !strings.Contains(out, "loci") {
		t.Fatalf("the configured command does not run: %s", out)
	}
}

// need returns the first of names found (on PATH, or as a path), else
// fails under CI and skips elsewhere, saying what to install.
func need(t *testing.T, what string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := what + " not found"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// wineEnv is the environment of every Wine process of one test: its own
// prefix (the Windows tree: C:\users\…, the registry) and home, quiet.
func wineEnv(dir, prefix string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "LOCI_EMBEDDER", "LOCI_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "HOME", "WINEPREFIX", "WINEDEBUG", "DISPLAY":
			continue // the binary runs on its defaults, in the prefix's own profile
		}
		env = append(env, kv)
	}
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	return append(env, "WINEPREFIX="+prefix, "WINEDEBUG=-all", "HOME="+home)
}

type wineRun struct {
	t      *testing.T
	wine   string
	exe    string
	dir    string // the working directory: no git repository, so palace "default"
	prefix string
	env    []string
}

// run starts exe with args under Wine and returns stdout and stderr.
func (w *wineRun) run(stdin io.Reader, args ...string) (string, string, error) {
	return w.runIn(w.dir, stdin, append([]string{w.exe}, args...)...)
}

// runIn runs a Windows command line under Wine in dir. A run that Wine
// itself failed is run again, twice at most, and logged: one that exits
// with an error having written nothing at all, or whose client lost the
// wineserver ("wine client error"). loci writes an envelope or a Go
// panic on every failure of its own, so neither is loci's; both were
// seen in suite runs on a loaded machine (once each in five runs), the
// first with three writers starting at once. What the tests run twice
// is idempotent (remember keeps one memory for one text).
func (w *wineRun) runIn(dir string, stdin io.Reader, args ...string) (string, string, error) {
	var in []byte
	if stdin != nil {
		var err error
		if in, err = io.ReadAll(stdin); err != nil {
			return "", "", err
		}
	}
	for try := 1; ; try++ {
		out, errs, err := w.runOnce(dir, in, args)
		wineFailed := err != nil && !errors.Is(err, context.DeadlineExceeded) &&
			(out == "" && strings.TrimSpace(errs) == "" || strings.Contains(errs, "wine client error"))
		if !wineFailed || try == 3 {
			return out, errs, err
		}
		w.t.Logf("%s: Wine failed to run it (%v; stderr %q); running it again", strings.Join(args, " "), err, strings.TrimSpace(errs))
	}
}

// runOnce runs a Windows command line under Wine in dir once, with in on
// its stdin; one that takes three minutes is killed, and its error is
// context.DeadlineExceeded.
func (w *wineRun) runOnce(dir string, in []byte, args []string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.wine, args...)
	cmd.Dir = dir
	cmd.Env = w.env
	if in != nil {
		cmd.Stdin = bytes.NewReader(in)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return out.String(), errb.String(), err
}

func (w *wineRun) ok(args ...string) string {
	w.t.Helper()
	out, errs, err := w.run(nil, args...)
	if err != nil {
		w.t.Fatalf("loci.exe %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errs)
	}
	return out
}

func (w *wineRun) json(v any, args ...string) {
	w.t.Helper()
	out := w.ok(args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		w.t.Fatalf("loci.exe %s: stdout is not one JSON envelope: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// serve runs `loci.exe serve --palace p` with the frames on stdin, closes
// it, and returns the response frames; any stdout line that is not a
// JSON-RPC 2.0 frame fails the test.
func (w *wineRun) serve(p string, frames ...string) []map[string]any {
	w.t.Helper()
	out, errs, err := w.run(strings.NewReader(strings.Join(frames, "\n")+"\n"), "serve", "--palace", p)
	if err != nil {
		w.t.Fatalf("serve did not exit cleanly at EOF: %v\nstderr: %s", err, errs)
	}
	var got []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var f map[string]any
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil || f["jsonrpc"] != "2.0" {
			w.t.Fatalf("stdout line is not a JSON-RPC frame: %q\nstderr: %s", sc.Text(), errs)
		}
		got = append(got, f)
	}
	return got
}

// httpFileItems runs `loci.exe http` and adds a message whose content is a
// file:// item on Wine's drive Z: (the Unix root), then one naming a
// share: the first is read and found by a search, the second refused with
// HTTP 415.
func (w *wineRun) httpFileItems() {
	w.t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		w.t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	errb, stop := w.start(nil, "http", "--addr", addr)
	defer stop()
	base := "http://" + addr
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if res, err := http.Get(base + "/health"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("loci.exe http did not answer on %s within a minute\nstderr: %s", addr, errb.String())
		}
	}
	post := func(path, body string) (int, string) {
		res, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			w.t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	notes := filepath.Join(w.dir, "standup notes.txt")
	os.WriteFile(notes, []byte("The release train leaves on Thursday; Priya owns the changelog."), 0o600)
	item := func(uri string) string {
		return `{"user_id":"u1","session_id":"s1","messages":[{"sender_id":"u1","role":"user","timestamp":1779968400000,"content":[{"type":"doc","ext":"txt","uri":"` + uri + `"}]}]}`
	}
	uri := "file:///Z:" + strings.ReplaceAll(url.PathEscape(notes), "%2F", "/")
	if code, body := post("/api/v1/memory/add", item(uri)); code != http.StatusOK {
		w.t.Fatalf("add %s: HTTP %d %s\nstderr: %s", uri, code, body, errb.String())
	}
	if code, body := post("/api/v1/memory/add", item("file:////evil.example/share/x.txt")); code != http.StatusUnsupportedMediaType || !strings.Contains(body, "shares and devices are never read") {
		w.t.Fatalf("a file:// item naming a share: HTTP %d %s, want 415 saying shares are never read", code, body)
	}
	post("/api/v1/memory/flush", `{"user_id":"u1","session_id":"s1"}`)
	if code, body := post("/api/v1/memory/search", `{"user_id":"u1","query":"who owns the changelog?"}`); code != http.StatusOK || !strings.Contains(body, "Priya") {
		w.t.Fatalf("search after adding the file: HTTP %d %s", code, body)
	}
}

// start starts loci.exe with args under Wine, after pipes (if any) has
// connected its streams, and returns its stderr and a stop that kills it
// and waits for it.
func (w *wineRun) start(pipes func(*exec.Cmd) error, args ...string) (*bytes.Buffer, func()) {
	w.t.Helper()
	cmd := exec.Command(w.wine, append([]string{w.exe}, args...)...)
	cmd.Dir, cmd.Env = w.dir, w.env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if pipes != nil {
		if err := pipes(cmd); err != nil {
			w.t.Fatal(err)
		}
	}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	return &errb, func() { cmd.Process.Kill(); cmd.Wait() }
}

// killAfterAcks starts `loci.exe serve --palace p`, has it remember n
// texts, reads each acknowledgement, then kills the process before it can
// close anything.
func (w *wineRun) killAfterAcks(p string, n int) {
	w.t.Helper()
	var in io.WriteCloser
	var out io.ReadCloser
	var cmd *exec.Cmd
	errb, stop := w.start(func(c *exec.Cmd) (err error) {
		cmd = c
		if in, err = c.StdinPipe(); err == nil {
			out, err = c.StdoutPipe()
		}
		return err
	}, "serve", "--palace", p)
	defer stop()
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wine-test","version":"1"}}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_remember","arguments":{"text":"Release note %d: the installer now signs build %d"}}}`+"\n", i, i, i*7)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for acked := 0; acked <= n; acked++ { // the initialize response, then n results
		if !sc.Scan() {
			w.t.Fatalf("serve stopped after %d of %d responses: %v\nstderr: %s", acked, n+1, sc.Err(), errb.String())
		}
		var f map[string]any
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil || f["error"] != nil || f["result"] == nil {
			w.t.Fatalf("response %d: %s", acked, sc.Text())
		}
		if r := fmt.Sprint(f["result"]); acked > 0 && !strings.Contains(r, "stored") {
			w.t.Fatalf("remember %d not acknowledged as stored: %s", acked, r)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		w.t.Fatal(err)
	}
}

// ensureProcessPrng gives a Wine without ProcessPrng (before 9.0) the one
// function Go's runtime needs from bcryptprimitives.dll, built from the C
// below with MinGW into the prefix's system32; Windows 10 and later, and
// newer Wine, have it.
func (w *wineRun) ensureProcessPrng(cc string) {
	w.t.Helper()
	_, errs, err := w.run(nil, "version") // also makes the prefix on first use
	if err == nil || !strings.Contains(errs, "bcryptprimitives.dll not found") {
		return
	}
	w.t.Log("this Wine lacks ProcessPrng: adding it to the prefix")
	dir := w.t.TempDir()
	src := filepath.Join(dir, "bcp.c")
	os.WriteFile(src, []byte(processPrngC), 0o600)
	dll := filepath.Join(w.prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	if out, err := exec.Command(cc, "-shared", "-o", dll, src, "-ladvapi32").CombinedOutput(); err != nil {
		w.t.Fatalf("build the ProcessPrng shim for Wine: %v\n%s", err, out)
	}
}

const processPrngC = `#include <windows.h>
#include <ntsecapi.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!RtlGenRandom(data, n)) return FALSE;
		data += n; len -= n;
	}
	return TRUE;
}
`

// stopServer ends the prefix's wineserver, which otherwise lingers a few
// seconds after the last Wine process.
func (w *wineRun) stopServer() {
	server := filepath.Join(filepath.Dir(w.wine), "wineserver")
	if _, err := os.Stat(server); err != nil {
		if server, err = exec.LookPath("wineserver"); err != nil {
			return
		}
	}
	cmd := exec.Command(server, "-k")
	cmd.Env = w.env
	cmd.Run()
}

// find returns the path of the first file called name under root ("" if
// none).
func (w *wineRun) find(root, name string) string {
	var found string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && found == "" && d.Name() == name {
			found = p
		}
		return nil
	})
	return found
}
