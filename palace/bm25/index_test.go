package bm25

import (
	"fmt"
	"math"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// refDoc is a document as the reference scorer sees it.
type refDoc struct {
	fields []string
	active bool
}

// refCorpus is the documents as the reference scorer sees them: the
// tokens and joined pairs of each field.
type refCorpus struct {
	docs  map[int64]refDoc
	terms map[int64][][]string // by field, its tokens and its joined pairs
	lens  map[int64]int
	total int
}

// refHyphenated matches words of parts joined by hyphens.
var refHyphenated = regexp.MustCompile(`[\pL\pN]+(?:-[\pL\pN]+)+`)

func newRefCorpus(docs map[int64]refDoc) *refCorpus {
	c := &refCorpus{docs: docs, terms: map[int64][][]string{}, lens: map[int64]int{}}
	for key, d := range docs {
		for _, f := range d.fields {
			var terms []string
			prev := ""
			eachToken(f, func(tok []byte, joined, _ bool) {
				terms = append(terms, string(tok))
				if joined {
					terms = append(terms, prev+"\x00"+string(tok))
				}
				prev = string(tok)
				c.lens[key]++
			})
			// A hyphenated word whose every part holds a letter also
			// counts joined, in no length.
			for _, w := range refHyphenated.FindAllString(f, -1) {
				lettered := true
				for _, part := range strings.Split(w, "-") {
					lettered = lettered && strings.IndexFunc(part, unicode.IsLetter) >= 0
				}
				if cat := AppendTokens(nil, strings.ReplaceAll(w, "-", "")); lettered && len(cat) == 1 {
					terms = append(terms, cat[0])
				}
			}
			c.terms[key] = append(c.terms[key], terms)
		}
		c.total += c.lens[key]
	}
	return c
}

// refSearch scores every document from scratch with the FTS5 formula: the
// independent computation Index.Search must agree with.
func refSearch(docs map[int64]refDoc, weights []float64, words []string, k int, activeOnly bool) []Hit {
	return newRefCorpus(docs).search(weights, words, k, activeOnly)
}

// search is refSearch. A word of several tokens is two half-weight terms:
// its tokens, and its joined pairs, each counting in a field as often as
// its rarest member there, and matching where that is not zero in some
// field. The pieces of a CJK token are terms of their own.
func (c *refCorpus) search(weights []float64, words []string, k int, activeOnly bool) []Hit {
	docs := c.docs
	n := float64(len(docs))
	avgdl := float64(c.total) / n
	// freq is the weighted frequency of the conjunction of terms in each
	// document holding it.
	freq := func(terms []string) map[int64]float64 {
		out := map[int64]float64{}
		for key, fields := range c.terms {
			f := 0.0
			for col, field := range fields {
				count := -1
				for _, term := range terms {
					m := 0
					for _, x := range field {
						if x == term {
							m++
						}
					}
					if count < 0 || m < count {
						count = m
					}
				}
				f += weights[col] * float64(min(count, maxCount))
			}
			if f > 0 {
				out[key] = f
			}
		}
		return out
	}
	score := map[int64]float64{}
	add := func(fr map[int64]float64, weight float64) {
		if len(fr) == 0 {
			return
		}
		hits := float64(len(fr))
		idf := math.Log((n - hits + 0.5) / (hits + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		idf *= weight
		for key, f := range fr {
			score[key] += idf * (f * (k1 + 1)) / (f + k1*(1-b+b*float64(c.lens[key])/avgdl))
		}
	}
	for _, w := range words {
		var wt []string
		eachToken(w, func(tok []byte, _, piece bool) {
			if piece { // a CJK token's pieces are terms of their own
				add(freq([]string{string(tok)}), 1)
			} else {
				wt = append(wt, string(tok))
			}
		})
		if len(wt) == 1 {
			add(freq(wt), 1)
		} else if len(wt) > 1 {
			var pairs []string
			for i := 1; i < len(wt); i++ {
				pairs = append(pairs, wt[i-1]+"\x00"+wt[i])
			}
			add(freq(wt), 0.5)
			add(freq(pairs), 0.5)
		}
	}
	var out []Hit
	for key, s := range score {
		if activeOnly && !docs[key].active {
			continue
		}
		out = append(out, Hit{Key: key, Score: s})
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// sameHits requires got to rank as want: the same scores (to 1e-12) and
// the same keys, but for documents whose scores tie to within that: the
// reference multiplies and divides in another order than the index, so
// two documents whose scores are equal may differ in their last bit and
// swap places (or trade the last place).
func sameHits(t *testing.T, label string, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, want %d\ngot  %v\nwant %v", label, len(got), len(want), got, want)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
	for i := range want {
		if !near(got[i].Score, want[i].Score) {
			t.Fatalf("%s: hit %d = %+v, want %+v", label, i, got[i], want[i])
		}
		if got[i].Key == want[i].Key {
			continue
		}
		tied := near(got[i].Score, want[len(want)-1].Score) // may be past the cut
		for _, w := range want {
			tied = tied || w.Key == got[i].Key && near(w.Score, got[i].Score)
		}
		if !tied {
			t.Fatalf("%s: hit %d = %+v, want %+v", label, i, got[i], want[i])
		}
	}
}

var words = strings.Fields(`alpha beta gamma delta painting paints painted paint run running runs ran
	café cafe naïve Caroline Melanie support group adoption agency pottery camping hiking 2023 may june
	缓存 数据库使用 缓存使用Redis 会議 毎週月曜日 データベース 서울에서 서울 猫`)

// randomText returns n random words, mostly apart, a fifth of them joined
// to the next by punctuation.
func randomText(r *rand.Rand, n int) string {
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			if r.Intn(5) == 0 {
				sb.WriteString([]string{"_", "-", ".", "'"}[r.Intn(4)])
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(words[r.Intn(len(words))])
	}
	return sb.String()
}

// randomQuery returns query words, some of several tokens ("paint_run",
// "alpha-beta", "2023.may").
func randomQuery(r *rand.Rand) []string {
	q := strings.Fields(randomText(r, 1+r.Intn(4)))
	for i := range q {
		if r.Intn(4) == 0 {
			q[i] += []string{"_", "-", ".", "'"}[r.Intn(4)] + words[r.Intn(len(words))]
		}
	}
	return q
}

func TestSearchAgreesWithReference(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	weights := []float64{1, 0.5}
	x := New(weights...)
	ref := map[int64]refDoc{}
	put := func(key int64) {
		d := refDoc{fields: []string{randomText(r, 1+r.Intn(12)), randomText(r, r.Intn(4))}, active: r.Intn(5) > 0}
		ref[key] = d
		x.Put(key, d.active, d.fields...)
	}
	check := func(label string) {
		t.Helper()
		if x.Len() != len(ref) {
			t.Fatalf("%s: Len %d, want %d", label, x.Len(), len(ref))
		}
		for q := 0; q < 40; q++ {
			query := randomQuery(r)
			active := q%2 == 0
			sameHits(t, fmt.Sprintf("%s %q active=%v", label, query, active),
				x.Search(query, 25, active, nil), refSearch(ref, weights, query, 25, active))
		}
	}
	for key := int64(1); key <= 600; key++ {
		put(key)
	}
	check("fresh")

	// Replacing documents leaves dead slots; past the threshold they are
	// compacted away. Both states must score as a fresh index would.
	for i := 0; i < 400; i++ {
		put(int64(1 + r.Intn(600)))
	}
	if x.dead == 0 {
		t.Fatal("expected dead slots before compaction")
	}
	check("with dead slots")
	for i := 0; i < 3000; i++ {
		put(int64(1 + r.Intn(600)))
	}
	check("after compaction")
	if len(x.keys) > 600+1024+600 {
		t.Fatalf("%d slots for 600 documents: compaction did not run", len(x.keys))
	}

	// Activity changes touch no statistics; removal does.
	for key := int64(1); key <= 50; key++ {
		d := ref[key]
		d.active = !d.active
		ref[key] = d
		x.SetActive(key, d.active)
	}
	for key := int64(51); key <= 80; key++ {
		delete(ref, key)
		x.Remove(key)
	}
	check("after SetActive and Remove")

	// An unchanged re-put is a no-op apart from activity.
	slots := len(x.keys)
	d := ref[100]
	x.Put(100, d.active, d.fields...)
	if len(x.keys) != slots {
		t.Fatal("re-putting an unchanged document added a slot")
	}
	x.Trim()
	check("after Trim")
}

func TestSearchFilterTiesAndEmpty(t *testing.T) {
	x := New(1)
	if hits := x.Search([]string{"anything"}, 10, false, nil); hits != nil {
		t.Fatalf("empty index returned %v", hits)
	}
	for key := int64(1); key <= 5; key++ {
		x.Put(key, true, "the same text")
	}
	x.Put(6, true, "other words")
	hits := x.Search([]string{"same"}, 3, true, nil)
	if len(hits) != 3 || hits[0].Key != 5 || hits[1].Key != 4 || hits[2].Key != 3 || hits[0].Score != hits[2].Score {
		t.Fatalf("ties must share the score and be ordered by key descending: %v", hits)
	}
	hits = x.Search([]string{"same"}, 10, true, func(k int64) bool { return k%2 == 0 })
	if len(hits) != 2 || hits[0].Key != 4 || hits[1].Key != 2 {
		t.Fatalf("allow filter: %v", hits)
	}
	if hits := x.Search([]string{"absent"}, 10, false, nil); len(hits) != 0 {
		t.Fatalf("unknown term matched %v", hits)
	}
	if hits := x.Search(nil, 10, false, nil); hits != nil {
		t.Fatalf("no words matched %v", hits)
	}
}

func BenchmarkSearch100k(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x := New(1, 0.5)
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	doc := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(w, " ")
	}
	for key := int64(0); key < 100000; key++ {
		x.Put(key, true, doc(40), doc(20))
	}
	x.Trim()
	queries := make([][]string, 64)
	for i := range queries {
		queries[i] = strings.Fields(doc(5))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Search(queries[i%len(queries)], 150, true, nil)
	}
}

// Expand adds the extra tokens to the scores SearchKeep kept, and ranks
// exactly as SearchExpanded scoring everything afresh: on the same index,
// after a write (the kept scores are stale then), after Trim, on another
// index, and a second time (the kept scores are spent by the first, or
// were given back).
func TestExpandMatchesSearchExpanded(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	x := New(1, 0.5)
	for key := int64(1); key <= 800; key++ {
		x.Put(key, r.Intn(5) > 0, randomText(r, 1+r.Intn(12)), randomText(r, r.Intn(4)))
	}
	extraOf := func() []Weighted {
		var e []Weighted
		for range 1 + r.Intn(5) {
			e = append(e, Weighted{Tok: AppendTokens(nil, words[r.Intn(len(words))])[0], W: 0.1 + r.Float64()})
		}
		return e
	}
	other := New(1, 0.5)
	for key := int64(1); key <= 50; key++ {
		other.Put(key, true, randomText(r, 6))
	}
	for q := 0; q < 100; q++ {
		query := randomQuery(r)
		active := q%2 == 0
		var allow func(int64) bool
		if q%3 == 0 {
			allow = func(k int64) bool { return k%2 == 0 }
		}
		k := []int{1, 5, 25}[q%3]
		first, kept := x.SearchKeep(query, k, active, allow)
		sameHits(t, fmt.Sprintf("%q kept", query), first, x.Search(query, k, active, allow))
		extra := extraOf()
		label := fmt.Sprintf("%q k=%d expanded by %v", query, k, extra)
		switch q % 5 {
		case 1: // a write: the kept scores are stale
			x.Put(int64(1+r.Intn(800)), true, randomText(r, 5))
		case 2:
			x.Trim()
		case 3: // another index: scored afresh there
			sameHits(t, label+" on another index", other.Expand(kept, extra), other.SearchExpanded(query, extra, k, active, allow))
			continue
		case 4: // spent by a first Expand, or given back unused
			if q%10 == 4 {
				x.Expand(kept, extraOf())
			} else {
				kept.Release()
				kept.Release()
			}
		}
		sameHits(t, label, x.Expand(kept, extra), x.SearchExpanded(query, extra, k, active, allow))
	}
}

// zipfText returns a maker of texts of n words "w<rank>", the ranks drawn
// from z.
func zipfText(z *rand.Zipf) func(n int) string {
	return func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", z.Uint64())
		}
		return strings.Join(w, " ")
	}
}

// An Expand scores its extra tokens of smallest bounds only for the
// documents that could still reach the best k (scorer.extra), and ranks
// exactly as SearchExpanded, which scores every posting: on drawers whose
// words follow Zipf's law, queried by rarer words and expanded by common
// ones as relevance feedback's are; with inactive, filtered, removed and
// later-added documents; on one goroutine and split over two.
func TestExpandPassingOverNonCandidatesRanksAlike(t *testing.T) {
	pruned := 0
	defer func() { onPrune = nil }()
	onPrune = func(int) { pruned++ }
	r := rand.New(rand.NewSource(12))
	zipf := rand.NewZipf(r, 1.1, 2, 3000)
	text := zipfText(zipf)
	x := New(1, 0.5)
	for key := int64(1); key <= 6000; key++ {
		x.Put(key, r.Intn(6) > 0, text(3+r.Intn(20)), text(r.Intn(3)))
	}
	x.Trim()
	for key := int64(1); key <= 300; key++ { // dead slots and tails
		x.Remove(int64(1 + r.Intn(6000)))
		x.Put(6000+key, true, text(3+r.Intn(20)))
	}
	queries := 0
	for _, split := range []bool{false, true} {
		if split {
			defer func(n int) { parallelPostings = n }(parallelPostings)
			parallelPostings = 1
		}
		for q := range 300 {
			query := []string{fmt.Sprintf("w%d", 20+r.Intn(400)), fmt.Sprintf("w%d", 5+r.Intn(100))}
			var extra []Weighted
			for range 1 + r.Intn(10) {
				extra = append(extra, Weighted{Tok: fmt.Sprintf("w%d", r.Intn(60)), W: 0.02 + 0.5*r.Float64()})
			}
			k := []int{1, 10, 50}[q%3]
			var allow func(int64) bool
			if q%4 == 0 {
				allow = func(key int64) bool { return key%3 != 0 }
			}
			_, kept := x.SearchKeep(query, k, q%2 == 0, allow)
			label := fmt.Sprintf("%q k=%d + %v", query, k, extra)
			got, want := x.Expand(kept, extra), x.SearchExpanded(query, extra, k, q%2 == 0, allow)
			if split {
				sameToRounding(t, label+" split", got, want)
			} else {
				sameHits(t, label, got, want)
			}
			queries++
		}
	}
	if pruned < queries/4 {
		t.Fatalf("%d of %d expansions passed over any document: the test does not exercise it", pruned, queries)
	}
	t.Logf("%d of %d expansions scored some tokens for candidates only", pruned, queries)
}

// sameToRounding fails unless got has want's scores to rounding, and the
// same documents in the same order except where two scores tie to
// rounding.
func sameToRounding(t *testing.T, label string, got, want []Hit) {
	t.Helper()
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, want %d", label, len(got), len(want))
	}
	for i := range want {
		if !near(got[i].Score, want[i].Score) {
			t.Fatalf("%s: hit %d scores %v, want %v", label, i, got[i].Score, want[i].Score)
		}
		if got[i].Key == want[i].Key {
			continue
		}
		tied := i == len(want)-1 // the last place may go to a tie beyond k
		for _, w := range want {
			tied = tied || (w.Key == got[i].Key && near(w.Score, want[i].Score))
		}
		if !tied {
			t.Fatalf("%s: hit %d is %+v, want %+v", label, i, got[i], want[i])
		}
	}
}

// Split between two goroutines (any number of postings), Expand still
// ranks as SearchExpanded does: the same scores to rounding, and the same
// documents in the same order except where two scores tie to rounding.
func TestExpandInParallelMatchesSearchExpanded(t *testing.T) {
	defer func(n int) { parallelPostings = n }(parallelPostings)
	parallelPostings = 1
	r := rand.New(rand.NewSource(10))
	x := New(1, 0.5)
	for key := int64(1); key <= 1500; key++ {
		x.Put(key, r.Intn(5) > 0, randomText(r, 1+r.Intn(12)), randomText(r, r.Intn(4)))
	}
	for q := 0; q < 100; q++ {
		query := randomQuery(r)
		var extra []Weighted
		for range 2 + r.Intn(6) {
			extra = append(extra, Weighted{Tok: AppendTokens(nil, words[r.Intn(len(words))])[0], W: 0.1 + r.Float64()})
		}
		k := []int{1, 5, 25}[q%3]
		_, kept := x.SearchKeep(query, k, q%2 == 0, nil)
		sameToRounding(t, fmt.Sprintf("%q + %v", query, extra), x.Expand(kept, extra), x.SearchExpanded(query, extra, k, q%2 == 0, nil))
	}
}
