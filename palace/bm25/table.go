package bm25

import "slices"

// table is an open-addressing hash table (linear probing) of uint32
// values, 0 meaning an empty entry: the index's dictionary keeps term
// ids+1 in one, its key directory slots+1 in another. The caller probes
// (it knows how to compare an entry with what it looks for); the table
// stores and grows. A table loaded from a snapshot aliases the file
// (shared) and is copied before its first write.
type table struct {
	e      []uint32 // len is a power of two
	used   int
	shared bool
}

const minTable = 16

func newTable() table { return table{e: make([]uint32, minTable)} }

// start is the first position to probe for hash h.
func (t *table) start(h uint64) int { return int(h & uint64(len(t.e)-1)) }

// next is the position after i.
func (t *table) next(i int) int { return (i + 1) & (len(t.e) - 1) }

// set overwrites the entry at i.
func (t *table) set(i int, v uint32) {
	if t.shared {
		t.e, t.shared = slices.Clone(t.e), false
	}
	t.e[i] = v
}

// insert stores v at i, an empty entry a probe ended on, and doubles the
// table past three quarters full; hash gives the hash of a stored value.
func (t *table) insert(i int, v uint32, hash func(v uint32) uint64) {
	t.set(i, v)
	t.used++
	if t.used*4 > len(t.e)*3 {
		t.rehash(2*len(t.e), hash)
	}
}

// rehash moves every value into a new table of size entries.
func (t *table) rehash(size int, hash func(v uint32) uint64) {
	old := t.e
	t.e, t.shared = make([]uint32, size), false
	for _, v := range old {
		if v != 0 {
			i := t.start(hash(v))
			for t.e[i] != 0 {
				i = t.next(i)
			}
			t.e[i] = v
		}
	}
}

// tableSize is the size of a table that holds n values at most half full.
func tableSize(n int) int {
	size := minTable
	for size < 2*n {
		size *= 2
	}
	return size
}
