package kg_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports enforces the package doc: kg imports nothing of loci.
func TestImports(t *testing.T) {
	t.Parallel()
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
