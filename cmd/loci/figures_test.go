//go:build stdiobench

package main

// Figures for the foundation issue, measured over real stdio against real
// palaces. Not part of `make test`. Run:
//
//	go test -tags 'sqlite_fts5 stdiobench' -run TestStdioFigures -v -timeout 60m ./cmd/loci
//
// LOCI_BENCH_SIZES (default "10000,100000") chooses palace sizes.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

var benchWords = strings.Fields(`deploy gateway token cluster billing invoice refund retry budget
latency cache redis postgres kafka schema migration rollback release train tuesday sprint
frontend react vite test flaky ci pipeline docker image registry secret rotation vault
oncall pager incident postmortem dashboard metric alert threshold quota tenant region
backup restore snapshot index shard replica leader election timeout circuit breaker
feature flag experiment cohort churn onboarding email template locale timezone calendar
meeting agenda decision owner deadline roadmap design review api version deprecation`)

// corpus supplies realistic drawer texts and queries: pairs of LoCoMo
// turns and LoCoMo questions when the data is present, else sentences of
// a small synthetic vocabulary (a harsh case for BM25: every word is
// common).
type corpus struct {
	turns, questions []string
}

func loadCorpus() corpus {
	var c corpus
	raw, err := os.ReadFile(defaultLocomoPath())
	if err != nil {
		return c
	}
	var samples []locomoSample
	if json.Unmarshal(raw, &samples) != nil {
		return c
	}
	for _, s := range samples {
		ds, err := locomoDrawers(s.Conversation)
		if err != nil {
			continue
		}
		for _, d := range ds {
			c.turns = append(c.turns, d.Content)
		}
		for _, qa := range s.QA {
			c.questions = append(c.questions, qa.Question)
		}
	}
	return c
}

func (c corpus) doc(r *rand.Rand) string {
	if len(c.turns) == 0 {
		return sentence(r, 8+r.Intn(16))
	}
	return c.turns[r.Intn(len(c.turns))] + " " + c.turns[r.Intn(len(c.turns))]
}

func (c corpus) query(r *rand.Rand) string {
	if len(c.questions) == 0 {
		return sentence(r, 5)
	}
	return c.questions[r.Intn(len(c.questions))]
}

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchWords[r.Intn(len(benchWords))]
	}
	return strings.Join(w, " ")
}

func seedPalace(t *testing.T, home, name string, n int, c corpus) {
	t.Helper()
	reg, err := openRegistry(home, newLogger(os.Stderr), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	p, err := reg.OpenOrCreate(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	start := time.Now()
	for done := 0; done < n; {
		batch := make([]*palace.Drawer, 0, 1000)
		for i := 0; i < 1000 && done < n; i++ {
			batch = append(batch, &palace.Drawer{Content: fmt.Sprintf("note %d: %s", done, c.doc(r)),
				Room: palace.Rooms[r.Intn(len(palace.Rooms))], Importance: 0.1 + 0.8*r.Float64()})
			done++
		}
		if err := p.AddMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seeded %d drawers in %v", n, time.Since(start))
	start = time.Now()
	m, err := p.RebuildIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("index rebuild from SQLite: %d vectors in %v", m, time.Since(start))
}

func percentile(ds []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1))]
}

func rssKB(pid int) (hwm, rss int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "VmHWM:" {
			hwm, _ = strconv.Atoi(f[1])
		}
		if len(f) >= 2 && f[0] == "VmRSS:" {
			rss, _ = strconv.Atoi(f[1])
		}
	}
	return
}

func TestStdioFigures(t *testing.T) {
	sizes := []int{0, 10000, 100000}
	if v := os.Getenv("LOCI_BENCH_SIZES"); v != "" {
		sizes = []int{0}
		for _, s := range strings.Split(v, ",") {
			n, _ := strconv.Atoi(s)
			sizes = append(sizes, n)
		}
	}
	c := loadCorpus()
	t.Logf("GOMAXPROCS=%d; corpus: %d LoCoMo turns, %d questions (synthetic words when 0)", runtime.GOMAXPROCS(0), len(c.turns), len(c.questions))
	for _, n := range sizes {
		home := t.TempDir()
		name := fmt.Sprintf("bench%d", n)
		if n > 0 {
			seedPalace(t, home, name, n, c)
		}
		// Cold start: process start to the initialize response, 11 runs.
		var cold []time.Duration
		for i := 0; i < 11; i++ {
			start := time.Now()
			p := startLoci(t, home, []string{"LOCI_LOG=warn"}, "serve", "--palace", name)
			p.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "bench", "version": "1"}})
			cold = append(cold, time.Since(start))
			p.closeAndWait(10 * time.Second)
		}
		t.Logf("n=%d cold start to initialize: p50 %v (min %v, max %v)", n, percentile(cold, 0.5), percentile(cold, 0), percentile(cold, 1))
		if n == 0 {
			continue
		}
		p := startLoci(t, home, []string{"LOCI_LOG=warn"}, "serve", "--palace", name)
		p.initialize()
		r := rand.New(rand.NewSource(2))
		start := time.Now()
		p.tool("memory_recall", map[string]any{"query": c.query(r)}, nil)
		t.Logf("n=%d first recall (loads the index): %v", n, time.Since(start))
		var rem, rec []time.Duration
		for i := 0; i < 300; i++ {
			s := time.Now()
			p.tool("memory_remember", map[string]any{"text": c.doc(r)}, nil)
			rem = append(rem, time.Since(s))
			s = time.Now()
			p.tool("memory_recall", map[string]any{"query": c.query(r), "top_k": 10}, nil)
			rec = append(rec, time.Since(s))
		}
		hwm, rss := rssKB(p.cmd.Process.Pid)
		t.Logf("n=%d memory_remember over stdio: p50 %v p99 %v", n, percentile(rem, 0.5), percentile(rem, 0.99))
		t.Logf("n=%d memory_recall over stdio: p50 %v p99 %v", n, percentile(rec, 0.5), percentile(rec, 0.99))
		t.Logf("n=%d server RSS %d MB (peak %d MB)", n, rss/1024, hwm/1024)
		p.closeAndWait(10 * time.Second)
	}
}
