package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestToolSchemaSnapshots compares each tool's tools/list entry, with and
// without --palace, to testdata/toolsnaps/<mode>/<tool>.json. Rewrite them
// with -update after an intended schema change (and say so in
// INTEGRATION.md).
func TestToolSchemaSnapshots(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		dir  string
		args []string
	}{
		{"no-default", []string{"serve"}},
		{"default-palace", []string{"serve", "--palace", "snap"}},
	} {
		t.Run(mode.dir, func(t *testing.T) {
			p := startLoci(t, t.TempDir(), nil, mode.args...)
			p.initialize()
			var list struct {
				Tools []json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(p.call("tools/list", map[string]any{}), &list); err != nil {
				t.Fatal(err)
			}
			p.closeAndWait(3 * time.Second)
			dir := filepath.Join("..", "..", "testdata", "toolsnaps", mode.dir)
			seen := map[string]bool{}
			for _, raw := range list.Tools {
				var tl struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				}
				json.Unmarshal(raw, &tl)
				seen[tl.Name+".json"] = true
				var pretty bytes.Buffer
				json.Indent(&pretty, raw, "", "  ")
				pretty.WriteByte('\n')
				file := filepath.Join(dir, tl.Name+".json")
				if *update {
					os.MkdirAll(dir, 0o755)
					os.WriteFile(file, pretty.Bytes(), 0o644)
					continue
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Errorf("no snapshot for tool %s (run with -update): %v", tl.Name, err)
					continue
				}
				if !jsonEqual(want, pretty.Bytes()) {
					t.Errorf("tool %s schema changed:\n got %s\nwant %s", tl.Name, pretty.Bytes(), want)
				}
				var schema struct {
					Required []string `json:"required"`
				}
				json.Unmarshal(tl.InputSchema, &schema)
				for _, r := range schema.Required {
					if r == "palace" && mode.dir == "default-palace" {
						t.Errorf("%s still requires palace with --palace", tl.Name)
					}
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if !seen[e.Name()] && !*update {
					t.Errorf("snapshot %s has no tool (removed or renamed?)", e.Name())
				}
			}
		})
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
