package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"testing"
	"time"
)

// TestIntegrationToolsList keeps the tools/list block of INTEGRATION.md equal
// to what `loci serve` (without --palace) answers. Run with -update to
// rewrite the block after an intended change.
func TestIntegrationToolsList(t *testing.T) {
	t.Parallel()
	p := startLoci(t, t.TempDir(), nil, "serve")
	p.initialize()
	raw := p.call("tools/list", map[string]any{})
	p.closeAndWait(3 * time.Second)

	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	const file = "../../INTEGRATION.md"
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- tools/list:begin -->\n(.*?)<!-- tools/list:end -->")
	loc := re.FindSubmatchIndex(doc)
	if loc == nil {
		t.Fatal("INTEGRATION.md has no tools/list markers")
	}
	m := [][]byte{nil, nil, doc[loc[2]:loc[3]]}
	block := "```json\n" + pretty.String() + "\n```\n"
	if *update {
		var out []byte
		out = append(out, doc[:loc[2]]...)
		out = append(out, block...)
		out = append(out, doc[loc[3]:]...)
		if err := os.WriteFile(file, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	inner := bytes.TrimSuffix(bytes.TrimPrefix(m[2], []byte("```json\n")), []byte("\n```\n"))
	if !jsonEqual(inner, pretty.Bytes()) {
		t.Fatalf("INTEGRATION.md's tools/list is out of date; run: go test ./cmd/loci -run IntegrationToolsList -update")
	}
}
