package palace_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// recallFiles are the files whose constants shape what recall returns;
// each of their numeric constants, and each variable named in
// recallVars, has a row in RECALL.md's "Every parameter, and how it was
// set" with the value the code has.
var recallFiles = []string{
	"answertype.go", "feedback.go", "restated.go", "turn_context.go", "search.go",
	"timeq.go", "typos.go", "closet.go", "passages.go", "address.go",
	"query.go", "request.go", "keyword.go", "vecindex.go", "legible.go", "compounds.go",
	"bm25/index.go", "embed/glove/glove.go", "embed/builtin/builtin.go",
	"facts/recall.go", "scale.go",
	// The scales the cosine floors are stated on and carried to.
	"embed/scale.go:HashScale,GloVeScale,USELiteScale,HybridScale",
	// How sure the approximate vector index must be of its recall.
	"index/calibrate.go:CalibrationTarget,calibrationZ",
	// The faces that choose among the palace's results: only the names
	// given after the colon (their files hold other settings too).
	"../cmd/loci/claudecode/recall.go",
	"../cmd/loci/claudecode/runner.go:DefaultMinRelevance,DefaultMaxRecall,MinPromptWords",
	"../server/markdown.go:memMinCosine",
}

// recallVars are parameters kept in variables: BM25's (so they round at
// run time as FTS5's do), the keyword fields' weights, the fusion default,
// the encoder's mix and the built-in encoders' cosine scales.
var recallVars = map[string]bool{"k1": true, "b": true, "ftsWeights": true, "DefaultFusion": true, "HybridWeights": true,
	"HashScale": true, "GloVeScale": true, "USELiteScale": true, "HybridScale": true}

func TestEveryRecallParameterIsAccounted(t *testing.T) {
	code := map[string]string{} // name -> value as written
	for _, f := range recallFiles {
		f, only, _ := strings.Cut(f, ":")
		want := map[string]bool{}
		for _, n := range strings.Split(only, ",") {
			want[n] = n != ""
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%v: a file of recall's parameters moved? Name where they are now", err)
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) || (g.Tok == token.VAR && !recallVars[n.Name]) {
						continue // an enumeration's next name, a zero value
					}
					if only != "" && !want[n.Name] {
						continue
					}
					delete(want, n.Name)
					v := vs.Values[i]
					text := string(src[fset.Position(v.Pos()).Offset:fset.Position(v.End()).Offset])
					if lit, ok := v.(*ast.BasicLit); (ok && lit.Kind == token.STRING) || strings.Contains(text, "iota") {
						continue // a mark or a name, or an enumeration
					}
					code[n.Name] = text
				}
			}
		}
		for name, missing := range want {
			if missing {
				t.Errorf("%s declares no %s: name where it is now", f, name)
			}
		}
	}
	for name := range recallVars {
		if code[name] == "" {
			t.Errorf("the variable %s is not in the files named", name)
		}
	}

	doc, err := os.ReadFile("RECALL.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Every parameter, and how it was set\n")
	if !ok {
		t.Fatal(`RECALL.md has no section "Every parameter, and how it was set"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z0-9_]+)` \\| ([^|]+) \\|")
	ledger := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		ledger[m[1]] = strings.TrimSpace(m[2])
	}
	if len(ledger) == 0 {
		t.Fatal("the section has no rows")
	}
	for name, v := range code {
		l, ok := ledger[name]
		if !ok {
			t.Errorf("%s = %s has no row in RECALL.md's parameters: say how it was set", name, v)
			continue
		}
		if !sameValue(v, l) {
			t.Errorf("%s is %s in the code and %q in RECALL.md", name, v, l)
		}
	}
	for name := range ledger {
		if _, ok := code[name]; !ok {
			t.Errorf("RECALL.md names %s, which the files named do not declare", name)
		}
	}
}

var number = regexp.MustCompile(`\d+(?:\.\d+)?(?:e-?\d+)?`)

// sameValue compares a value as the code writes it with the ledger's: the
// same expression (spaces aside), or, for a composite value (the fusion,
// the encoder's mix), the same numbers in the same order.
func sameValue(code, ledger string) bool {
	squeeze := func(s string) string { return strings.ReplaceAll(s, " ", "") }
	if squeeze(code) == squeeze(ledger) {
		return true
	}
	if !strings.Contains(code, "{") {
		return false
	}
	_, elems, _ := strings.Cut(code, "{")
	a, b := number.FindAllString(elems, -1), number.FindAllString(ledger, -1)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, err1 := strconv.ParseFloat(a[i], 64)
		y, err2 := strconv.ParseFloat(b[i], 64)
		if err1 != nil || err2 != nil || x != y {
			return false
		}
	}
	return true
}
