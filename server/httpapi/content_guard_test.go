//go:build linux

package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server/httpapi"
)

// The attacks of issue 13 on file:// items: each is refused with a 415
// that says why, promptly, and nothing is buffered.
func TestFileURIGuardrails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "notes.txt")
	os.WriteFile(plain, []byte("the notes"), 0o644)
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/proc/self/environ", filepath.Join(dir, "env-link"))
	onLoopback := newEnv(t, palace.Config{}, func(c *httpapi.Config) { c.Content.Loopback = true })
	for _, c := range []struct{ path, want string }{
		{"/proc/self/environ", "under /proc are never read"},
		{filepath.Join(dir, "env-link"), "under /proc are never read"},
		{"/sys/kernel/mm/transparent_hugepage/enabled", "under /sys are never read"},
		{"/dev/zero", "under /dev are never read"},
		{fifo, "not a regular file"},
		{dir, "not a regular file"},
	} {
		start := time.Now()
		errObj := onLoopback.fail("/api/v1/memory/add", addItem(`{"type":"doc","uri":"file://`+c.path+`","ext":"txt"}`), http.StatusUnsupportedMediaType)
		if msg := errObj["message"].(string); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want %q", c.path, msg, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: refused after %v", c.path, d)
		}
	}
	if got := buffered(t, onLoopback); len(got) != 0 {
		t.Errorf("refused items were buffered: %q", got)
	}
	onLoopback.ok("/api/v1/memory/add", addItem(`{"type":"doc","uri":"file://`+plain+`"}`))

	// Beyond loopback, file:// needs an allow-list.
	exposed := newEnv(t, palace.Config{}, nil)
	errObj := exposed.fail("/api/v1/memory/add", addItem(`{"type":"doc","uri":"file://`+plain+`"}`), http.StatusUnsupportedMediaType)
	if msg := errObj["message"].(string); !strings.Contains(msg, "LOCI_FILE_URI_ALLOW_DIRS") {
		t.Errorf("off loopback without an allow-list: %q", msg)
	}
	allowed := newEnv(t, palace.Config{}, func(c *httpapi.Config) { c.Content.FileAllowDirs = []string{dir} })
	allowed.ok("/api/v1/memory/add", addItem(`{"type":"doc","uri":"file://`+plain+`"}`))
}

// With fetching on, a fetch never reaches an internal address — directly,
// or through a redirect from a host the user allowed — unless that host is
// allowed itself.
func TestFetchRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "internal secret")
	}))
	defer internal.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+"/metrics", http.StatusFound)
	}))
	defer redirector.Close()
	hostOf := func(u string) string { return strings.TrimPrefix(u, "http://") }
	e := newEnv(t, palace.Config{}, func(c *httpapi.Config) {
		c.Content.AllowHTTPFetch = true
		c.Content.FetchAllowHosts = []string{hostOf(redirector.URL)}
	})
	for _, u := range []string{internal.URL + "/x.txt", "http://localhost:" + strings.Split(hostOf(internal.URL), ":")[1] + "/x.txt",
		redirector.URL + "/go.txt", "http://[::1]:1/x.txt", "http://169.254.169.254/latest/meta-data/"} {
		errObj := e.fail("/api/v1/memory/add", addItem(`{"type":"doc","uri":"`+u+`"}`), http.StatusUnsupportedMediaType)
		if msg := errObj["message"].(string); !strings.Contains(msg, "internal") {
			t.Errorf("%s: %q, want a refusal of the internal address", u, msg)
		}
	}
	if got := buffered(t, e); len(got) != 0 {
		t.Errorf("refused fetches were buffered: %q", got)
	}
	ok := newEnv(t, palace.Config{}, func(c *httpapi.Config) {
		c.Content.AllowHTTPFetch = true
		c.Content.FetchAllowHosts = []string{hostOf(internal.URL)}
	})
	ok.ok("/api/v1/memory/add", addItem(`{"type":"doc","uri":"`+internal.URL+`/x.txt"}`))
	if got := buffered(t, ok); len(got) != 1 || !strings.Contains(got[0], "internal secret") {
		t.Errorf("an allowed host was not fetched: %q", got)
	}
}
