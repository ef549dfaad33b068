package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/cmd/loci/locomo"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
)

// The agent path's figures are what an agent gets through the MCP face:
// LoCoMo's first conversation written turn by turn with memory_remember,
// each of its sessions by a `loci serve` process of its own (an agent's
// session), then every question asked with memory_recall, gives the ten
// drawers `loci eval locomo --path agent` ranks, in its order. Questions
// that name a time are left out: the evaluation asks as of the
// conversation's last day, the server as of today. The servers run the
// default encoder (the suite's hash embedder is for golden files) and no
// dreamer, which could consolidate the palace between the two.
func TestAgentFaceRecallsAsTheAgentPath(t *testing.T) {
	t.Parallel()
	data := locomoData(t)
	samples, err := locomo.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	turns, err := locomo.AgentTurns(samples[0].Conversation)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, _, err := locomo.Run(context.Background(), locomo.Options{Data: []string{data}, Path: locomo.PathAgent,
		Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: []int{10}, Samples: []int{1}})
	if err != nil {
		t.Fatal(err)
	}

	home := t.TempDir()
	dia := map[string]string{} // drawer_id -> dia_id
	var last time.Time
	for start := 0; start < len(turns); {
		end := start
		for end < len(turns) && turns[end].Session == turns[start].Session {
			end++
		}
		p := startLoci(t, home, []string{"LOCI_EMBEDDER=", "LOCI_DREAM=off"}, "serve", "--palace", "conv1")
		p.initialize()
		for _, tu := range turns[start:end] {
			var r struct {
				DrawerID  string    `json:"drawer_id"`
				Timestamp time.Time `json:"timestamp"`
			}
			p.tool("memory_remember", map[string]any{"text": tu.Text}, &r)
			dia[r.DrawerID] = tu.DiaID
			if r.Timestamp.After(last) {
				last = r.Timestamp
			}
		}
		if code := p.closeAndWait(30 * time.Second); code != 0 {
			t.Fatalf("serve exited %d after session %s", code, turns[start].Session)
		}
		start = end
	}

	p := startLoci(t, home, []string{"LOCI_EMBEDDER=", "LOCI_DREAM=off"}, "serve", "--palace", "conv1")
	p.initialize()
	asked, differ := 0, 0
	for _, row := range rows {
		if _, timed := palace.ParseTimeRange(row.Question, last); timed {
			continue
		}
		if _, timed := palace.ParseTimeRange(row.Question, time.Now()); timed {
			continue
		}
		var rec struct {
			Results []struct {
				DrawerID string `json:"drawer_id"`
			} `json:"results"`
		}
		p.tool("memory_recall", map[string]any{"query": row.Question, "top_k": 10}, &rec)
		var top []string
		for _, r := range rec.Results {
			top = append(top, dia[r.DrawerID])
		}
		asked++
		if !slices.Equal(top, row.Top) {
			if differ++; differ <= 3 {
				t.Errorf("%q\n memory_recall %v\n agent path    %v", row.Question, top, row.Top)
			}
		}
	}
	t.Logf("%d questions asked through memory_recall (%d name a time), %d lists differ", asked, len(rows)-asked, differ)
	if asked < len(rows)/2 || differ > 0 {
		t.Fatalf("%d of %d questions asked give other drawers through memory_recall than the agent path", differ, asked)
	}
}
