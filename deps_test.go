package loci_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDependencyDirection enforces DESIGN.md's import graph:
// cmd -> server -> dreamer -> palace, kg; palace imports kg and its own
// sub-packages only; kg imports nothing of loci; server only from cmd.
func TestDependencyDirection(t *testing.T) {
	const mod = "github.com/loci-mem/loci"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	top := func(pkg string) string {
		rest := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
		return strings.SplitN(rest, "/", 2)[0]
	}
	// allowed[a][b]: top-level area a may import area b.
	allowed := map[string]map[string]bool{
		"kg":      {"kg": true},
		"palace":  {"palace": true, "kg": true},
		"dreamer": {"dreamer": true, "palace": true, "kg": true},
		"server":  {"server": true, "dreamer": true, "palace": true, "kg": true},
		"cmd":     {"cmd": true, "server": true, "dreamer": true, "palace": true, "kg": true},
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], mod) {
			continue
		}
		from := top(fields[0])
		rules, ok := allowed[from]
		if !ok {
			continue // the module root holds only tests
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			checked++
			if to := top(imp); !rules[to] {
				t.Errorf("%s imports %s: %s may not depend on %s", fields[0], imp, from, to)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no internal imports found; the check is not looking at anything")
	}
}

// TestStoreBoundary enforces DESIGN.md's store boundary: only the storage
// backends (palace/store/<backend>) talk to a database. No other package —
// the core, a face, the dreamer, the CLI — imports database/sql or a
// database driver, and only the core and the binary's wiring know the
// backends by name.
func TestStoreBoundary(t *testing.T) {
	const mod = "github.com/loci-mem/loci"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	isBackend := func(pkg string) bool { return strings.HasPrefix(pkg, mod+"/palace/store/") }
	isDB := func(imp string) bool {
		return imp == "database/sql" || strings.HasPrefix(imp, "database/sql/") ||
			strings.HasPrefix(imp, "github.com/mattn/go-sqlite3") || strings.HasPrefix(imp, "github.com/jackc/pgx")
	}
	mayWire := func(pkg string) bool { return pkg == mod+"/palace" || strings.HasPrefix(pkg, mod+"/cmd/") }
	backends := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		if isBackend(pkg) {
			backends++
			continue
		}
		for _, imp := range fields[1:] {
			if isDB(imp) {
				t.Errorf("%s imports %s: only palace/store/<backend> packages may talk to a database", pkg, imp)
			}
			if isBackend(imp) && !mayWire(pkg) {
				t.Errorf("%s imports %s: faces use the palace API, not a store backend", pkg, imp)
			}
		}
	}
	if backends == 0 {
		t.Fatal("no store backend found; the check is not looking at anything")
	}
}

// TestOneWordSplitter: text is split into words in palace/words and
// nowhere else, except by the tokenizers whose output must not change
// with ours: the keyword index's (palace/bm25, equal to SQLite FTS5's)
// and the embedders' (palace/embed/..., fixed by each model and by the
// vectors already stored).
func TestOneWordSplitter(t *testing.T) {
	allowed := func(path string) bool {
		path = filepath.ToSlash(path)
		return strings.HasPrefix(path, "palace/words/") || strings.HasPrefix(path, "palace/bm25/") ||
			strings.HasPrefix(path, "palace/embed/")
	}
	// A word test: a letter-or-digit predicate, the heart of a splitter.
	splitter := regexp.MustCompile(`unicode\.IsLetter\(\w+\)\s*\|\|\s*unicode\.IsDigit|!unicode\.IsLetter\(\w+\)\s*&&\s*!unicode\.IsDigit`)
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		checked++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if splitter.Match(src) && !allowed(path) {
			t.Errorf("%s splits text into words itself: use palace/words", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d Go files: is the test running at the module root?", checked)
	}
}
