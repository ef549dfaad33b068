package bm25

import (
	"fmt"
	"os"
	"path/filepath"
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
// benchSizes: build time, memory per drawer (the live heap the index
// holds, and its parts), search latency over the LoCoMo questions, and the
// snapshot: its size, save and load times (mapped and read), the heap a
// mapped index holds, and search latency right after a load. Run it once
// per size (-benchtime 1x); see README.md.
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
			for range b.N {
				benchLoCoMo(b, c, questions, n)
			}
		})
	}
}

func benchLoCoMo(b *testing.B, c *locomo, questions [][]string, n int) {
	s := newSynth(c, 1)
	x := New(1, 0.5)
	took := buildLoCoMo(x, s, n)
	withIndex := heapInUse()
	parts, terms := x.footprint(), x.Terms()
	p50, p99 := searchLatencies(x, questions)

	path := filepath.Join(b.TempDir(), "kw.bm25")
	start := time.Now()
	if err := x.SaveFile(path, 1); err != nil {
		b.Fatal(err)
	}
	save := time.Since(start)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	x = nil
	heap := withIndex - heapInUse()
	runtime.KeepAlive(s)

	load := func(mapped bool) (time.Duration, *Index) {
		mapSnapshots = mapped
		defer func() { mapSnapshots = true }()
		start := time.Now()
		y, _, err := LoadFile(path, 1, 0.5)
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start), y
	}
	readLoad, _ := load(false) // dropped before the heap is measured
	before := heapInUse()
	mapLoad, y := load(true)
	// The first searches after a load, as a one-shot process runs them.
	start = time.Now()
	for _, q := range questions[:10] {
		y.Search(q, 50, true, nil)
	}
	first := time.Since(start) / 10
	mappedHeap := heapInUse() - before
	runtime.KeepAlive(y)

	b.ReportMetric(took.Seconds(), "build-s")
	b.ReportMetric(float64(heap)/float64(n), "heap-B/doc")
	for _, p := range parts {
		b.ReportMetric(float64(p.bytes)/float64(n), p.name+"-B/doc")
	}
	b.ReportMetric(float64(terms), "terms")
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(st.Size())/(1<<20), "snap-MB")
	b.ReportMetric(float64(save.Milliseconds()), "save-ms")
	b.ReportMetric(float64(mapLoad.Microseconds())/1000, "mapload-ms")
	b.ReportMetric(float64(readLoad.Microseconds())/1000, "readload-ms")
	b.ReportMetric(float64(mappedHeap)/float64(n), "mappedheap-B/doc")
	b.ReportMetric(float64(first.Microseconds()), "firstsearch-µs")
}

// part is one component of the index's memory.
type part struct {
	name  string
	bytes int
}

// footprint is the memory of the index's arrays by component (capacities,
// not lengths; Go's allocation rounding and the tails' map not counted).
func (x *Index) footprint() []part {
	tails := 0
	for _, t := range x.tails {
		tails += cap(t.data)
	}
	return []part{
		{"postings", cap(x.blob) + 8*cap(x.postOff) + 4*cap(x.postLast) + 4*cap(x.postN) + tails + 32*cap(x.tails)},
		{"dict", cap(x.termText) + 8*cap(x.termOff) + 4*len(x.terms.e)},
		{"docs", 8*cap(x.keys) + 4*cap(x.lens) + 8*cap(x.hashes) + cap(x.flags) + 4*len(x.slotOf.e)},
	}
}
