package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hubEnvelope reads `loci hub`'s first stdout line: the CLI envelope with
// the URL.
func hubEnvelope(t *testing.T, p *proc) (url string, started bool) {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatalf("loci hub printed nothing; stderr:\n%s", p.stderr.String())
		}
		var env struct {
			OK   bool
			Data struct {
				URL     string
				Started bool
			}
		}
		if err := json.Unmarshal([]byte(l), &env); err != nil || !env.OK || env.Data.URL == "" {
			t.Fatalf("envelope %q: %v", l, err)
		}
		return env.Data.URL, env.Data.Started
	case <-time.After(20 * time.Second):
		t.Fatalf("loci hub printed no URL; stderr:\n%s", p.stderr.String())
	}
	return "", false
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func exitCode(t *testing.T, p *proc, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("loci hub did not exit within %v", timeout)
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
}

func TestHubCommand(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	first := startLoci(t, home, nil, "hub", "--addr", "127.0.0.1:0", "--no-open", "--format", "json")
	url, started := hubEnvelope(t, first)
	if !started || !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0/") {
		t.Fatalf("url %q, started %v", url, started)
	}
	if code, body := get(t, url, ""); code != 200 || !strings.Contains(body, "Memory Hub") {
		t.Fatalf("GET %s: %d", url, code)
	}
	if code, body := get(t, url+"hub/api/overview", ""); code != 200 || !strings.Contains(body, `"stats"`) {
		t.Fatalf("overview: %d %s", code, body)
	}
	if code, _ := get(t, url+"health", ""); code != 200 {
		t.Fatalf("health: %d", code)
	}

	// A second `loci hub` at the same address finds the running companion,
	// prints the URL and exits.
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	second := startLoci(t, home, nil, "hub", "--addr", addr, "--no-open", "--format", "json")
	if url2, started2 := hubEnvelope(t, second); url2 != url || started2 {
		t.Errorf("second hub: url %q started %v; want %q, false", url2, started2, url)
	}
	if code := exitCode(t, second, 10*time.Second); code != 0 {
		t.Errorf("second hub exited %d", code)
	}

	// SIGINT stops the first promptly, even with a live stream open.
	res, err := http.Get(url + "hub/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if line, _ := bufio.NewReader(res.Body).ReadString('\n'); line != "event: hello\n" {
		t.Fatalf("events stream began with %q", line)
	}
	start := time.Now()
	first.cmd.Process.Signal(os.Interrupt)
	if code := exitCode(t, first, 10*time.Second); code != 0 {
		t.Errorf("loci hub exited %d after SIGINT; stderr:\n%s", code, first.stderr.String())
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("loci hub took %v to stop", took)
	}
}

// TestHubCommandToken: with a bearer token configured, the page loads
// without it (it asks for the token itself), the data does not, and no
// URL printed carries the token.
func TestHubCommandToken(t *testing.T) {
	t.Parallel()
	const token = "hub-test-token-0123456789"
	p := startLoci(t, t.TempDir(), []string{"LOCI_HTTP_TOKEN=" + token},
		"hub", "--addr", "127.0.0.1:0", "--no-open", "--format", "json")
	url, _ := hubEnvelope(t, p)
	if strings.Contains(url, token) {
		t.Fatalf("the URL carries the token: %s", url)
	}
	if code, _ := get(t, url, ""); code != 200 {
		t.Errorf("page without token: %d, want 200", code)
	}
	if code, _ := get(t, url+"hub/assets/hub.js", ""); code != 200 {
		t.Errorf("asset without token: %d, want 200", code)
	}
	if code, _ := get(t, url+"hub/api/overview", ""); code != 401 {
		t.Errorf("API without token: %d, want 401", code)
	}
	if code, _ := get(t, url+"hub/api/overview", token); code != 200 {
		t.Errorf("API with token: %d, want 200", code)
	}
	if !strings.Contains(p.stderr.String(), "will ask for it") {
		t.Errorf("no token hint on stderr:\n%s", p.stderr.String())
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, p, 10*time.Second); code != 0 {
		t.Errorf("exit %d", code)
	}
}
