package kg_test

import (
	"context"
	"database/sql"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/loci-mem/loci/kg"
)

func TestOpenIdempotent(t *testing.T) {
	db, path := MustOpenDB(t)
	ctx := context.Background()
	s, err := kg.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	mustAssert(t, s, "svc", "owner", "ana")

	// Reopening, on the same handle or another, keeps data and schema.
	for _, h := range []*sql.DB{db, MustOpenDBAt(t, path)} {
		s2, err := kg.Open(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s2.Query(ctx, "svc")
		if err != nil || len(got) != 1 {
			t.Fatalf("Query after reopen = %+v, %v", got, err)
		}
	}
	var versions, max int
	if err := db.QueryRow(`SELECT COUNT(*), MAX(version) FROM kg_schema`).Scan(&versions, &max); err != nil {
		t.Fatal(err)
	}
	if versions != max || max != kg.SchemaVersion() || max < 1 {
		t.Errorf("kg_schema has %d rows up to %d, want 1..%d", versions, max, kg.SchemaVersion())
	}
}

func TestOpenConcurrent(t *testing.T) {
	_, path := MustOpenDB(t)
	handles := []*sql.DB{MustOpenDBAt(t, path), MustOpenDBAt(t, path)}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			if _, err := kg.Open(context.Background(), handles[i%2]); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := handles[0].QueryRow(`SELECT COUNT(*) FROM kg_schema`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if got, want := n, kg.SchemaVersion(); got != want {
		t.Errorf("kg_schema rows = %d, want %d", got, want)
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	db, _ := MustOpenDB(t)
	ctx := context.Background()
	if _, err := kg.Open(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO kg_schema (version, applied_at) VALUES (?, 'x')`, kg.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	_, err := kg.Open(ctx, db)
	if err == nil || !strings.Contains(err.Error(), "newer than this build") {
		t.Errorf("Open on a newer schema err = %v", err)
	}
	if _, err := kg.Open(ctx, nil); err == nil {
		t.Errorf("Open(nil) succeeded")
	}
}

// TestImports enforces the package doc: kg imports nothing of loci.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/loci-mem/loci" || strings.HasPrefix(path, "github.com/loci-mem/loci/") {
				t.Errorf("%s imports %s: kg must import nothing of loci", name, path)
			}
			if strings.Contains(path, ".") {
				t.Errorf("%s imports %s: kg uses only the standard library", name, path)
			}
		}
	}
}
