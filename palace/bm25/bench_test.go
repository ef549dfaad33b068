package bm25

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	lociwords "github.com/loci-mem/loci/palace/words"
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

// BenchmarkExpand measures relevance feedback's expanded pass at
// BM25_BENCH_SIZES (default 1M) LoCoMo-like drawers, with and without
// passing over the documents its common tokens cannot lift into the best
// k (scorer.extra), alternated question by question. Each LoCoMo question
// is searched for its best 50 (SearchKeep), and expanded as the palace
// expands it: the ten tokens of its first ten hits that are most
// over-represented there against the whole index (RM3's interpolation at
// λ 0.5, terms chosen by Carpineto's divergence). Run once per size
// (-benchtime 1x).
func BenchmarkExpand(b *testing.B) {
	c := loadLoCoMo(b)
	sizes := []int{1_000_000}
	if os.Getenv("BM25_BENCH_SIZES") != "" {
		sizes = benchSizes(b)
	}
	for _, n := range sizes {
		b.Run(sizeLabel(n), func(b *testing.B) {
			for range b.N {
				benchExpand(b, c, n)
			}
		})
	}
}

func benchExpand(b *testing.B, c *locomo, n int) {
	s := newSynth(c, 1)
	x := New(1, 0.5)
	texts := make([]string, n+1)
	an := x.Analyzer()
	for key := 1; key <= n; key++ {
		content, keywords := s.doc()
		texts[key] = content
		x.PutDoc(int64(key), true, an.Analyze(content, keywords))
	}
	x.Trim()
	const k = 50
	type query struct {
		words []string
		extra []Weighted
	}
	var queries []query
	for _, q := range c.questions {
		words := queryWords(q)
		if len(words) == 0 {
			continue
		}
		hits := x.Search(words, k, true, nil)
		if extra := expansionOf(x, words, hits, texts); len(extra) > 0 {
			queries = append(queries, query{words, extra})
		}
	}
	var on, off []time.Duration
	for round := 0; round < 3; round++ {
		for i, q := range queries {
			for _, pass := range []bool{i%2 == 0, i%2 != 0} {
				passOver = pass
				_, kept := x.SearchKeep(q.words, k, true, nil)
				start := time.Now()
				x.Expand(kept, q.extra)
				if d := time.Since(start); round == 0 {
					continue
				} else if pass {
					on = append(on, d)
				} else {
					off = append(off, d)
				}
			}
		}
	}
	passOver = true
	report := func(ds []time.Duration, unit string) {
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs-"+unit)
		b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-µs-"+unit)
	}
	report(off, "every-posting")
	report(on, "passing-over")
	b.ReportMetric(float64(len(queries)), "queries")
}

// expansionOf is the palace's relevance feedback in brief
// (palace/feedback.go): the ten tokens of the first ten hits' texts that
// those texts use more than the index does, ranked by P(t|R)·log(P(t|R)/
// P(t|C)), weighted to sum to the query's number of tokens.
func expansionOf(x *Index, words []string, hits []Hit, texts []string) []Weighted {
	inQuery := map[string]bool{}
	for _, w := range words {
		for _, t := range AppendTokens(nil, w) {
			inQuery[t] = true
		}
	}
	rel := map[string]float64{}
	for _, h := range hits[:min(10, len(hits))] {
		toks := AppendTokens(nil, texts[h.Key])
		seen := map[string]bool{}
		for _, t := range toks {
			if !seen[t] && !inQuery[t] && len(t) >= 2 && !lociwords.IsStopword(t) {
				seen[t] = true
				rel[t] += 1 / float64(len(toks)+1000)
			}
		}
	}
	sum := 0.0
	for _, p := range rel {
		sum += p
	}
	type term struct {
		tok     string
		p, gain float64
	}
	var ts []term
	for t, p := range rel {
		pr, pc := p/sum, x.TokenShare(t)
		if pc > 0 && pr > pc {
			ts = append(ts, term{t, p, pr * math.Log(pr/pc)})
		}
	}
	slices.SortFunc(ts, func(a, b term) int { return cmp.Compare(b.gain, a.gain) })
	ts = ts[:min(10, len(ts))]
	total := 0.0
	for _, t := range ts {
		total += t.p
	}
	var out []Weighted
	for _, t := range ts {
		out = append(out, Weighted{Tok: t.tok, W: float64(len(inQuery)) * t.p / total})
	}
	return out
}
