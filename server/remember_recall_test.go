package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Texts remembered one after another through one stdio connection are
// neighbours (the second borrows the first as context); a long text is
// recalled with the passage that matched, and the markdown faces show
// that passage instead of the whole text.
func TestRememberNeighboursAndPassages(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	reg := ps.reg

	var q, a struct {
		DrawerID string `json:"drawer_id"`
	}
	ps.callTool(t, 1, "memory_remember", map[string]any{"text": "Melanie: Do you still go rock climbing on weekends?"}, &q)
	ps.callTool(t, 2, "memory_remember", map[string]any{"text": "Caroline: Yes, every spring in Yosemite."}, &a)
	p, err := reg.Open(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Get(context.Background(), a.DrawerID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Keywords, "rock climbing") || len(d.SenderIDs) != 1 || d.SenderIDs[0] != "Caroline" {
		t.Errorf("the second text of the connection: keywords %q senders %v; want the first text and [Caroline]", d.Keywords, d.SenderIDs)
	}

	var words []string
	for i := range 2000 {
		words = append(words, fmt.Sprintf("filler%d", i%97))
	}
	words[1200] = "the zeppelin rudder hinge cracked during inspection"
	ps.callTool(t, 3, "memory_remember", map[string]any{"text": strings.Join(words, " ")}, &q)
	var rec struct {
		Results []struct {
			DrawerID string `json:"drawer_id"`
			Passage  *struct {
				Start, End int
			} `json:"passage"`
			Excerpt string `json:"excerpt"`
		} `json:"results"`
	}
	ps.callTool(t, 4, "memory_recall", map[string]any{"query": "zeppelin rudder hinge", "top_k": 3}, &rec)
	if len(rec.Results) == 0 || rec.Results[0].DrawerID != q.DrawerID {
		t.Fatalf("the long text is not the first result: %+v", rec.Results)
	}
	top := rec.Results[0]
	if top.Passage == nil || !strings.Contains(top.Excerpt, "zeppelin rudder hinge") || top.Passage.End-top.Passage.Start != len(top.Excerpt) {
		t.Errorf("passage %+v excerpt %q; want the passage holding the matched words", top.Passage, top.Excerpt)
	}
	for _, r := range rec.Results[1:] {
		if r.Passage != nil {
			t.Errorf("short drawer %s has a passage %+v", r.DrawerID, r.Passage)
		}
	}

	long := strings.Join(words, " ")
	for i, tool := range []string{"mem_search", "mem_context"} {
		md, failed := ps.rpc(t, 5+i, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"query": "zeppelin rudder hinge"}})
		if failed {
			t.Fatalf("%s: %s", tool, md)
		}
		item := md[strings.Index(md, "1. "):]
		if !strings.HasPrefix(item, "1. filler0 filler1") || !strings.Contains(item, "zeppelin rudder hinge") ||
			!strings.Contains(item, fmt.Sprintf("part of %d characters", len(long))) {
			t.Errorf("%s: the long text's item does not show its opening, the matched passage and its length:\n%.600s", tool, item)
		}
		if len(md) > 4000 {
			t.Errorf("%s: %d bytes of markdown for a %d-byte text; want the passage, not the whole text", tool, len(md), len(long))
		}
	}
}
