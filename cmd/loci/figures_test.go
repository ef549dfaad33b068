//go:build stdiobench

package main

// Figures for the foundation issue, measured over real stdio against real
// palaces. Not part of `make test`. Run:
//
//	go test -tags stdiobench -run '^$' -bench BenchmarkStdioFigures -benchtime 1x -v -timeout 60m ./cmd/loci
//
// LOCI_BENCH_SIZES (default "10000,100000") chooses palace sizes.
// LOCI_BENCH_HOME keeps the seeded palaces in that directory and reuses
// them on the next run (seeding 100k drawers takes minutes); the palaces
// are named after the size and the embedder, so runs with different
// LOCI_EMBEDDER values never share one.
//
// figureRecallProfile runs the same remember/recall loop in process against
// a palace of LOCI_BENCH_HOME and writes a CPU profile
// (LOCI_BENCH_FILTER=room recalls within one room; LOCI_BENCH_REBUILD=1
// first times a rebuild of the vector index from SQLite):
//
//	LOCI_BENCH_HOME=/tmp/lb LOCI_BENCH_SIZES=100000 go test -tags stdiobench \
//	    -run '^$' -bench BenchmarkRecallProfile -benchtime 1x -v -timeout 60m ./cmd/loci

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/cmd/loci/locomo"
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
	samples, err := locomo.Load(locomo.DefaultDataPath())
	if err != nil {
		return c
	}
	for _, s := range samples {
		ds, err := locomo.Drawers(s.Conversation)
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

func seedPalace(t testing.TB, home, name string, n int, c corpus) {
	t.Helper()
	reg, err := openRegistry(homeFlags{dataDir: home}, newLogger(os.Stderr), nil)
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

// benchSizes returns the palace sizes of LOCI_BENCH_SIZES, or def.
func benchSizes(def []int) []int {
	v := os.Getenv("LOCI_BENCH_SIZES")
	if v == "" {
		return def
	}
	var sizes []int
	for _, s := range strings.Split(v, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			sizes = append(sizes, n)
		}
	}
	return sizes
}

// stdioBenchHome returns a data directory holding a palace of n seeded drawers
// and its name: a fresh temporary one, or a kept one under
// LOCI_BENCH_HOME, seeded on first use.
func stdioBenchHome(t testing.TB, n int, c corpus) (home, name string) {
	t.Helper()
	emb := os.Getenv("LOCI_EMBEDDER")
	if emb == "" {
		emb = "default"
	}
	name = fmt.Sprintf("bench%d-%s", n, emb)
	home = os.Getenv("LOCI_BENCH_HOME")
	if home == "" {
		home = t.TempDir()
	} else if _, err := os.Stat(home + "/" + name + ".seeded"); err == nil {
		t.Logf("reusing %s/%s", home, name)
		return home, name
	}
	if n > 0 {
		seedPalace(t, home, name, n, c)
	}
	if err := os.WriteFile(home+"/"+name+".seeded", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return home, name
}

// calibrateBenchPalace measures the vector index of a seeded palace whose
// graph was never calibrated, as the first process to serve it does: its
// maintenance calibrates within a minute of the 50th question, and the
// snapshot keeps the choice for every process after it. Here 100 of the
// corpus's questions are asked in process, then CalibrateIndex. Without it
// a palace past the graph's threshold (10⁸ rows × dimensions: at 100k
// drawers the default encoder's 996-d vectors of the drawers and their
// passages, about 230k rows) is measured scanning every row, the state of
// the first minute of the first process ever to serve it.
// LOCI_BENCH_UNCALIBRATED=1 measures that state instead.
func calibrateBenchPalace(t testing.TB, home, name string, c corpus) {
	t.Helper()
	if os.Getenv("LOCI_BENCH_UNCALIBRATED") == "1" {
		return
	}
	reg, err := openRegistry(homeFlags{dataDir: home}, newLogger(os.Stderr), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	p, err := reg.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WarmIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if in := p.IndexInfo(); in.GraphNodes == 0 || in.Calibrated {
		return
	}
	r := rand.New(rand.NewSource(7)) // other questions than the measured ones (seed 2)
	for range 100 {
		if _, err := p.Recall(ctx, palace.RecallRequest{Query: c.query(r), K: 10}); err != nil {
			t.Fatal(err)
		}
	}
	cal, err := p.CalibrateIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("calibrated %s on 100 questions: %+v", name, cal)
}

func figureStdioFigures(t testing.TB) {
	sizes := append([]int{0}, benchSizes([]int{10000, 100000})...)
	c := loadCorpus()
	t.Logf("GOMAXPROCS=%d; corpus: %d LoCoMo turns, %d questions (synthetic words when 0)", runtime.GOMAXPROCS(0), len(c.turns), len(c.questions))
	for _, n := range sizes {
		home, name := stdioBenchHome(t, n, c)
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
		t.Logf("n=%d cold start to initialize: p50 %v (min %v, max %v)", n, pct(cold, 0.5), pct(cold, 0), pct(cold, 1))
		if n == 0 {
			continue
		}
		calibrateBenchPalace(t, home, name, c)
		env := []string{"LOCI_LOG=warn"}
		start := time.Now()
		if prof := os.Getenv("LOCI_BENCH_PROFILE"); prof != "" { // profiles of the measured server
			env = append(env, "LOCI_PROFILE="+prof)
		}
		p := startLoci(t, home, env, "serve", "--palace", name)
		p.initialize()
		r := rand.New(rand.NewSource(2))
		p.tool("memory_recall", map[string]any{"query": c.query(r)}, nil)
		t.Logf("n=%d first recall (waits for the vector index): %v", n, time.Since(start))
		// The steady state starts once both indexes are warm (the keyword
		// index builds in the background; until then FTS5 ranks keywords).
		for {
			var info struct {
				Index   struct{ Loaded bool } `json:"index"`
				Keyword struct{ Loaded bool } `json:"keyword_index"`
			}
			p.tool("palace_info", map[string]any{}, &info)
			if info.Index.Loaded && info.Keyword.Loaded {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("n=%d both indexes warm %v after the server started", n, time.Since(start))
		var ping []time.Duration
		for i := 0; i < 300; i++ {
			s := time.Now()
			p.call("ping", nil)
			ping = append(ping, time.Since(s))
		}
		t.Logf("n=%d ping round trip over stdio (the protocol's floor): p50 %v p99 %v", n, pct(ping, 0.5), pct(ping, 0.99))
		var rem, rec []time.Duration
		for i := 0; i < 300; i++ {
			s := time.Now()
			p.tool("memory_remember", map[string]any{"text": c.doc(r)}, nil)
			rem = append(rem, time.Since(s))
			s = time.Now()
			p.tool("memory_recall", map[string]any{"query": c.query(r), "top_k": 10}, nil)
			rec = append(rec, time.Since(s))
		}
		var inRoom []time.Duration
		for i := 0; i < 200; i++ {
			s := time.Now()
			p.tool("memory_recall", map[string]any{"query": c.query(r), "top_k": 10, "room": palace.Rooms[i%len(palace.Rooms)]}, nil)
			inRoom = append(inRoom, time.Since(s))
		}
		rss, hwm := procRSS(p.cmd.Process.Pid)
		t.Logf("n=%d memory_remember over stdio: p50 %v p99 %v", n, pct(rem, 0.5), pct(rem, 0.99))
		t.Logf("n=%d memory_recall over stdio: p50 %v p99 %v", n, pct(rec, 0.5), pct(rec, 0.99))
		t.Logf("n=%d memory_recall within one room (a ninth of the drawers): p50 %v p99 %v", n, pct(inRoom, 0.5), pct(inRoom, 0.99))
		t.Logf("n=%d server RSS %d MB (peak %d MB)", n, rss/1024, hwm/1024)
		p.closeAndWait(10 * time.Second)
	}
}

// figureRecallProfile drives the stdio figures' remember/recall loop through
// the palace API in process (no JSON-RPC, no pipes) and writes a CPU
// profile of the recalls to $LOCI_BENCH_PROFILE (default loci-recall.cpu in
// the temporary directory).
func figureRecallProfile(t testing.TB) {
	c := loadCorpus()
	for _, n := range benchSizes([]int{100000}) {
		home, name := stdioBenchHome(t, n, c)
		calibrateBenchPalace(t, home, name, c)
		reg, err := openRegistry(homeFlags{dataDir: home}, newLogger(os.Stderr), nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		p, err := reg.Open(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(2))
		if os.Getenv("LOCI_BENCH_REBUILD") == "1" {
			start := time.Now()
			m, err := p.RebuildIndex(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("n=%d index rebuild from SQLite (and snapshot): %d vectors in %v", n, m, time.Since(start))
		}
		start := time.Now()
		if err := p.WarmIndex(ctx); err != nil { // as serve does for every palace
			t.Fatal(err)
		}
		t.Logf("n=%d WarmIndex (vector snapshot load, keyword index build): %v; index %+v", n, time.Since(start), p.IndexInfo())
		out := os.Getenv("LOCI_BENCH_PROFILE")
		if out == "" {
			out = filepath.Join(os.TempDir(), "loci-recall.cpu")
		}
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		var rec []time.Duration
		for i := 0; i < 600; i++ {
			if i == 100 {
				pprof.StartCPUProfile(f)
			}
			if err := p.Add(ctx, &palace.Drawer{Content: c.doc(r)}); err != nil {
				t.Fatal(err)
			}
			req := palace.RecallRequest{Query: c.query(r), K: 10}
			if os.Getenv("LOCI_BENCH_FILTER") == "room" { // seeded drawers are spread over the nine rooms
				req.Filter.Room = palace.Rooms[i%len(palace.Rooms)]
			}
			s := time.Now()
			if _, err := p.Recall(ctx, req); err != nil {
				t.Fatal(err)
			}
			if i >= 100 {
				rec = append(rec, time.Since(s))
			}
		}
		pprof.StopCPUProfile()
		f.Close()
		t.Logf("n=%d palace Recall in process: p50 %v p90 %v p99 %v max %v (CPU profile: %s)", n,
			pct(rec, 0.5), pct(rec, 0.9), pct(rec, 0.99), pct(rec, 1), out)
		reg.Close()
	}
}

// BenchmarkStdioFigures runs figureStdioFigures once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkStdioFigures(b *testing.B) {
	for range b.N {
		figureStdioFigures(b)
	}
}

// BenchmarkRecallProfile runs figureRecallProfile once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkRecallProfile(b *testing.B) {
	for range b.N {
		figureRecallProfile(b)
	}
}
