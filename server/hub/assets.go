package hub

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

//go:embed assets
var assetFS embed.FS

// contentPolicy allows only the hub's own scripts, styles and API: no
// inline script, nothing from another origin, no framing.
const contentPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Assets returns the embedded page files (index.html, hub.css, hub.js,
// js/*.js) as they are served, without the version filled in.
func Assets() fs.FS {
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

type asset struct {
	body  []byte
	etag  string
	ctype string
}

var (
	assetsOnce sync.Once
	assets     map[string]asset // by path under assets/
)

// loadAssets reads the embedded files once and tags each with a content
// hash, so browsers revalidate cheaply and never run a stale script after
// an upgrade.
func loadAssets() map[string]asset {
	assetsOnce.Do(func() {
		assets = map[string]asset{}
		_ = fs.WalkDir(assetFS, "assets", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := assetFS.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			ct := mime.TypeByExtension(path.Ext(p))
			if ct == "" {
				ct = "application/octet-stream"
			}
			assets[strings.TrimPrefix(p, "assets/")] = asset{body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: ct}
			return nil
		})
	})
	return assets
}

func serveAsset(w http.ResponseWriter, r *http.Request, a asset) {
	w.Header().Set("Content-Type", a.ctype)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}

// assetHandler serves /hub/assets/<name> from the embedded files.
func assetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/hub/assets/")
		a, ok := loadAssets()[name]
		if !ok || name == "index.html" {
			http.NotFound(w, r)
			return
		}
		serveAsset(w, r, a)
	})
}

// pageAsset is the page shell with the version filled in.
func pageAsset(version string) asset {
	a := loadAssets()["index.html"]
	a.body = bytes.ReplaceAll(a.body, []byte("{{VERSION}}"), []byte(htmlEscape(version)))
	sum := sha256.Sum256(a.body)
	a.etag = `"` + hex.EncodeToString(sum[:8]) + `"`
	return a
}

// index serves the page shell.
func (h *Hub) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", contentPolicy)
	w.Header().Set("X-Frame-Options", "DENY")
	serveAsset(w, r, h.page)
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
