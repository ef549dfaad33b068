package loci_test

import (
	"os/exec"
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
