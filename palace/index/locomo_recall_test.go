//go:build bench

package index_test

// Recall of the shipped index's graph over int8 codes (before the palace
// re-ranks from the store) against
// exact float32 search, on every LoCoMo turn embedded with the default
// embedder and every LoCoMo question as a query:
//
//	go test -tags bench -run '^$' -bench BenchmarkLoCoMoIndexRecall -benchtime 1x -v -timeout 30m ./palace/index/

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin"
	"github.com/loci-mem/loci/palace/index"
)

func figureLoCoMoIndexRecall(t testing.TB) {
	raw, err := os.ReadFile("../../../shared/data/locomo10.json")
	if err != nil {
		t.Skip("LoCoMo data not found at ../shared/data/locomo10.json")
	}
	var samples []struct {
		Conversation map[string]json.RawMessage  `json:"conversation"`
		QA           []struct{ Question string } `json:"qa"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		t.Fatal(err)
	}
	var turns, questions []string
	for _, s := range samples {
		for k, v := range s.Conversation {
			var ts []struct{ Speaker, Text string }
			if strings.HasPrefix(k, "session_") && json.Unmarshal(v, &ts) == nil {
				for _, x := range ts {
					turns = append(turns, x.Speaker+": "+x.Text)
				}
			}
		}
		for _, q := range s.QA {
			questions = append(questions, q.Question)
		}
	}
	emb := embed.Default()
	ctx := context.Background()
	start := time.Now()
	docs, err := emb.Embed(ctx, turns)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := emb.Embed(ctx, questions)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("embedded %d turns and %d questions with %s (%d-d) in %v", len(docs), len(qs), emb.ID(), emb.Dim(), time.Since(start))
	a := index.NewFlat(index.FlatConfig{Int8: true, Graph: index.GraphConfig{Min: 1}})
	for i, v := range docs {
		a.Add(uint64(i+1), v)
	}
	var hit, total int
	var lat []time.Duration
	for _, q := range qs {
		exact := make([]index.Result, len(docs))
		for i, v := range docs {
			exact[i] = index.Result{Key: uint64(i + 1), Score: embed.Dot(q, v)}
		}
		sort.Slice(exact, func(i, j int) bool { return exact[i].Score > exact[j].Score })
		want := map[uint64]bool{}
		for _, r := range exact[:10] {
			want[r.Key] = true
		}
		s := time.Now()
		got := a.Search(q, 10, nil)
		lat = append(lat, time.Since(s))
		for _, r := range got {
			if want[r.Key] {
				hit++
			}
		}
		total += 10
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("recall@10 vs exact float32: %.4f over %d queries; search p50 %v p99 %v",
		float64(hit)/float64(total), len(qs), lat[len(lat)/2], lat[len(lat)*99/100])
}

// BenchmarkLoCoMoIndexRecall runs figureLoCoMoIndexRecall once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkLoCoMoIndexRecall(b *testing.B) {
	for range b.N {
		figureLoCoMoIndexRecall(b)
	}
}
