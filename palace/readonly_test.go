package palace_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// A palace in a data dir that cannot be written (a read-only mount,
// another user's files) can still be read and searched; a write fails with
// a clear error and changes nothing.
func TestReadOnlyDataDirServesReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.Create(ctx, "ro", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Add(ctx, &palace.Drawer{Content: "the archive is frozen in amber"}); err != nil {
		t.Fatal(err)
	}
	reg.Close()

	if os.Getuid() != 0 {
		// An ordinary user: a directory without write permission.
		for _, d := range []string{dir, filepath.Join(dir, "palaces"), filepath.Join(dir, "palaces", "ro")} {
			if err := os.Chmod(d, 0o555); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(d, 0o700)
		}
		if out := readOnlyChild(dir); out != "ok" {
			t.Fatal(out)
		}
		return
	}
	// root reads and writes anything: run the check as nobody on files
	// nobody owns but may not write.
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatalf("running as root, the test needs setpriv (util-linux) to drop privileges: %v", err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "palaces"), filepath.Join(dir, "palaces", "ro")} {
		if err := os.Chown(d, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "palaces", "ro"))
	for _, e := range entries {
		if err := os.Chown(filepath.Join(dir, "palaces", "ro", e.Name()), 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	for d := filepath.Dir(dir); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(d, fi.Mode().Perm()|0o001); err != nil { // let nobody reach the dir
				t.Fatal(err)
			}
			defer os.Chmod(d, fi.Mode().Perm())
		}
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", os.Args[0])
	cmd.Env = append(os.Environ(), "LOCI_READONLY_CHILD="+dir, "HOME=/nonexistent")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "READONLY-OK") {
		t.Fatalf("child as nobody: %v\n%s", err, out)
	}
}

// TestMain runs readOnlyChild instead of the tests when the process is
// TestReadOnlyDataDirServesReads's unprivileged child.
func TestMain(m *testing.M) {
	if dir := os.Getenv("LOCI_READONLY_CHILD"); dir != "" {
		if out := readOnlyChild(dir); out != "ok" {
			fmt.Println(out)
			os.Exit(1)
		}
		fmt.Println("READONLY-OK")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func readOnlyChild(dir string) string {
	ctx := context.Background()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir})
	if err != nil {
		return "open registry: " + err.Error()
	}
	defer reg.Close()
	p, err := reg.Open(ctx, "ro")
	if err != nil {
		return "open palace: " + err.Error()
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "frozen amber"})
	if err != nil || len(hits) != 1 {
		return fmt.Sprintf("search: %d hits, %v", len(hits), err)
	}
	err = p.Add(ctx, &palace.Drawer{Content: "a new note"})
	if !errors.Is(err, palace.ErrInvalid) || !strings.Contains(err.Error(), "read-only") {
		return fmt.Sprintf("write: %v, want a read-only error", err)
	}
	if _, err := reg.Create(ctx, "other", ""); err == nil {
		return "create succeeded in a read-only data dir"
	}
	return "ok"
}
