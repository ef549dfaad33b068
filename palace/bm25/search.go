package bm25

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sort"
)

// Hit is a search result: a document key and its BM25 score (higher is
// better; FTS5's bm25() returns the negation).
type Hit struct {
	Key   int64
	Score float64
}

type accumulator struct {
	score   []float64
	touched []int32
	slots   []int32   // a conjunction's documents
	counts  []uint8   // and their counts, nf per document
	within  []uint64  // Expand's candidates, a bit per slot (scorer.extra)
	inOrder []float64 // kept: the scores of touched, in its order
}

// scorer holds what scoring one query needs.
type scorer struct {
	x     *Index
	a     *accumulator
	n     float64 // documents in the statistics
	avgdl float64 // their average length
	// base, when not nil, holds scores a document starts from when it is
	// first touched (Expand: the query words' kept scores); baseTouched
	// the documents that have one, and baseInOrder their scores.
	base        []float64
	baseTouched []int32
	baseInOrder []float64
}

// Search ranks documents against query words as FTS5 ranks
// `"w1" OR "w2" ...`: a word given twice counts twice, as in FTS5. A word
// of one token scores exactly as FTS5 does.
//
// A word of several tokens ("fact_horizon", "e-mail", "3.14") is a phrase
// to FTS5, which matches it where its tokens are adjacent; this index
// keeps no positions. It scores such a word as two half-weight phrases in
// FTS5's manner (each with its own document frequency, and a count in
// each field that is the smallest of its members' counts there): the
// documents holding all its tokens in one field, and those holding them
// joined as in the word (its joined pairs, see Analyze). A document where
// the word is written as such gets both halves; one where the tokens only
// co-occur (spaced, "road trip" for "road-trip", or not adjacent at all)
// gets one. On the repository's own text and on LoCoMo, 97–99% of the top
// 10 for such a word alone are FTS5 phrase matches, against 82–90% with
// all tokens alone and 75–83% with the tokens scored apart
// (phrase_test.go).
//
// It returns the best k by score, ties broken by the larger key (FTS5's
// `ORDER BY rank, rowid DESC`). activeOnly limits results to active
// documents; allow, when not nil, further limits them to keys it accepts.
// Statistics always cover every document.
func (x *Index) Search(words []string, k int, activeOnly bool, allow func(int64) bool) []Hit {
	return x.SearchExpanded(words, nil, k, activeOnly, allow)
}

// Weighted is an analysed token (as the index stores it: lower case,
// Porter-stemmed) with a query weight: its score in a document is its
// BM25 score there times the weight.
type Weighted struct {
	Tok string
	W   float64
}

// SearchExpanded ranks as Search does for words, adding the score of each
// extra token times its weight: the expanded query of relevance feedback.
func (x *Index) SearchExpanded(words []string, extra []Weighted, k int, activeOnly bool, allow func(int64) bool) []Hit {
	hits, _ := x.search(words, extra, nil, false, k, activeOnly, allow)
	return hits
}

// Scored is a query's scores over the documents, kept by SearchKeep so
// that relevance feedback's expanded query (Expand) walks only its extra
// tokens' posting lists instead of the query's own again: at a million
// documents those are most of a keyword search's time.
type Scored struct {
	x          *Index
	gen        uint64
	words      []string
	k          int
	activeOnly bool
	allow      func(int64) bool
	a          *accumulator // the words' scores; nil once Expand used them
	top        []Hit        // the best k by them that the search admitted
	topSlots   []int32
}

// SearchKeep is Search, and keeps the scores for one Expand.
func (x *Index) SearchKeep(words []string, k int, activeOnly bool, allow func(int64) bool) ([]Hit, *Scored) {
	return x.search(words, nil, nil, true, k, activeOnly, allow)
}

// Expand ranks as SearchExpanded does for base's words, k, activeOnly and
// allow, plus extra. The documents the extra tokens touch start from their
// kept scores and add the extra tokens' in the order a fresh search would
// (exactly the same sums, unless the tokens are split between two
// goroutines: then equal to the last bit); every other document keeps its
// score, so only the kept best k of those can be among the best k. It
// scores the words again when base is another index's, the index changed
// since, or base was expanded already. It spends base.
func (x *Index) Expand(base *Scored, extra []Weighted) []Hit {
	hits, _ := x.search(base.words, extra, base, false, base.k, base.activeOnly, base.allow)
	return hits
}

// search scores words (or takes their scores from base, when it is
// usable) and extra, and returns the best k; with keep (and no extra), also
// the words' scores.
func (x *Index) search(words []string, extra []Weighted, base *Scored, keep bool, k int, activeOnly bool, allow func(int64) bool) ([]Hit, *Scored) {
	if k <= 0 || len(words)+len(extra) == 0 {
		return nil, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if base != nil {
		defer base.Release()
		if base.x != x || base.gen != x.gen || base.a == nil {
			base = nil
		}
	}
	if x.live == 0 {
		return nil, nil
	}
	a := x.getAcc()
	held := false
	defer func() {
		if !held {
			x.putAcc(a)
		}
	}()

	sc := scorer{x: x, a: a, n: float64(x.live)}
	sc.avgdl = float64(x.totalLen) / sc.n
	if sc.avgdl <= 0 {
		sc.avgdl = 1
	}
	// floor, in an Expand, is a score that k documents the search admits
	// reach already (the kept best k by the words alone, whose scores the
	// extra tokens can only raise), so that the best k will too.
	floor := 0.0
	if base != nil {
		sc.base, sc.baseTouched, sc.baseInOrder = base.a.score, base.a.touched, base.a.inOrder
		if len(base.top) == k {
			floor = base.top[k-1].Score
		}
	} else {
		// A word's tokens are one term, or a phrase; the pieces of a CJK
		// token (cjkPieces) are each a term of their own.
		var toks []string
		for _, w := range words {
			toks = toks[:0]
			eachToken(w, func(tok []byte, _, piece bool) {
				if !piece {
					toks = append(toks, string(tok))
				} else if id, _, ok := x.termID(string(tok)); ok {
					sc.term(id)
				}
			})
			switch len(toks) {
			case 0:
			case 1:
				if id, _, ok := x.termID(toks[0]); ok {
					sc.term(id)
				}
			default:
				sc.phrase(toks)
			}
		}
	}
	sc.extra(extra, floor)

	// Keep the best k in a min-heap ordered worst first. Once it is full,
	// a document scoring below its worst cannot enter, and is passed over
	// before its flags and key are read: in a large index most touched
	// documents are, and those reads are cache misses.
	h := make(hitHeap, 0, k)
	offer := func(hit Hit) {
		if len(h) < k {
			h.push(hit)
		} else if better(hit, h[0]) {
			h[0] = hit
			h.down(0)
		}
	}
	// Kept scores are also kept in the order of touched, for an Expand to
	// read without going back to the array (candidates).
	keeping := keep && len(extra) == 0 && base == nil
	for _, s := range a.touched {
		v := a.score[s]
		if keeping {
			a.inOrder = append(a.inOrder, v)
		}
		if len(h) == k && v < h[0].Score {
			continue
		}
		f := x.flags[s]
		if (activeOnly && f&flagActive == 0) || (allow != nil && !allow(x.keys[s])) {
			continue
		}
		offer(Hit{Key: x.keys[s], Score: v})
	}
	if base != nil {
		// The documents the extra tokens did not touch: their scores are
		// the words' alone, and any beyond the kept best k has k better.
		for i, s := range base.topSlots {
			if a.score[s] == 0 {
				offer(base.top[i])
			}
		}
	}
	sort.Slice(h, func(i, j int) bool { return better(h[i], h[j]) })
	if !keeping {
		return h, nil
	}
	kept := &Scored{x: x, gen: x.gen, words: words, k: k, activeOnly: activeOnly, allow: allow, a: a,
		top: slices.Clone(h), topSlots: make([]int32, len(h))}
	for i, hit := range h {
		kept.topSlots[i], _ = x.liveSlot(hit.Key)
	}
	held = true
	return h, kept
}

// parallelPostings is how many postings the extra tokens of an expanded
// search must have in all before they are split between two goroutines:
// the expanded pass runs alone after the first ranking (both rankers are
// done), so a second core is idle then. Below about 10⁵ postings (a few
// hundred microseconds) starting a goroutine and merging cost more than
// they save.
var parallelPostings = 1 << 17

// extra scores the extra tokens, each walking its posting list, in
// decreasing order of the most it can add to a document (its bound,
// w·idf·(k1+1): a term's BM25 score approaches idf·(k1+1) as its count
// grows and never reaches it), the same order in SearchExpanded and Expand
// so that both add up a document's score alike.
//
// In an Expand whose floor is above zero, the tokens of smallest bounds
// whose bounds sum below it cannot between them lift a document the others
// did not touch into the best k (the non-essential terms of Turtle and
// Flood's MaxScore, 1995): those tokens add only to the documents whose
// score so far, plus that sum, reaches the floor. The rest score as
// before. They are the common words of relevance feedback's expansion: at
// a million LoCoMo-like drawers, 259k of the 352k postings a question's
// expansion walks, with 13% of the documents candidates. The best k are
// the same documents with the same scores. The lists are still decoded,
// so the gain is a sixth of the pass, not three quarters (README.md).
func (sc *scorer) extra(extra []Weighted, floor float64) {
	x := sc.x
	var toks []weightedTok
	for _, e := range extra {
		if id, _, ok := x.termID(e.Tok); ok && e.W > 0 {
			if hits := x.liveHits(id); hits > 0 {
				toks = append(toks, weightedTok{id, sc.idf(hits) * e.W, x.postings(id)})
			}
		}
	}
	slices.SortStableFunc(toks, func(p, q weightedTok) int { return cmp.Compare(q.idf, p.idf) })
	cut, rest := len(toks), 0.0
	if sc.base != nil && floor > 0 && passOver {
		// boundSlack covers the rounding of sums of a few terms.
		for cut > 0 && (rest+toks[cut-1].idf*(k1+1))*boundSlack < floor {
			cut--
			rest += toks[cut].idf * (k1 + 1)
		}
	}
	sc.group(toks[:cut], nil)
	if cut == len(toks) {
		return
	}
	if onPrune != nil {
		onPrune(len(toks) - cut)
	}
	sc.group(toks[cut:], sc.candidates(floor-rest*boundSlack))
}

// passOver lets BenchmarkExpand compare with scoring every posting.
var passOver = true

// onPrune, when set (by a test), learns how many extra tokens an Expand
// scored for candidates only.
var onPrune func(tokens int)

// boundSlack makes a sum of bounds a little larger, so that a document
// whose score the rounding of a sum puts on the floor is a candidate.
const boundSlack = 1 + 1e-9

// weightedTok is an extra token to score: its term, its idf times its
// weight, and its postings.
type weightedTok struct {
	id  int32
	idf float64
	n   int
}

// candidates marks the documents with kept scores or scores from extra
// tokens of at least least, in a bit set as large as the index. A document
// with both is marked by its kept score, or else by the other, which is
// larger.
func (sc *scorer) candidates(least float64) []uint64 {
	a := sc.a
	n := (len(sc.x.keys) + 63) / 64
	if cap(a.within) < n {
		a.within = make([]uint64, n)
	}
	within := a.within[:n]
	for i, s := range sc.baseTouched {
		if sc.baseInOrder[i] >= least { // search keeps one for each
			within[s>>6] |= 1 << (uint(s) & 63)
		}
	}
	for _, s := range a.touched {
		if a.score[s] >= least {
			within[s>>6] |= 1 << (uint(s) & 63)
		}
	}
	a.within = within
	return within
}

// group scores toks, limited to the documents within marks when it is not
// nil. With kept scores (sc.base) and enough postings it scores them in
// two groups of about equal postings, one on another goroutine into an
// accumulator of its own, and merges that into sc's: each document's sum
// then adds the second group's share in one step, which can differ from
// adding token by token in the last bit.
func (sc *scorer) group(toks []weightedTok, within []uint64) {
	total := 0
	for _, t := range toks {
		total += t.n
	}
	if sc.base == nil || len(toks) < 2 || total < parallelPostings || runtime.GOMAXPROCS(0) < 2 {
		for _, t := range toks {
			sc.walk(t.id, t.idf, within)
		}
		return
	}
	// The heavier tokens first, each to the lighter group.
	order := make([]int, len(toks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return toks[order[i]].n > toks[order[j]].n })
	var mine, theirs []weightedTok
	nm, nt := 0, 0
	for _, i := range order {
		if nm <= nt {
			mine, nm = append(mine, toks[i]), nm+toks[i].n
		} else {
			theirs, nt = append(theirs, toks[i]), nt+toks[i].n
		}
	}
	x := sc.x
	b := x.getAcc()
	defer x.putAcc(b)
	other := scorer{x: x, a: b, n: sc.n, avgdl: sc.avgdl}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, t := range theirs {
			other.walk(t.id, t.idf, within)
		}
	}()
	for _, t := range mine {
		sc.walk(t.id, t.idf, within)
	}
	<-done
	a := sc.a
	for _, s := range b.touched {
		v := a.score[s]
		if v == 0 {
			a.touched = append(a.touched, s)
			v = sc.base[s]
		}
		a.score[s] = v + b.score[s]
	}
}

// getAcc takes a cleared accumulator as large as the index.
func (x *Index) getAcc() *accumulator {
	a, _ := x.acc.Get().(*accumulator)
	if a == nil {
		a = &accumulator{}
	}
	if len(a.score) < len(x.keys) {
		a.score = make([]float64, len(x.keys)+len(x.keys)/4)
	}
	return a
}

// putAcc clears a and gives it back. When a query touched more than an
// eighth of the slots, clearing the whole array in one sweep is cheaper
// than visiting each touched slot (which are out of order across terms).
func (x *Index) putAcc(a *accumulator) {
	if len(a.touched) > len(a.score)/8 {
		clear(a.score)
	} else {
		for _, s := range a.touched {
			a.score[s] = 0
		}
	}
	a.touched = a.touched[:0]
	clear(a.within)
	a.within, a.inOrder = a.within[:0], a.inOrder[:0]
	x.acc.Put(a)
}

// Release gives back the scores s holds, for a caller that kept them and
// did not expand (Expand releases them itself); s is spent. It may be
// called more than once, and on nil. Without it the scores are left to
// the garbage collector, and the next search allocates an array as large
// as the index (10 MB at a million documents).
func (s *Scored) Release() {
	if s != nil && s.a != nil {
		s.x.putAcc(s.a)
		s.a = nil
	}
}

// fieldFreq is the weighted frequency of a term in a document, summed in
// FTS5's order.
func (x *Index) fieldFreq(counts []uint8) float64 {
	var f float64
	for c, w := range x.weights {
		f += w * float64(counts[c])
	}
	return f
}

// idf is FTS5's inverse document frequency of a term in hits documents.
func (sc *scorer) idf(hits int) float64 {
	idf := math.Log((sc.n - float64(hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// add adds a term's score in slot s, for its weighted frequency f there:
// the expression FTS5 evaluates, in its order.
func (sc *scorer) add(s int32, f, idf float64) {
	a := sc.a
	v := a.score[s]
	if v == 0 {
		a.touched = append(a.touched, s)
	}
	a.score[s] = v + idf*((f*(k1+1))/(f+k1*(1-b+b*float64(sc.x.lens[s])/sc.avgdl)))
}

// term scores the documents holding term id.
func (sc *scorer) term(id int32) {
	if hits := sc.x.liveHits(id); hits > 0 {
		sc.walk(id, sc.idf(hits), nil)
	}
}

// liveHits is the number of live documents holding term id.
func (x *Index) liveHits(id int32) int {
	hits := x.postings(id)
	if x.dead > 0 {
		hits = 0
		x.each(id, func(s int32, _ []uint8) {
			if x.flags[s]&flagDead == 0 {
				hits++
			}
		})
	}
	return hits
}

// walk scores the documents holding term id with the given idf (times
// the term's weight); only those within marks when it is not nil.
func (sc *scorer) walk(id int32, idf float64, within []uint64) {
	frozen, t := sc.x.list(id)
	prev := sc.list(frozen, 0, idf, within)
	if t != nil {
		sc.list(t.data, prev, idf, within)
	}
}

// list scores the postings of one part of a list (after slot prev) and
// returns its last slot: walk and add, unrolled for speed, with the same
// arithmetic. With within, it passes over the documents not marked there.
func (sc *scorer) list(data []byte, prev int32, idf float64, within []uint64) int32 {
	x, a := sc.x, sc.a
	nf := len(x.weights)
	checkDead := x.dead > 0
	score, touched, lens, flags, base := a.score, a.touched, x.lens, x.flags, sc.base
	k1p1, omb, bb, k, avgdl := k1+1, 1-b, b, k1, sc.avgdl
	tagF := x.tagF
	for i := 0; i < len(data); {
		v := uint64(data[i])
		i++
		if v >= 0x80 {
			v, i = uvarint(data, i, v)
		}
		prev += int32(v >> 2)
		var f float64
		if t := v & 3; t != tagCounts {
			f = tagF[t]
		} else {
			f = x.fieldFreq(data[i : i+nf])
			i += nf
		}
		if within != nil && within[prev>>6]&(1<<(uint(prev)&63)) == 0 {
			continue
		}
		if checkDead && flags[prev]&flagDead != 0 {
			continue
		}
		old := score[prev]
		if old == 0 {
			touched = append(touched, prev)
			if base != nil {
				old = base[prev]
			}
		}
		score[prev] = old + idf*((f*k1p1)/(f+k*(omb+bb*float64(lens[prev])/avgdl)))
	}
	a.touched = touched
	return prev
}

// phrase scores a word of several tokens, toks (Search's doc says how).
func (sc *scorer) phrase(toks []string) {
	pairs := make([]string, len(toks)-1)
	for i := range pairs {
		pairs[i] = string(appendPair(nil, toks[i], toks[i+1]))
	}
	if !joinedPairs {
		sc.conjunction(toks, 1)
		return
	}
	sc.conjunction(toks, 0.5)
	sc.conjunction(pairs, 0.5)
}

// joinedPairs lets the phrase measurement (phrase_test.go) compare with
// all tokens alone.
var joinedPairs = true

// conjunction scores, as one term, the documents holding every term of
// terms in one field, the count of the conjunction in a field being the
// smallest of its terms' counts there. It reports whether any matched.
func (sc *scorer) conjunction(terms []string, weight float64) bool {
	x, a := sc.x, sc.a
	nf := len(x.weights)
	ids := make([]int32, len(terms))
	for i, t := range terms {
		id, _, ok := x.termID(t)
		if !ok {
			return false
		}
		ids[i] = id
	}
	slices.SortFunc(ids, func(p, q int32) int { return x.postings(p) - x.postings(q) })
	slots, counts := a.slots[:0], a.counts[:0]
	x.each(ids[0], func(s int32, c []uint8) {
		if x.flags[s]&flagDead == 0 {
			slots = append(slots, s)
			counts = append(counts, c...)
		}
	})
	// Intersect with each further list, in place: kept postings move
	// down, keeping the smaller count of each field.
	for _, id := range ids[1:] {
		j, kept := 0, 0
		x.each(id, func(s int32, c []uint8) {
			for j < len(slots) && slots[j] < s {
				j++
			}
			if j == len(slots) || slots[j] != s {
				return
			}
			slots[kept] = s
			for f := range nf {
				counts[kept*nf+f] = min(counts[j*nf+f], c[f])
			}
			kept++
			j++
		})
		slots, counts = slots[:kept], counts[:kept*nf]
	}
	// A document whose terms are in different fields does not match.
	kept := 0
	for j, s := range slots {
		if c := counts[j*nf : (j+1)*nf]; slices.ContainsFunc(c, func(n uint8) bool { return n > 0 }) {
			slots[kept] = s
			copy(counts[kept*nf:], c)
			kept++
		}
	}
	slots, counts = slots[:kept], counts[:kept*nf]
	a.slots, a.counts = slots, counts
	if len(slots) == 0 {
		return false
	}
	idf := weight * sc.idf(len(slots))
	for j, s := range slots {
		sc.add(s, x.fieldFreq(counts[j*nf:(j+1)*nf]), idf)
	}
	return true
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

// TokenShare estimates the share of the collection's tokens that are the
// analysed token tok: its document frequency over the total length of the
// documents in the statistics (a document holding it counts once, which
// for short texts is its count).
func (x *Index) TokenShare(tok string) float64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.totalLen <= 0 {
		return 0
	}
	if id, _, ok := x.termID(tok); ok {
		return float64(x.postings(id)) / float64(x.totalLen)
	}
	return 0
}

// DocFreq is the number of documents holding an analysed token, and the
// number of documents in the statistics.
func (x *Index) DocFreq(tok string) (df, n int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if id, _, ok := x.termID(tok); ok {
		df = x.postings(id)
	}
	return df, x.live
}
