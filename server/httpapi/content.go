package httpapi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// ContentConfig governs non-text content items of /add (seed 001's
// ContentItem). html and email are reduced to text locally; plain-text
// documents are read as they are; image, audio, pdf and other doc items go
// to the multimodal model when one is configured, else they get a 415.
type ContentConfig struct {
	// FileMaxBytes caps a file:// item (LOCI_FILE_URI_MAX_BYTES, default
	// 50 MiB).
	FileMaxBytes int64
	// FileAllowDirs, when non-empty, are the only roots file:// items may
	// come from (LOCI_FILE_URI_ALLOW_DIRS, comma or path-list separated).
	// Empty: any readable regular file when Loopback is set (seed 001's
	// local-first default), no file at all otherwise.
	FileAllowDirs []string
	// Loopback reports that the API listens on loopback only, so every
	// caller is on this machine. Off loopback, file:// items need
	// FileAllowDirs.
	Loopback bool
	// AllowHTTPFetch lets /add fetch http(s):// items
	// (LOCI_ALLOW_HTTP_FETCH=1). Off by default: no network access unless
	// configured. Fetches never reach loopback, private, link-local or
	// otherwise internal addresses, on any redirect hop, unless the host
	// is in FetchAllowHosts.
	AllowHTTPFetch bool
	// FetchAllowHosts are host or host:port names fetches may reach even
	// on internal addresses (LOCI_FETCH_ALLOW_HOSTS, comma separated).
	FetchAllowHosts []string
	// FetchMaxBytes caps a fetched item; default FileMaxBytes.
	FetchMaxBytes int64
	// Multimodal parses image, audio, pdf and doc items
	// (LOCI_MULTIMODAL_BASE_URL, LOCI_MULTIMODAL_MODEL,
	// LOCI_MULTIMODAL_API_KEY).
	Multimodal *Multimodal
	// Client fetches http(s) items; nil means one with a 30s timeout.
	Client *http.Client
}

func (c *ContentConfig) defaults() {
	if c.FileMaxBytes <= 0 {
		c.FileMaxBytes = 50 << 20
	}
	if c.FetchMaxBytes <= 0 {
		c.FetchMaxBytes = c.FileMaxBytes
	}
	if c.Client == nil {
		c.Client = fetchClient(c.FetchAllowHosts)
	}
}

func (c *ContentConfig) fromEnv() error {
	if v := strings.TrimSpace(os.Getenv("LOCI_FILE_URI_MAX_BYTES")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("LOCI_FILE_URI_MAX_BYTES %q: want a positive number of bytes", v)
		}
		c.FileMaxBytes = n
	}
	if v := strings.TrimSpace(os.Getenv("LOCI_FILE_URI_ALLOW_DIRS")); v != "" {
		for _, d := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == os.PathListSeparator }) {
			if d = strings.TrimSpace(d); d != "" {
				c.FileAllowDirs = append(c.FileAllowDirs, d)
			}
		}
	}
	for _, h := range strings.Split(os.Getenv("LOCI_FETCH_ALLOW_HOSTS"), ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			c.FetchAllowHosts = append(c.FetchAllowHosts, h)
		}
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv("LOCI_ALLOW_HTTP_FETCH"))) {
	case "1", "true", "yes", "on":
		c.AllowHTTPFetch = true
	}
	mm, err := MultimodalFromEnv()
	if err != nil {
		return err
	}
	c.Multimodal = mm
	return nil
}

// contentItem is one validated ContentItem.
type contentItem struct {
	Type, Text, URI, Base64, Ext, Name string
	hasText, hasURI, hasB64            bool
}

// payload is a non-text item's bytes with what is known of their type.
type payload struct {
	data     []byte
	mimeType string // from the fetch, "" when unknown
	ext      string // lower case, no dot
}

// itemText reduces one content item to text, or fails with a 415.
func (c *ContentConfig) itemText(ctx context.Context, it contentItem, idx int) (string, error) {
	if it.Type == "text" {
		return it.Text, nil
	}
	if !it.hasURI && !it.hasB64 {
		return "", mediaErrf("content item %d: a '%s' item must carry uri or base64 (send inline text as type 'text')", idx, it.Type)
	}
	pl, err := c.load(ctx, it, idx)
	if err != nil {
		return "", err
	}
	switch it.Type {
	case "html":
		return htmlToText(string(pl.data)), nil
	case "email":
		return emailToText(pl.data)
	case "doc":
		if isPlainText(pl) {
			if !utf8.Valid(pl.data) {
				return "", mediaErrf("content item %d: the document is not valid UTF-8 text", idx)
			}
			return string(pl.data), nil
		}
		if pl.ext == "html" || pl.ext == "htm" || strings.HasPrefix(pl.mimeType, "text/html") {
			return htmlToText(string(pl.data)), nil
		}
	}
	if c.Multimodal == nil {
		return "", mediaErrf("content item %d: no multimodal model is configured to parse '%s' content (set LOCI_MULTIMODAL_BASE_URL and LOCI_MULTIMODAL_MODEL)", idx, it.Type)
	}
	text, err := c.Multimodal.Parse(ctx, it.Type, it.Name, pl)
	if err != nil {
		return "", mediaErrf("content item %d: the multimodal model could not parse it: %v", idx, err)
	}
	return text, nil
}

var plainExts = map[string]bool{"txt": true, "text": true, "md": true, "markdown": true, "csv": true, "tsv": true,
	"json": true, "yaml": true, "yml": true, "log": true, "rst": true, "org": true}

func isPlainText(pl payload) bool {
	return plainExts[pl.ext] || strings.HasPrefix(pl.mimeType, "text/plain") || strings.HasPrefix(pl.mimeType, "text/markdown") ||
		strings.HasPrefix(pl.mimeType, "application/json")
}

// load gets an item's bytes from base64, a file:// URI or an http(s) URI.
func (c *ContentConfig) load(ctx context.Context, it contentItem, idx int) (payload, error) {
	ext := strings.ToLower(strings.TrimPrefix(it.Ext, "."))
	if it.hasB64 {
		s := strings.TrimSpace(it.Base64)
		if strings.HasPrefix(s, "data:") {
			return payload{}, mediaErrf("content item %d: base64 must be plain base64, without a data: prefix", idx)
		}
		data, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			data, err = base64.RawStdEncoding.DecodeString(s)
		}
		if err != nil {
			return payload{}, mediaErrf("content item %d: base64 payload is not valid base64", idx)
		}
		if ext == "" && it.Name != "" {
			ext = strings.ToLower(strings.TrimPrefix(filepath.Ext(it.Name), "."))
		}
		return payload{data: data, ext: ext}, nil
	}
	u, err := url.Parse(it.URI)
	if err != nil {
		return payload{}, mediaErrf("content item %d: uri is not a valid URI", idx)
	}
	if ext == "" {
		ext = strings.ToLower(strings.TrimPrefix(filepath.Ext(u.Path), "."))
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		data, err := c.readFileURI(u)
		if err != nil {
			return payload{}, mediaErrf("content item %d: %v", idx, err)
		}
		return payload{data: data, ext: ext}, nil
	case "http", "https":
		if !c.AllowHTTPFetch {
			return payload{}, mediaErrf("content item %d: fetching http(s) URIs is disabled (set LOCI_ALLOW_HTTP_FETCH=1 to allow it)", idx)
		}
		data, mt, err := c.fetch(ctx, u)
		if err != nil {
			return payload{}, mediaErrf("content item %d: %v", idx, err)
		}
		return payload{data: data, mimeType: mt, ext: ext}, nil
	default:
		return payload{}, mediaErrf("content item %d: unsupported URI scheme %q (use file://, http:// or https://)", idx, u.Scheme)
	}
}

// readFileURI applies seed 001's guardrails and loci's: the resolved path
// (symlinks followed) must be an existing regular file of at most
// FileMaxBytes, never under /proc, /sys or /dev; inside one of
// FileAllowDirs when those are set, and with none set only when the API
// listens on loopback. The file is checked before it is opened and opened
// without blocking, so a FIFO or a device can never hang the request.
func (c *ContentConfig) readFileURI(u *url.URL) ([]byte, error) {
	p, err := uriPath(u, runtime.GOOS)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		return nil, errors.New("file URI needs an absolute path")
	}
	if len(c.FileAllowDirs) == 0 && !c.Loopback {
		return nil, errors.New("file:// URIs are refused when the companion listens beyond loopback; " +
			"set LOCI_FILE_URI_ALLOW_DIRS to the directories they may come from")
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, errors.New("file does not exist or cannot be resolved")
	}
	for _, sys := range []string{"/proc", "/sys", "/dev"} {
		if within(sys, resolved) {
			return nil, fmt.Errorf("files under %s are never read", sys)
		}
	}
	if len(c.FileAllowDirs) > 0 {
		inside := false
		for _, d := range c.FileAllowDirs {
			if root, err := filepath.EvalSymlinks(d); err == nil && within(root, resolved) {
				inside = true
				break
			}
		}
		if !inside {
			return nil, errors.New("file is outside the allowed directories (LOCI_FILE_URI_ALLOW_DIRS)")
		}
	}
	if st, err := os.Stat(resolved); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("path is not a regular file")
	}
	// O_NONBLOCK: if the path was swapped for a FIFO since the check, the
	// open returns at once instead of waiting for a writer.
	f, err := os.OpenFile(resolved, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, errors.New("file cannot be opened")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("path is not a regular file")
	}
	if st.Size() > c.FileMaxBytes {
		return nil, fmt.Errorf("file is %d bytes; the limit is %d (LOCI_FILE_URI_MAX_BYTES)", st.Size(), c.FileMaxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, c.FileMaxBytes+1))
	if err != nil {
		return nil, errors.New("file cannot be read")
	}
	if int64(len(data)) > c.FileMaxBytes {
		return nil, fmt.Errorf("file is larger than the limit of %d bytes", c.FileMaxBytes)
	}
	return data, nil
}

// uriPath is the local path a file:// URI names on goos. On Windows that
// is a drive path (file:///C:/dir/notes.txt is C:\dir\notes.txt) and
// nothing else: a share (file:////host/share/x, or \\host\share
// escaped) would make the server connect to another machine, handing it
// the user's credentials, and a device path (\\.\, \\?\) is no file.
func uriPath(u *url.URL, goos string) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("file URI host %q is not this machine", u.Host)
	}
	p := u.Path
	if goos == "windows" {
		drive := len(p) >= 4 && p[0] == '/' && p[2] == ':' && p[3] == '/' &&
			(p[1] >= 'A' && p[1] <= 'Z' || p[1] >= 'a' && p[1] <= 'z')
		if !drive {
			return "", errors.New("file URI must name a path on a local drive (file:///C:/dir/file); shares and devices are never read")
		}
		return p[1:3] + strings.ReplaceAll(p[3:], "/", `\`), nil
	}
	if !strings.HasPrefix(p, "/") {
		return "", errors.New("file URI needs an absolute path")
	}
	return p, nil
}

// within reports whether path lies in or under root (both cleaned,
// absolute).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (c *ContentConfig) fetch(ctx context.Context, u *url.URL) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", errors.New("uri cannot be fetched")
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		return nil, "", fetchError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("fetching the uri returned HTTP %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.FetchMaxBytes+1))
	if err != nil {
		return nil, "", errors.New("uri cannot be read")
	}
	if int64(len(data)) > c.FetchMaxBytes {
		return nil, "", fmt.Errorf("the fetched content is larger than %d bytes", c.FetchMaxBytes)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return data, mt, nil
}
