//go:build dreambench

package dreamer

// The dreamer's figure runs (README.md, "Figures"):
//
//	go test -tags "sqlite_fts5 dreambench" -run XXX -bench DreamBenchLoCoMo -benchtime 1x -v -timeout 60m ./dreamer/
//	go test -tags "sqlite_fts5 dreambench" -run XXX -bench DreamBench100k -benchtime 1x -v -timeout 60m ./dreamer/
//
// LOCI_BENCH_EMBEDDERS picks the embedders of the LoCoMo run (default
// "hash"; "hybrid" is the built-in default but embeds about 40 texts a
// second on two cores). LOCI_BENCH_N sets the size of the synthetic
// palace (default 100000).

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin"
	"github.com/loci-mem/loci/palace/facts"
)

func benchPalace(tb testing.TB, emb embed.Embedder) *palace.Palace {
	reg, err := palace.OpenRegistry(palace.Config{DataDir: tb.TempDir(), Embedder: emb})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { reg.Close() })
	p, err := reg.Create(context.Background(), "bench", "")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func figureDreamBenchLoCoMo(t testing.TB) {
	turns := loadLoCoMo(t)
	names := "hash"
	if v := os.Getenv("LOCI_BENCH_EMBEDDERS"); v != "" {
		names = v
	}
	for _, name := range strings.Split(names, ",") {
		emb, err := embed.Lookup(name)
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		t.Logf("== %s", name)
		locomoDedup(t, turns, emb)
	}
}

func locomoDedup(t testing.TB, turns []lturn, emb embed.Embedder) {
	ctx := context.Background()
	p := benchPalace(t, emb)
	r := rand.New(rand.NewSource(1))
	turnOf := map[string]int{}
	var origIDs, paraIDs []string
	start := time.Now()
	for lo := 0; lo < len(turns); lo += 500 {
		var batch []*palace.Drawer
		for i := lo; i < min(lo+500, len(turns)); i++ {
			tu := turns[i]
			for k, text := range []string{tu.doc(), tu.speaker + ": " + paraphrase(tu.text, r)} {
				batch = append(batch, &palace.Drawer{Kind: palace.KindTurn, Content: text, SessionID: tu.session,
					UserID: tu.conv, Timestamp: tu.ts.Add(time.Duration(k) * time.Millisecond)})
			}
		}
		if err := p.AddMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
		for k, d := range batch {
			i := lo + k/2
			turnOf[d.ID] = i
			if k%2 == 0 {
				origIDs = append(origIDs, d.ID)
			} else {
				paraIDs = append(paraIDs, d.ID)
			}
		}
	}
	t.Logf("%s: ingested %d turns twice in %v", emb.ID(), len(turns), time.Since(start).Round(time.Millisecond))

	rep, err := Run(ctx, p, RunOptions{Passes: []string{"dedup"}, Trigger: "bench", Settings: Settings{Budget: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	pr := rep.Passes[0]
	if pr.Status != PassOK {
		t.Fatalf("dedup pass %s: %s", pr.Status, pr.Note)
	}
	changes, err := dreamlog.Of(p).Changes(ctx, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	norm := func(i int) uint64 { return newVocab().encode(turns[i].doc(), false).norm }
	merges, strict, lenient := 0, 0, 0
	var wrong []string
	for _, c := range changes {
		if c.Op != dreamlog.OpSupersede {
			continue
		}
		merges++
		by, _ := c.After["superseded_by"].(string)
		a, b := turnOf[c.DrawerID], turnOf[by]
		switch {
		case a == b:
			strict++
			lenient++
		case norm(a) == norm(b):
			lenient++ // the conversation itself repeats this turn verbatim
		default:
			if len(wrong) < 10 {
				wrong = append(wrong, fmt.Sprintf("%q -> %q", turns[a].doc(), turns[b].doc()))
			}
		}
	}
	recalled := 0
	for i := range origIDs {
		ra, err1 := p.Resolve(ctx, origIDs[i])
		rb, err2 := p.Resolve(ctx, paraIDs[i])
		if err1 == nil && err2 == nil && ra.ID == rb.ID {
			recalled++
		}
	}
	prec := func(n int) float64 {
		if merges == 0 {
			return 1
		}
		return float64(n) / float64(merges)
	}
	th, _ := DefaultSettings().dedupThreshold(emb.ID())
	t.Logf("%s (threshold %.2f, text overlap %.1f): dedup pass %v on %d drawers; %d merges; precision %.4f (same turn) / %.4f (same text); recall %.4f (%d of %d pairs)",
		emb.ID(), th, DefaultSettings().TextOverlap, time.Duration(pr.TookMS)*time.Millisecond, pr.Examined, merges,
		prec(strict), prec(lenient), float64(recalled)/float64(len(turns)), recalled, len(turns))
	for _, w := range wrong {
		t.Logf("  wrong merge: %s", w)
	}
}

// Synthetic palace for the 100k figures: sentences over a Zipf vocabulary,
// 5% near-duplicates of earlier drawers, 10% facts, 2% agent cases.
func synthWords(r *rand.Rand, z *rand.Zipf, vocab []string, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = vocab[z.Uint64()]
	}
	return strings.Join(ws, " ")
}

func figureDreamBench100k(t testing.TB) {
	ctx := context.Background()
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("LOCI_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	p := benchPalace(t, embed.NewHash(embed.HashDim))
	r := rand.New(rand.NewSource(7))
	vocab := make([]string, 20000)
	for i := range vocab {
		var b strings.Builder
		for k := 0; k < 4+r.Intn(6); k++ {
			b.WriteByte(byte('a' + r.Intn(26)))
		}
		vocab[i] = b.String()
	}
	z := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	rooms := []string{"General", "Backend", "Frontend", "Testing", "Planning", "Research", "Meetings", "Documentation"}
	var texts []string
	start := time.Now()
	now := time.Now()
	for lo := 0; lo < n; lo += 1000 {
		var batch []*palace.Drawer
		for i := lo; i < min(lo+1000, n); i++ {
			d := &palace.Drawer{Room: rooms[r.Intn(len(rooms))], Importance: 0.2 + 0.6*r.Float64()}
			switch {
			case len(texts) > 0 && r.Intn(20) == 0:
				d.Content = texts[r.Intn(len(texts))] + "!"
			default:
				d.Content = synthWords(r, z, vocab, 10+r.Intn(15))
			}
			switch k := r.Intn(50); {
			case k < 5:
				d.Kind = palace.KindFact
				d.Meta = map[string]any{facts.MetaFactKind: "project",
					facts.MetaConfirmedAt: now.Add(-time.Duration(r.Intn(400)) * 24 * time.Hour).UTC().Format(time.RFC3339)}
			case k == 5:
				d.Kind, d.AgentID = palace.KindAgentCase, fmt.Sprintf("agent%d", r.Intn(5))
				d.Meta = map[string]any{"task_intent": d.Content, "approach": synthWords(r, z, vocab, 8), "quality_score": r.Float64()}
			}
			texts = append(texts, d.Content)
			batch = append(batch, d)
		}
		if err := p.AddMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("built a %d-drawer palace in %v", n, time.Since(start).Round(time.Millisecond))
	clock := func() time.Time { return now.Add(30 * 24 * time.Hour) }

	// A low GC target keeps the peak heap close to the live heap, so
	// "peak heap" below approximates the memory a pass needs.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	var lines []string
	for _, name := range PassNames() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		var peak atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var m runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
					runtime.ReadMemStats(&m)
					if m.HeapAlloc > peak.Load() {
						peak.Store(m.HeapAlloc)
					}
				}
			}
		}()
		t0, c0 := time.Now(), cpuTime()
		rep, err := Run(ctx, p, RunOptions{Passes: []string{name}, Trigger: "bench", Now: clock,
			Settings: Settings{Budget: time.Hour}})
		took, cpu := time.Since(t0), cpuTime()-c0
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		pr := rep.Passes[0]
		extra := float64(int64(peak.Load())-int64(before.HeapAlloc)) / (1 << 20)
		lines = append(lines, fmt.Sprintf("  %-8s %-8s wall %9v  cpu %9v  examined %6d  changed %6d  peak heap +%6.1f MiB  allocated %7.1f MiB",
			name, pr.Status, took.Round(time.Millisecond), cpu.Round(time.Millisecond), pr.Examined, pr.Changed,
			max(extra, 0), float64(after.TotalAlloc-before.TotalAlloc)/(1<<20)))
	}
	t.Logf("each pass alone on %d drawers (hash-v1 vectors, %d cores):\n%s", n, runtime.GOMAXPROCS(0), strings.Join(lines, "\n"))
}

// cpuTime is the process's user and system CPU time so far: on a shared
// machine it is steadier than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDreamBenchLoCoMo runs figureDreamBenchLoCoMo once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkDreamBenchLoCoMo(b *testing.B) {
	for range b.N {
		figureDreamBenchLoCoMo(b)
	}
}

// BenchmarkDreamBench100k runs figureDreamBench100k once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkDreamBench100k(b *testing.B) {
	for range b.N {
		figureDreamBench100k(b)
	}
}
