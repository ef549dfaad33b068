package bm25

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchSizes are the index sizes BenchmarkLoCoMo measures: BM25_BENCH_SIZES
// (comma-separated) or 10k, 100k and 1M.
func benchSizes(b *testing.B) []int {
	s := os.Getenv("BM25_BENCH_SIZES")
	if s == "" {
		return []int{10_000, 100_000, 1_000_000}
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("BM25_BENCH_SIZES: %q", f)
		}
		out = append(out, n)
	}
	return out
}

func sizeLabel(n int) string {
	switch {
	case n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// buildLoCoMo indexes n synthetic LoCoMo drawers (corpus_test.go) the way
// the palace builds its index: analysed on every core, put by one
// goroutine, trimmed at the end. It returns the time spent indexing
// (generating the texts excluded).
func buildLoCoMo(x *Index, s *synth, n int) time.Duration {
	const batch = 4096
	type item struct {
		content, keywords string
		d                 Doc
	}
	items := make([]item, batch)
	var took time.Duration
	workers := runtime.GOMAXPROCS(0)
	for key := 0; key < n; {
		m := min(batch, n-key)
		for i := range items[:m] {
			items[i].content, items[i].keywords = s.doc()
		}
		start := time.Now()
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				an := x.Analyzer()
				for i := w; i < m; i += workers {
					items[i].d = an.Analyze(items[i].content, items[i].keywords)
				}
			}()
		}
		wg.Wait()
		for i := range items[:m] {
			x.PutDoc(int64(key+1), true, items[i].d)
			items[i].d = Doc{}
			key++
		}
		took += time.Since(start)
	}
	start := time.Now()
	x.Trim()
	return took + time.Since(start)
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// searchLatencies runs every LoCoMo question as the palace would (its
// words without stopwords, the best 50 active drawers) three times and
// returns the median and 99th percentile latencies of the last two rounds.
func searchLatencies(x *Index, questions [][]string) (p50, p99 time.Duration) {
	var ds []time.Duration
	for round := 0; round < 3; round++ {
		for _, q := range questions {
			start := time.Now()
			x.Search(q, 50, true, nil)
			if round > 0 {
				ds = append(ds, time.Since(start))
			}
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*99/100]
}

// BenchmarkLoCoMo measures the index over LoCoMo-like drawers at each of
// benchSizes: build time, memory per drawer, search latency over the LoCoMo
// questions. Run it once per size (-benchtime 1x); see README.md.
func BenchmarkLoCoMo(b *testing.B) {
	c := loadLoCoMo(b)
	var questions [][]string
	for _, q := range c.questions {
		if w := queryWords(q); len(w) > 0 {
			questions = append(questions, w)
		}
	}
	for _, n := range benchSizes(b) {
		b.Run(sizeLabel(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s := newSynth(c, 1)
				x := New(1, 0.5)
				took := buildLoCoMo(x, s, n)
				withIndex := heapInUse()
				runtime.KeepAlive(x)
				terms := x.Terms()
				p50, p99 := searchLatencies(x, questions)
				x = nil
				heap := withIndex - heapInUse()
				runtime.KeepAlive(s)
				b.ReportMetric(took.Seconds(), "build-s")
				b.ReportMetric(float64(heap)/float64(n), "heap-B/doc")
				b.ReportMetric(float64(terms), "terms")
				b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
				b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
			}
		})
	}
}
