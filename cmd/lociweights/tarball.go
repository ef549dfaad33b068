package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// readTarball checks the npm integrity digest (sha512, base64) of the file
// at path and returns the contents of the regular files in it whose names
// want accepts, keyed by their path inside the archive.
func readTarball(path, integrity string, want func(name string) bool) (map[string][]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha512.Sum512(raw)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != integrity {
		return nil, fmt.Errorf("%s: integrity %s, want %s (wrong or corrupted tarball)", path, got, integrity)
	}
	zr, err := gzip.NewReader(strings.NewReader(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	files := make(map[string][]byte)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg || !want(h.Name) {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, h.Name, err)
		}
		files[h.Name] = b
	}
	return files, nil
}

// output collects the files of one weights directory and writes them with
// a SHA256SUMS file (in the format of sha256sum, sorted by name).
type output struct {
	dir   string
	files map[string][]byte
}

func newOutput(dir string) *output { return &output{dir: dir, files: map[string][]byte{}} }

func (o *output) add(name string, b []byte) { o.files[name] = b }

func (o *output) write(log io.Writer) error {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(o.files))
	for n := range o.files {
		names = append(names, n)
	}
	sort.Strings(names)
	var sums strings.Builder
	for _, n := range names {
		h := sha256.Sum256(o.files[n])
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(h[:]), n)
	}
	o.files["SHA256SUMS"] = []byte(sums.String())
	names = append(names, "SHA256SUMS")
	for _, n := range names {
		p := filepath.Join(o.dir, n)
		if err := writeAtomic(p, o.files[n]); err != nil {
			return err
		}
		h := sha256.Sum256(o.files[n])
		fmt.Fprintf(log, "wrote %s (%d bytes, sha256 %s)\n", p, len(o.files[n]), hex.EncodeToString(h[:8]))
	}
	return nil
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
