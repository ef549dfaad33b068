package bm25

import (
	"hash/maphash"
	"math"
	"sort"
	"sync"
)

// BM25 parameters, the values FTS5's bm25() uses. Variables, not
// constants, so that k1+1 and 1-b round at run time as in FTS5's C code.
// Scores then agree with FTS5's to an ulp or two (the logarithms of Go and
// of the C library may differ in the last bit).
var (
	k1 = 1.2
	b  = 0.75
)

// maxCount caps a term's count in one field of one document (counts are
// stored in a byte). BM25 saturates long before: a term seen 255 times
// scores within 0.5% of one seen infinitely often.
const maxCount = math.MaxUint8

// Index is an in-memory inverted index over documents of a fixed number of
// weighted fields, ranked by BM25 exactly as FTS5's bm25(table, w1, w2, ...)
// ranks the same rows: the same tokens, the same document statistics (every
// document counts, active or not), the same formula. It is safe for
// concurrent use; searches share a read lock.
type Index struct {
	weights []float64

	mu       sync.RWMutex
	termID   map[string]int32
	post     []postings // by term id
	docs     []doc      // by slot; a replaced document leaves a dead slot
	lens     []uint32   // by slot: docs[s].length, dense for the scoring loop
	slotOf   map[int64]int32
	live     int   // documents counted in the statistics (current slots)
	totalLen int64 // tokens of all current documents
	dead     int   // dead slots still referenced by postings

	acc sync.Pool // *accumulator
}

type postings struct {
	slots  []int32
	counts []uint8 // len(weights) per posting
}

type doc struct {
	key    int64
	length uint32 // tokens in all fields
	hash   uint64 // of the field texts, to skip unchanged re-puts
	active bool
	dead   bool
}

// New returns an empty index for documents whose fields carry the given
// weights (FTS5's per-column bm25 weights).
func New(weights ...float64) *Index {
	if len(weights) == 0 {
		weights = []float64{1}
	}
	return &Index{weights: append([]float64(nil), weights...), termID: map[string]int32{}, slotOf: map[int64]int32{}}
}

// Doc is a document analysed for the index: its distinct tokens with their
// per-field counts. Analyse is pure and may run in parallel; Put is cheap.
type Doc struct {
	terms  []string
	counts []uint8
	length uint32
	hash   uint64
}

var hashSeed = maphash.MakeSeed()

// Analyze tokenizes the fields of a document (one text per weight).
func (x *Index) Analyze(fields ...string) Doc {
	return x.Analyzer().Analyze(fields...)
}

// Analyzer returns an analyser for this index's documents that reuses its
// buffers: one per goroutine.
func (x *Index) Analyzer() *Analyzer { return &Analyzer{nf: len(x.weights)} }

// Analyzer analyses documents (see Index.Analyzer).
type Analyzer struct {
	nf int
	a  analyzer
}

// Analyze is Index.Analyze.
func (z *Analyzer) Analyze(fields ...string) Doc { return z.a.analyze(z.nf, fields) }

type analyzer struct {
	pos map[string]int
}

func (a *analyzer) analyze(nfields int, fields []string) Doc {
	if a.pos == nil {
		a.pos = map[string]int{}
	}
	clear(a.pos)
	d := Doc{hash: hashFields(fields)}
	for f, text := range fields {
		if f >= nfields {
			break
		}
		EachToken(text, func(tok []byte) {
			d.length++
			i, ok := a.pos[string(tok)] // no allocation for the lookup
			if !ok {
				t := string(tok)
				i = len(d.terms)
				a.pos[t] = i
				d.terms = append(d.terms, t)
				for c := 0; c < nfields; c++ {
					d.counts = append(d.counts, 0)
				}
			}
			if c := &d.counts[i*nfields+f]; *c < maxCount {
				*c++
			}
		})
	}
	return d
}

func hashFields(fields []string) uint64 {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	for _, f := range fields {
		h.WriteString(f)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// Put indexes a document under key, replacing what key held. active
// documents are the ones a search with activeOnly may return; every
// document counts in the statistics.
func (x *Index) Put(key int64, active bool, fields ...string) {
	x.mu.RLock()
	s, ok := x.slotOf[key]
	same := ok && x.docs[s].hash == hashFields(fields)
	x.mu.RUnlock()
	if same {
		x.SetActive(key, active)
		return
	}
	x.PutDoc(key, active, x.Analyze(fields...))
}

// PutDoc is Put with a document analysed beforehand.
func (x *Index) PutDoc(key int64, active bool, d Doc) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if s, ok := x.slotOf[key]; ok {
		old := &x.docs[s]
		if old.hash == d.hash {
			old.active = active
			return
		}
		x.retire(s)
	}
	slot := int32(len(x.docs))
	x.docs = append(x.docs, doc{key: key, length: d.length, hash: d.hash, active: active})
	x.lens = append(x.lens, d.length)
	x.slotOf[key] = slot
	x.live++
	x.totalLen += int64(d.length)
	nf := len(x.weights)
	for i, t := range d.terms {
		id, ok := x.termID[t]
		if !ok {
			id = int32(len(x.post))
			x.termID[t] = id
			x.post = append(x.post, postings{})
		}
		p := &x.post[id]
		p.slots = append(p.slots, slot)
		p.counts = append(p.counts, d.counts[i*nf:(i+1)*nf]...)
	}
	if x.dead > 1024 && x.dead > x.live/4 {
		x.compact()
	}
}

// SetActive changes whether key may be returned by active-only searches.
func (x *Index) SetActive(key int64, active bool) {
	x.mu.Lock()
	if s, ok := x.slotOf[key]; ok {
		x.docs[s].active = active
	}
	x.mu.Unlock()
}

// Remove drops key from the index and its statistics.
func (x *Index) Remove(key int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.slotOf[key]
	if !ok {
		return
	}
	x.retire(s)
	delete(x.slotOf, key)
}

// retire takes slot s out of the statistics and marks it dead; searches
// skip it until compaction. Caller holds mu.
func (x *Index) retire(s int32) {
	d := &x.docs[s]
	d.dead = true
	x.dead++
	x.live--
	x.totalLen -= int64(d.length)
}

// compact drops dead slots from every posting list and renumbers slots.
func (x *Index) compact() {
	remap := make([]int32, len(x.docs))
	docs := make([]doc, 0, x.live)
	lens := make([]uint32, 0, x.live)
	for s, d := range x.docs {
		if d.dead {
			remap[s] = -1
			continue
		}
		remap[s] = int32(len(docs))
		x.slotOf[d.key] = int32(len(docs))
		docs = append(docs, d)
		lens = append(lens, d.length)
	}
	x.lens = lens
	nf := len(x.weights)
	for id := range x.post {
		p := &x.post[id]
		n := 0
		for i, s := range p.slots {
			if r := remap[s]; r >= 0 {
				p.slots[n] = r
				copy(p.counts[n*nf:(n+1)*nf], p.counts[i*nf:(i+1)*nf])
				n++
			}
		}
		p.slots, p.counts = p.slots[:n], p.counts[:n*nf]
	}
	x.docs, x.dead = docs, 0
}

// Trim gives back the spare capacity appending left in the posting lists:
// after a bulk build, up to half of their memory.
func (x *Index) Trim() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for id := range x.post {
		p := &x.post[id]
		if cap(p.slots) > len(p.slots)+len(p.slots)/8+4 {
			p.slots = append([]int32(nil), p.slots...)
			p.counts = append([]uint8(nil), p.counts...)
		}
	}
}

// Terms is the number of distinct tokens the index has seen.
func (x *Index) Terms() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.post)
}

// Len is the number of documents in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Hit is a search result: a document key and its BM25 score (higher is
// better; FTS5's bm25() returns the negation).
type Hit struct {
	Key   int64
	Score float64
}

type accumulator struct {
	score   []float64
	touched []int32
}

// Search ranks documents against query words as FTS5 ranks
// `"w1" OR "w2" ...`: a word given twice counts twice, as in FTS5. A word
// of one token scores exactly as FTS5 does; a word of several tokens is a
// phrase to FTS5 (adjacent tokens only), which this index, keeping no
// positions, approximates by scoring each token as its own word. It returns the best k by score, ties broken by the larger key
// (FTS5's `ORDER BY rank, rowid DESC`). activeOnly limits results to
// active documents; allow, when not nil, further limits them to keys it
// accepts. Statistics always cover every document.
func (x *Index) Search(words []string, k int, activeOnly bool, allow func(int64) bool) []Hit {
	if k <= 0 || len(words) == 0 {
		return nil
	}
	var toks []string
	for _, w := range words {
		toks = AppendTokens(toks, w)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 {
		return nil
	}
	a, _ := x.acc.Get().(*accumulator)
	if a == nil {
		a = &accumulator{}
	}
	if len(a.score) < len(x.docs) {
		a.score = make([]float64, len(x.docs)+len(x.docs)/4)
	}
	defer func() {
		for _, s := range a.touched {
			a.score[s] = 0
		}
		a.touched = a.touched[:0]
		x.acc.Put(a)
	}()

	n := float64(x.live)
	avgdl := float64(x.totalLen) / n
	if avgdl <= 0 {
		avgdl = 1
	}
	nf := len(x.weights)
	w0, w1 := x.weights[0], 0.0
	if nf == 2 {
		w1 = x.weights[1]
	}
	for _, t := range toks {
		id, ok := x.termID[t]
		if !ok {
			continue
		}
		p := &x.post[id]
		hits := len(p.slots)
		if x.dead > 0 {
			hits = 0
			for _, s := range p.slots {
				if !x.docs[s].dead {
					hits++
				}
			}
		}
		if hits == 0 {
			continue
		}
		idf := math.Log((n - float64(hits) + 0.5) / (float64(hits) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		counts := p.counts
		for i, s := range p.slots {
			if x.dead > 0 && x.docs[s].dead {
				continue
			}
			var f float64
			if nf == 2 { // the palace's case: content and keywords
				f = w0*float64(counts[2*i]) + w1*float64(counts[2*i+1])
			} else {
				for c, w := range x.weights {
					f += w * float64(counts[i*nf+c])
				}
			}
			// The expression FTS5 evaluates, in its order.
			sc := a.score[s]
			if sc == 0 {
				a.touched = append(a.touched, s)
			}
			a.score[s] = sc + idf*((f*(k1+1))/(f+k1*(1-b+b*float64(x.lens[s])/avgdl)))
		}
	}

	// Keep the best k in a min-heap ordered worst first.
	h := make(hitHeap, 0, k)
	for _, s := range a.touched {
		d := &x.docs[s]
		if (activeOnly && !d.active) || (allow != nil && !allow(d.key)) {
			continue
		}
		hit := Hit{Key: d.key, Score: a.score[s]}
		if len(h) < k {
			h.push(hit)
		} else if better(hit, h[0]) {
			h[0] = hit
			h.down(0)
		}
	}
	sort.Slice(h, func(i, j int) bool { return better(h[i], h[j]) })
	return h
}

func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Key > b.Key
}

// hitHeap is a min-heap: h[0] is the worst hit kept.
type hitHeap []Hit

func (h *hitHeap) push(x Hit) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !better(s[p], s[i]) {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h hitHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && better(h[l], h[r]) {
			m = r
		}
		if !better(h[i], h[m]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
