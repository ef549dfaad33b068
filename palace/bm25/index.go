package bm25

import (
	"math"
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
// ranks the same rows for words of one token: the same tokens, the same
// document statistics (every document counts, active or not), the same
// formula. It is safe for concurrent use; searches share a read lock.
//
// Every array is a flat slice, so that a snapshot is those slices written
// out and a load is the file mapped and the slices pointed at it
// (snapshot.go). Arrays that came from a snapshot are never written in
// place: appending copies them (their capacity is their length), and the
// two hash tables copy themselves before their first write.
type Index struct {
	weights []float64

	mu sync.RWMutex

	// The dictionary: term id's text is termText[termOff[id]:termOff[id+1]];
	// terms finds the id of a text (entries id+1).
	termText []byte
	termOff  []uint64
	terms    table

	// Posting lists by term id (postings.go): the frozen parts, for ids
	// below len(postN), and the tails.
	blob      []byte
	postOff   []uint64 // len(postN)+1
	postLast  []uint32 // slot of the frozen part's last posting
	postN     []uint32 // postings in the frozen part
	tailOf    map[int32]int32
	tails     []tail
	tailBytes int

	// Documents by slot. Replacing or removing a document leaves a dead
	// slot that searches skip until compaction renumbers the slots.
	keys   []int64
	lens   []uint32 // tokens in all fields
	hashes []uint64 // of the field texts, to skip unchanged re-puts
	flags  []uint8  // flagActive, flagDead; always in memory
	slotOf table    // key -> slot+1; a removed key keeps its dead slot

	live     int   // documents counted in the statistics (live slots)
	totalLen int64 // tokens of all live documents
	dead     int   // dead slots

	snap *mapping // the snapshot some arrays point into, if any

	tagCounts [3][]uint8 // the counts tags 0–2 stand for
	tagF      [3]float64 // and their weighted frequencies

	acc sync.Pool // *accumulator

	// gen counts the changes that move scores (content, statistics, slot
	// numbers): a Scored taken at another generation is stale.
	gen uint64
}

const (
	flagActive = 1 << iota
	flagDead
)

// New returns an empty index for documents whose fields carry the given
// weights (FTS5's per-column bm25 weights).
func New(weights ...float64) *Index {
	if len(weights) == 0 {
		weights = []float64{1}
	}
	x := &Index{
		weights: append([]float64(nil), weights...),
		termOff: []uint64{0},
		terms:   newTable(),
		postOff: []uint64{0},
		tailOf:  map[int32]int32{},
		slotOf:  newTable(),
	}
	for t := range x.tagCounts {
		x.tagCounts[t] = countsOfTag(uint64(t), len(weights))
		x.tagF[t] = x.fieldFreq(x.tagCounts[t])
	}
	return x
}

// termHash is the dictionary's hash of a term's text.
func termHash[T string | []byte](t T) uint64 { return mix64(fnv(fnvOffset, t)) }

func keyHash(key int64) uint64 { return mix64(uint64(key)) }

func (x *Index) termAt(id int32) []byte { return x.termText[x.termOff[id]:x.termOff[id+1]] }

// termID finds term t; when absent, pos is where it would be inserted.
func (x *Index) termID(t string) (id int32, pos int, ok bool) {
	for i := x.terms.start(termHash(t)); ; i = x.terms.next(i) {
		v := x.terms.e[i]
		if v == 0 {
			return -1, i, false
		}
		if string(x.termAt(int32(v-1))) == t {
			return int32(v - 1), i, true
		}
	}
}

// addTerm returns t's id, adding it to the dictionary when it is new.
func (x *Index) addTerm(t string) int32 {
	id, pos, ok := x.termID(t)
	if ok {
		return id
	}
	id = int32(len(x.termOff) - 1)
	x.termText = append(x.termText, t...)
	x.termOff = append(x.termOff, uint64(len(x.termText)))
	x.terms.insert(pos, uint32(id+1), func(v uint32) uint64 { return termHash(x.termAt(int32(v - 1))) })
	return id
}

// slot finds key's slot (possibly dead, if it was removed); when absent,
// pos is where it would be inserted.
func (x *Index) slot(key int64) (slot int32, pos int, ok bool) {
	for i := x.slotOf.start(keyHash(key)); ; i = x.slotOf.next(i) {
		v := x.slotOf.e[i]
		if v == 0 {
			return -1, i, false
		}
		if x.keys[v-1] == key {
			return int32(v - 1), i, true
		}
	}
}

func (x *Index) keyAt(v uint32) uint64 { return keyHash(x.keys[v-1]) }

// liveSlot returns key's slot if key is in the index.
func (x *Index) liveSlot(key int64) (int32, bool) {
	s, _, ok := x.slot(key)
	if !ok || x.flags[s]&flagDead != 0 {
		return -1, false
	}
	return s, true
}

// Put indexes a document under key, replacing what key held. active
// documents are the ones a search with activeOnly may return; every
// document counts in the statistics.
func (x *Index) Put(key int64, active bool, fields ...string) {
	x.mu.RLock()
	s, ok := x.liveSlot(key)
	same := ok && x.hashes[s] == hashFields(fields)
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
	var flags uint8
	if active {
		flags = flagActive
	}
	old, pos, found := x.slot(key)
	if found && x.flags[old]&flagDead == 0 {
		if x.hashes[old] == d.hash {
			x.flags[old] = flags
			return
		}
		x.retire(old)
	}
	x.gen++
	slot := int32(len(x.keys))
	x.keys = append(x.keys, key)
	x.lens = append(x.lens, d.length)
	x.hashes = append(x.hashes, d.hash)
	x.flags = append(x.flags, flags)
	if found {
		x.slotOf.set(pos, uint32(slot+1))
	} else {
		x.slotOf.insert(pos, uint32(slot+1), x.keyAt)
	}
	x.live++
	x.totalLen += int64(d.length)
	nf := len(x.weights)
	for i, t := range d.terms {
		x.addPosting(x.addTerm(t), slot, d.counts[i*nf:(i+1)*nf])
	}
	switch {
	case x.dead > 1024 && x.dead > x.live/4:
		x.compact()
	case x.tailBytes > 1<<20 && x.tailBytes > len(x.blob):
		// The tails have outgrown the frozen lists: merge them, so that
		// memory stays near the encoded size (each merge at least doubles
		// the blob, so the copying adds up to a few times its size).
		x.rewrite(nil)
	}
}

// SetActive changes whether key may be returned by active-only searches.
func (x *Index) SetActive(key int64, active bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if s, ok := x.liveSlot(key); ok {
		if active {
			x.flags[s] |= flagActive
		} else {
			x.flags[s] &^= flagActive
		}
	}
}

// Remove drops key from the index and its statistics.
func (x *Index) Remove(key int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if s, ok := x.liveSlot(key); ok {
		x.retire(s)
		x.gen++
	}
}

// retire takes slot s out of the statistics and marks it dead; searches
// skip it until compaction. Caller holds mu.
func (x *Index) retire(s int32) {
	x.flags[s] |= flagDead
	x.dead++
	x.live--
	x.totalLen -= int64(x.lens[s])
}

// compact drops dead slots from every posting list and renumbers slots.
func (x *Index) compact() {
	remap, live := x.liveDocs()
	x.rewrite(remap)
	x.keys, x.lens, x.hashes, x.flags, x.dead = live.keys, live.lens, live.hashes, live.flags, 0
	x.slotOf = keyTable(live.keys)
	x.dropSnapshot()
}

// docArrays are the arrays by slot.
type docArrays struct {
	keys   []int64
	lens   []uint32
	hashes []uint64
	flags  []uint8
}

// liveDocs returns the live slots' arrays, and remap, which gives each
// slot's place among them (-1 for a dead slot).
func (x *Index) liveDocs() (remap []int32, live docArrays) {
	remap = make([]int32, len(x.keys))
	live = docArrays{make([]int64, 0, x.live), make([]uint32, 0, x.live), make([]uint64, 0, x.live), make([]uint8, 0, x.live)}
	for s, f := range x.flags {
		remap[s] = -1
		if f&flagDead == 0 {
			remap[s] = int32(len(live.keys))
			live.keys = append(live.keys, x.keys[s])
			live.lens = append(live.lens, x.lens[s])
			live.hashes = append(live.hashes, x.hashes[s])
			live.flags = append(live.flags, f)
		}
	}
	return remap, live
}

// keyTable returns the key directory of slots holding keys, all distinct.
func keyTable(keys []int64) table {
	return fullTable(len(keys), func(s int) uint64 { return keyHash(keys[s]) })
}

// fullTable returns a table holding the values 1..n, value v+1 placed by
// hash(v).
func fullTable(n int, hash func(v int) uint64) table {
	t := table{e: make([]uint32, tableSize(n)), used: n}
	for v := range n {
		i := t.start(hash(v))
		for t.e[i] != 0 {
			i = t.next(i)
		}
		t.e[i] = uint32(v + 1)
	}
	return t
}

// Erase takes out every trace of the documents removed or replaced since
// the index was built or last erased: their postings, as compaction does,
// and the terms no document holds any more, which the dictionary
// otherwise keeps for good (a term's id is never reused). A snapshot
// written afterwards holds no word of those documents. It returns the
// number of terms dropped. It costs a compaction: every list is rewritten.
func (x *Index) Erase() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.gen++
	x.compact()
	kept := 0
	for _, n := range x.postN {
		if n > 0 {
			kept++
		}
	}
	dropped := len(x.postN) - kept
	if dropped == 0 {
		return 0
	}
	// The lists are one blob in id order and a dropped term's is empty,
	// so the blob stays as it is and a kept term's list ends where it did.
	text := make([]byte, 0, len(x.termText))
	termOff := make([]uint64, 1, kept+1)
	postOff := make([]uint64, 1, kept+1)
	last := make([]uint32, 0, kept)
	n := make([]uint32, 0, kept)
	for id, c := range x.postN {
		if c == 0 {
			continue
		}
		text = append(text, x.termAt(int32(id))...)
		termOff = append(termOff, uint64(len(text)))
		postOff = append(postOff, x.postOff[id+1])
		last = append(last, x.postLast[id])
		n = append(n, c)
	}
	x.termText, x.termOff, x.postOff, x.postLast, x.postN = text, termOff, postOff, last, n
	x.terms = fullTable(kept, func(id int) uint64 { return termHash(x.termAt(int32(id))) })
	x.dropSnapshot()
	return dropped
}

// Trim merges the posting lists' tails into their frozen parts, which
// gives back the spare capacity appending left (after a bulk build, up to
// half of their memory), and drops dead slots.
func (x *Index) Trim() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.gen++
	if x.dead > 0 {
		x.compact()
	} else if len(x.tails) > 0 {
		x.rewrite(nil)
	}
}

// Terms is the number of distinct terms the index has seen: tokens, and
// the joined pairs of Analyze.
func (x *Index) Terms() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.terms.used
}

// Keys calls fn with the key of every document in the index (active or
// not; removed ones excluded), in no particular order.
func (x *Index) Keys(fn func(key int64)) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for s, k := range x.keys {
		if x.flags[s]&flagDead == 0 {
			fn(k)
		}
	}
}

// Len is the number of documents in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}
