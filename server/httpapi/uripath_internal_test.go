package httpapi

import (
	"net/url"
	"strings"
	"testing"
)

// A file:// URI names a local file, as each system writes its paths: on
// Windows a drive path only, never a share (whose server would be handed
// the user's credentials) nor a device.
func TestURIPathPerSystem(t *testing.T) {
	for _, c := range []struct {
		uri, goos, want, err string
	}{
		{"file:///home/a/notes.txt", "linux", "/home/a/notes.txt", ""},
		{"file://localhost/home/a/notes.txt", "darwin", "/home/a/notes.txt", ""},
		{"file://evil.example/etc/passwd", "linux", "", "is not this machine"},
		{"file:notes.txt", "linux", "", "absolute path"},
		{"file:///C:/Users/a/notes.txt", "windows", `C:\Users\a\notes.txt`, ""},
		{"file://localhost/d:/work/plan%20v2.md", "windows", `d:\work\plan v2.md`, ""},
		{"file:////evil.example/share/x.txt", "windows", "", "shares and devices are never read"},
		{"file://evil.example/share/x.txt", "windows", "", "is not this machine"},
		{"file:///%5C%5Cevil.example%5Cshare%5Cx.txt", "windows", "", "shares and devices are never read"},
		{"file:///%5C%5C.%5CPhysicalDrive0", "windows", "", "shares and devices are never read"},
		{"file:///home/a/notes.txt", "windows", "", "local drive"},
		{"file:///C:", "windows", "", "local drive"},
	} {
		u, err := url.Parse(c.uri)
		if err != nil {
			t.Fatal(err)
		}
		got, err := uriPath(u, c.goos)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s on %s: %q, %v; want %q", c.uri, c.goos, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s on %s: %q, %v; want an error saying %q", c.uri, c.goos, got, err, c.err)
		}
	}
}
