package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

// FuzzFilter feeds arbitrary JSON to the filter DSL and runs whatever
// compiles against a real palace: the compiler never panics, and a
// predicate it accepts never makes the store fail — bad input is a
// filterError or a palace CodeInvalid, never an internal error.
// Seed corpus: testdata/fuzz/FuzzFilter; longer runs: make fuzz.
func FuzzFilter(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s1"}`,
		`{"AND":[{"timestamp":{"gte":1779968400000}},{"OR":[{"user_id":"bob"},{"user_id":{"in":["a","b"]}}]}]}`,
		`{"type":{"ne":"Conversation"},"parent_type":"memcell"}`,
		`{"timestamp":{"lt":"2026-05-28T11:30:00"}}`,
		`{"AND":[]}`, `{"x":{"eq":[1,2]}}`, `{"session_id":{"contains":"%"}}`,
	} {
		f.Add([]byte(s))
	}
	reg, err := palace.OpenRegistry(palace.Config{DataDir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	p, err := reg.Create(ctx, "fuzz", "")
	if err != nil {
		f.Fatal(err)
	}
	if err := p.Add(ctx, &palace.Drawer{Kind: palace.KindEpisode, Content: "an episode", SessionID: "s1", UserID: "bob",
		Meta: map[string]any{"type": "Conversation", "parent_type": "memcell"}}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var node map[string]any
		if json.Unmarshal(raw, &node) != nil {
			return
		}
		pred, err := compileFilter(node, time.UTC)
		if err != nil {
			var fe *filterError
			if !errors.As(err, &fe) {
				t.Fatalf("compile %s: %T %v, want a filterError", raw, err, err)
			}
			return
		}
		_, _, err = p.List(ctx, palace.ListOptions{Filter: palace.Filter{Statuses: palace.AnyStatus, Where: pred}})
		if err != nil && palace.ErrorCode(err) != palace.CodeInvalid {
			t.Fatalf("filter %s compiled to %+v, which the store failed on: %v", raw, pred, err)
		}
	})
}
