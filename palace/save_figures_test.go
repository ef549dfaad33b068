//go:build stdiobench

package palace

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
)

// BenchmarkSearchDuringSave times hybrid searches while the vector
// snapshot of the stdio figures' 100k palace is written and a writer adds
// a drawer every 50 ms, so that most searches have a write to catch up.
// It works on a copy of the palace that `BenchmarkStdioFigures` seeds in
// LOCI_BENCH_HOME, and reports, for each of three saves, how long the save
// took and the searches that ran during it (how many, p50 and the slowest)
// against those outside it, then how long the keyword snapshot takes to
// write:
//
//	LOCI_BENCH_HOME=/tmp/benchhome go test -tags 'stdiobench sqlite_fts5' \
//	    -run '^$' -bench BenchmarkSearchDuringSave -benchtime 1x -v ./palace
func BenchmarkSearchDuringSave(b *testing.B) {
	home := benchHome(b)
	ctx := context.Background()
	p, _, closeAll := openBenchCopy(b, home)
	defer closeAll()
	questions := benchQuestions
	for range b.N {
		for round := range 3 {
			var (
				mu         sync.Mutex
				during     []time.Duration
				outside    []time.Duration
				saving     bool
				stop       = make(chan struct{})
				wg         sync.WaitGroup
				writes     int
				writeFails error
			)
			wg.Add(2)
			go func() { // the writer
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					if err := p.Add(ctx, &Drawer{Content: fmt.Sprintf("round %d note %d: the lighthouse keeper painted the harbour wall", round, i)}); err != nil {
						writeFails = err
						return
					}
					writes++
				}
			}()
			go func() { // the searcher
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					mu.Lock()
					wasSaving := saving
					mu.Unlock()
					start := time.Now()
					if _, err := p.Search(ctx, SearchRequest{Query: questions[i%len(questions)], K: 10}); err != nil {
						b.Error(err)
						return
					}
					took := time.Since(start)
					mu.Lock()
					if wasSaving || saving {
						during = append(during, took)
					} else {
						outside = append(outside, took)
					}
					mu.Unlock()
				}
			}()
			time.Sleep(time.Second)
			p.vec.mu.Lock()
			p.vec.mustSave()
			p.vec.mu.Unlock()
			mu.Lock()
			saving = true
			mu.Unlock()
			start := time.Now()
			if err := p.saveVectors(); err != nil {
				b.Fatal(err)
			}
			took := time.Since(start)
			mu.Lock()
			saving = false
			mu.Unlock()
			time.Sleep(time.Second)
			close(stop)
			wg.Wait()
			if writeFails != nil {
				b.Fatal(writeFails)
			}
			if len(during) == 0 {
				b.Fatalf("round %d: no search ran during the %v save", round, took)
			}
			b.Logf("round %d: save %v, %d writes; %d searches during it p50 %v slowest %v; %d outside p50 %v slowest %v",
				round, took.Round(time.Millisecond), writes, len(during), quantile(during, .5).Round(time.Millisecond), quantile(during, 1).Round(time.Millisecond),
				len(outside), quantile(outside, .5).Round(time.Millisecond), quantile(outside, 1).Round(time.Millisecond))
		}
		for range 3 {
			p.kw.mu.Lock()
			p.kw.mustSave()
			p.kw.mu.Unlock()
			start := time.Now()
			if err := p.kw.save(false); err != nil {
				b.Fatal(err)
			}
			b.Logf("keyword snapshot written in %v", time.Since(start).Round(time.Millisecond))
		}
	}
}

// benchPalace is the palace BenchmarkStdioFigures seeds.
const benchPalace = "bench100000-default"

// copyBenchPalace copies the 100k palace in home to a new data directory,
// removed when the benchmark ends, and returns the directory.
func copyBenchPalace(b *testing.B, home string) string {
	copyHome := b.TempDir()
	if err := os.MkdirAll(filepath.Join(copyHome, "palaces"), 0o700); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(home, "palaces", benchPalace), filepath.Join(copyHome, "palaces", benchPalace)).CombinedOutput(); err != nil {
		b.Fatalf("copy the palace: %v: %s", err, out)
	}
	return copyHome
}

// openBenchCopy opens a copy of the 100k palace in home, its vector index
// loaded, and returns it with the copy's data directory and a function
// that closes it.
func openBenchCopy(b *testing.B, home string) (*Palace, string, func()) {
	copyHome := copyBenchPalace(b, home)
	ctx := context.Background()
	reg, err := OpenRegistry(Config{DataDir: copyHome, Embedder: embed.Default()})
	if err != nil {
		b.Fatal(err)
	}
	p, err := reg.Open(ctx, benchPalace)
	if err != nil {
		reg.Close()
		b.Fatal(err)
	}
	if err := p.WarmIndex(ctx); err != nil {
		reg.Close()
		b.Fatal(err)
	}
	return p, copyHome, func() { reg.Close() }
}

// BenchmarkSearchAfterABulkWrite times the first searches after another
// palace handle (as another process would) wrote 2,000 drawers at once,
// which the searching one must catch up with, and how long after them the
// changes held for linking (vecheld.go) are all linked, on a copy of the
// stdio figures' 100k palace:
//
//	LOCI_BENCH_HOME=/tmp/benchhome go test -tags 'stdiobench sqlite_fts5' \
//	    -run '^$' -bench BenchmarkSearchAfterABulkWrite -benchtime 1x -v ./palace
func BenchmarkSearchAfterABulkWrite(b *testing.B) {
	home := benchHome(b)
	ctx := context.Background()
	p, copyHome, closeAll := openBenchCopy(b, home)
	defer closeAll()
	other, err := OpenRegistry(Config{DataDir: copyHome, Embedder: embed.Default()})
	if err != nil {
		b.Fatal(err)
	}
	defer other.Close()
	q, err := other.Open(ctx, p.name)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		for round := range 2 {
			if _, err := p.Search(ctx, SearchRequest{Query: "lighthouse", K: 10}); err != nil {
				b.Fatal(err)
			}
			ds := make([]*Drawer, 2000)
			for i := range ds {
				ds[i] = &Drawer{Content: fmt.Sprintf("round %d import %d: the lighthouse keeper logged the storm and the ferry's late arrival", round, i)}
			}
			start := time.Now()
			if err := q.AddMany(ctx, ds); err != nil {
				b.Fatal(err)
			}
			wrote := time.Since(start)
			var took []time.Duration
			for range 10 {
				start := time.Now()
				if _, err := p.Search(ctx, SearchRequest{Query: "when did the ferry arrive late", K: 10}); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			linked := time.Now()
			for {
				p.vec.mu.Lock()
				n := len(p.vec.held.ops)
				p.vec.mu.Unlock()
				if n == 0 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			b.Logf("round %d: 2,000 drawers written in %v; the searches after: first %v, then p50 %v, slowest %v; linked %v after them", round,
				wrote.Round(time.Millisecond), took[0].Round(time.Millisecond), quantile(took[1:], .5).Round(time.Millisecond),
				quantile(took[1:], 1).Round(time.Millisecond), time.Since(linked).Round(time.Millisecond))
		}
	}
}

// BenchmarkFirstSearchWithoutSnapshot times the first search of a process
// that opens the 100k palace (a copy) without its vector snapshot, so its
// index crosses the graph's threshold in that search's catch-up, and how
// long after it the graph built aside (vecgraph.go) replaces the index.
// With LOCI_BENCH_INLINE_GRAPH=1 the catch-up builds the graph itself, as
// before stop 90:
//
//	LOCI_BENCH_HOME=/tmp/benchhome go test -tags 'stdiobench sqlite_fts5' \
//	    -run '^$' -bench BenchmarkFirstSearchWithoutSnapshot -benchtime 1x -v ./palace
func BenchmarkFirstSearchWithoutSnapshot(b *testing.B) {
	home := benchHome(b)
	if os.Getenv("LOCI_BENCH_INLINE_GRAPH") == "1" {
		defer func(w int) { asideGraphWork = w }(asideGraphWork)
		asideGraphWork = math.MaxInt
	}
	ctx := context.Background()
	for range b.N {
		copyHome := copyBenchPalace(b, home)
		if err := os.Remove(filepath.Join(copyHome, "palaces", benchPalace, indexFile)); err != nil {
			b.Fatal(err)
		}
		reg, err := OpenRegistry(Config{DataDir: copyHome, Embedder: embed.Default()})
		if err != nil {
			b.Fatal(err)
		}
		p, err := reg.Open(ctx, benchPalace)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := p.Search(ctx, SearchRequest{Query: benchQuestions[0], K: 10}); err != nil {
			b.Fatal(err)
		}
		first := time.Since(start)
		var second time.Duration
		var heap uint64 // the most heap in use, sampled between searches
		for {
			s := time.Now()
			if _, err := p.Search(ctx, SearchRequest{Query: benchQuestions[1], K: 10}); err != nil {
				b.Fatal(err)
			}
			second = max(second, time.Since(s))
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap = max(heap, ms.HeapInuse)
			if p.VectorIndexStats().Graph > 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.Logf("first search %v; the graph in place %v after it started (slowest search meanwhile %v); heap in use at most %d MB, peak RSS %s; index %+v",
			first.Round(time.Millisecond), time.Since(start).Round(time.Second), second.Round(time.Millisecond), heap>>20, peakRSS(), p.IndexInfo())
		reg.Close()
	}
}

// peakRSS is the process's peak resident memory as Linux reports it
// (VmHWM), or "?" elsewhere.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
