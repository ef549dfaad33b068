package httpapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/server/httpapi"
)

func addItem(item string) string {
	return `{"session_id":"c","messages":[{"sender_id":"u","role":"user","timestamp":1779968400000,"content":[` + item + `]}]}`
}

func buffered(t *testing.T, e *env) []string {
	t.Helper()
	if !e.reg.Exists("default") {
		return nil
	}
	msgs, err := session.Of(e.palace("default")).Messages(context.Background(), "c")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}

func TestContentItems415(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed")
	os.Mkdir(allowed, 0o755)
	os.WriteFile(filepath.Join(allowed, "big.html"), []byte(strings.Repeat("x", 2048)), 0o644)
	os.WriteFile(filepath.Join(dir, "outside.html"), []byte("<p>secret</p>"), 0o644)
	os.Symlink(filepath.Join(dir, "outside.html"), filepath.Join(allowed, "link.html"))
	e := newEnv(t, palace.Config{}, func(c *httpapi.Config) {
		c.Content.FileAllowDirs = []string{allowed}
		c.Content.FileMaxBytes = 1024
	})
	for _, c := range []struct{ item, want string }{
		{`{"type":"html","text":"<p>x</p>"}`, "must carry uri or base64"},
		{`{"type":"image","base64":"iVBORw0KGgo=","ext":"png"}`, "no multimodal model is configured to parse 'image' content"},
		{`{"type":"pdf","uri":"file://` + filepath.Join(allowed, "big.html") + `"}`, "the limit is 1024"},
		{`{"type":"html","uri":"file://` + filepath.Join(dir, "outside.html") + `"}`, "outside the allowed directories"},
		{`{"type":"html","uri":"file://` + filepath.Join(allowed, "link.html") + `"}`, "outside the allowed directories"},
		{`{"type":"html","uri":"file://` + allowed + `"}`, "not a regular file"},
		{`{"type":"html","uri":"file://` + filepath.Join(allowed, "missing.html") + `"}`, "does not exist"},
		{`{"type":"html","uri":"file://relative/x.html"}`, "is not this machine"},
		{`{"type":"html","uri":"https://example.com/page.html"}`, "fetching http(s) URIs is disabled"},
		{`{"type":"html","uri":"ftp://example.com/x"}`, "unsupported URI scheme"},
		{`{"type":"html","base64":"%%%"}`, "not valid base64"},
		{`{"type":"html","base64":"data:text/html;base64,PHA+"}`, "without a data: prefix"},
		{`{"type":"email","base64":"` + base64.StdEncoding.EncodeToString([]byte("not an email")) + `"}`, "the email cannot be parsed"},
	} {
		errObj := e.fail("/api/v1/memory/add", addItem(c.item), http.StatusUnsupportedMediaType)
		if msg := errObj["message"].(string); !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, "content item 0") && !strings.Contains(msg, "email") {
			t.Errorf("%s: message %q, want %q", c.item, msg, c.want)
		}
	}
	if got := buffered(t, e); len(got) != 0 {
		t.Errorf("a rejected item was buffered: %v", got)
	}
}

func TestContentItemsReducedToText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := `<html><head><title>Trip</title><style>p{color:red}</style><script>var x = "<p>no</p>";</script></head>
<body><h1>Lisbon&nbsp;trip</h1><!-- hidden --><p>We land at <b>09:40</b> &amp; take the metro.</p><ul><li>Day 1</li><li>Day 2</li></ul></body></html>`
	os.WriteFile(filepath.Join(dir, "trip.html"), []byte(page), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\nBring the adapter."), 0o644)
	email := "From: =?UTF-8?Q?Jos=C3=A9?= <jose@example.com>\r\nTo: u@example.com\r\nSubject: Dinner\r\nContent-Type: multipart/alternative; boundary=XX\r\n\r\n" +
		"--XX\r\nContent-Type: text/html\r\n\r\n<p>html body</p>\r\n--XX\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nDinner at 8 =E2=80=94 bring wine.\r\n--XX--\r\n"
	e := newEnv(t, palace.Config{}, func(c *httpapi.Config) { c.Content.Loopback = true })
	e.ok("/api/v1/memory/add", addItem(
		`{"type":"text","text":"Here is my plan."},`+
			`{"type":"html","uri":"file://`+filepath.Join(dir, "trip.html")+`","name":"trip.html"},`+
			`{"type":"html","base64":"`+base64.StdEncoding.EncodeToString([]byte("<div>Inline <i>html</i></div>"))+`"},`+
			`{"type":"doc","uri":"file://`+filepath.Join(dir, "notes.md")+`"},`+
			`{"type":"email","base64":"`+base64.StdEncoding.EncodeToString([]byte(email))+`"}`))
	got := buffered(t, e)
	if len(got) != 1 {
		t.Fatalf("buffered = %v", got)
	}
	text := got[0]
	for _, want := range []string{"Here is my plan.", "Trip\nLisbon trip\nWe land at 09:40 & take the metro.\nDay 1\nDay 2",
		"Inline html", "# Notes\nBring the adapter.", "From: José <jose@example.com>", "Subject: Dinner", "Dinner at 8 — bring wine."} {
		if !strings.Contains(text, want) {
			t.Errorf("message text lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"color:red", "var x", "hidden", "html body"} {
		if strings.Contains(text, bad) {
			t.Errorf("message text keeps %q:\n%s", bad, text)
		}
	}
}

func TestMultimodalAndFetch(t *testing.T) {
	t.Parallel()
	var sawImage bool
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content []map[string]any `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		for _, part := range body.Messages[0].Content {
			if part["type"] == "image_url" && strings.HasPrefix(fmt.Sprint(part["image_url"]), "map[url:data:image/png;base64,") {
				sawImage = true
			}
		}
		fmt.Fprint(w, `{"choices":[{"message":{"content":"A whiteboard that says: ship on Monday."}}]}`)
	}))
	defer llm.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>Fetched page text</p>")
	}))
	defer site.Close()
	e := newEnv(t, palace.Config{}, func(c *httpapi.Config) {
		c.Content.Multimodal = &httpapi.Multimodal{BaseURL: llm.URL, Model: "vision"}
		c.Content.AllowHTTPFetch = true
		c.Content.FetchAllowHosts = []string{strings.TrimPrefix(site.URL, "http://")}
	})
	e.ok("/api/v1/memory/add", addItem(`{"type":"image","base64":"iVBORw0KGgo=","ext":"png"},{"type":"html","uri":"`+site.URL+`/p"}`))
	got := buffered(t, e)
	if !sawImage || len(got) != 1 || !strings.Contains(got[0], "ship on Monday") || !strings.Contains(got[0], "Fetched page text") {
		t.Errorf("sawImage %v, buffered %q", sawImage, got)
	}
	errObj := e.fail("/api/v1/memory/add", addItem(`{"type":"audio","base64":"AAAA","ext":"ogg"}`), http.StatusUnsupportedMediaType)
	if !strings.Contains(errObj["message"].(string), "unknown audio format") {
		t.Errorf("ogg audio: %v", errObj["message"])
	}
}

func TestHTMLToText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":            "plain",
		"<p>a</p><p>b</p>": "a\nb",
		"x<br>y<br/>z":     "x\ny\nz",
		"<table><tr><td>1</td><td>2</td></tr></table>": "1 2",
		"<SCRIPT>bad()</SCRIPT>ok":                     "ok",
		"&lt;tag&gt; &quot;q&quot;":                    `<tag> "q"`,
		"unterminated <b":                              "unterminated",
	} {
		if got := httpapi.HTMLToText(in); got != want {
			t.Errorf("HTMLToText(%q) = %q, want %q", in, got, want)
		}
	}
}
