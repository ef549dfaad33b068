package bm25

import "encoding/binary"

// A posting list is a byte string: for each document holding the term,
// in increasing slot order, the uvarint (slot - previous slot) << 2 | tag,
// the previous slot of the first posting being 0. The tag says how often
// the term occurs in each field:
//
//	0  once in field 0, nowhere else
//	1  once in field 1, nowhere else
//	2  once in fields 0 and 1, nowhere else
//	3  the counts follow, one byte per field
//
// Tags 0–2 cover nine postings in ten of conversational text (92.5% of
// LoCoMo-like drawers: a turn, and the turn before it as keywords), so a
// posting takes one to three bytes where a slot and its counts took six.
//
// A term's list is in two parts: a frozen part, one range of the blob every
// frozen list shares (built by rewrite, or mapped from a snapshot, and
// never written in place), and a tail of the postings added since, in
// memory. The tail continues the frozen part's deltas, so the
// list is the two byte strings end to end.
const (
	tagField0 = iota
	tagField1
	tagBoth
	tagCounts
)

// tail is the in-memory end of a term's list.
type tail struct {
	data []byte
	last int32  // slot of the list's last posting
	n    uint32 // postings in data
}

// tagOf returns the tag of a posting's counts.
func tagOf(counts []uint8) uint64 {
	var one0, one1 bool
	for c, n := range counts {
		switch {
		case n == 0:
		case n == 1 && c == 0:
			one0 = true
		case n == 1 && c == 1:
			one1 = true
		default:
			return tagCounts
		}
	}
	switch {
	case one0 && one1:
		return tagBoth
	case one1:
		return tagField1
	case one0:
		return tagField0
	}
	return tagCounts // no occurrence at all: not produced by Analyze
}

// appendPosting appends the posting of slot (after prev) with counts.
func appendPosting(dst []byte, prev, slot int32, counts []uint8) []byte {
	tag := tagOf(counts)
	dst = binary.AppendUvarint(dst, uint64(slot-prev)<<2|tag)
	if tag == tagCounts {
		dst = append(dst, counts...)
	}
	return dst
}

// countsOfTag gives the counts a tag of 0–2 stands for.
func countsOfTag(tag uint64, nf int) []uint8 {
	c := make([]uint8, nf)
	if tag != tagField1 {
		c[0] = 1
	}
	if tag != tagField0 && nf > 1 {
		c[1] = 1
	}
	return c
}

// uvarint decodes the uvarint at data[i:] whose first byte v has its high
// bit set (the caller handles one-byte values inline).
func uvarint(data []byte, i int, v uint64) (uint64, int) {
	v &= 0x7f
	for shift := 7; ; shift += 7 {
		c := data[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i
		}
	}
}

// walk calls fn for every posting of list (a frozen part or a tail
// starting after prev) and returns the last slot. counts is nf bytes,
// valid until fn returns.
func (x *Index) walk(list []byte, prev int32, fn func(slot int32, counts []uint8)) int32 {
	nf := len(x.weights)
	for i := 0; i < len(list); {
		v := uint64(list[i])
		i++
		if v >= 0x80 {
			v, i = uvarint(list, i, v)
		}
		prev += int32(v >> 2)
		if t := v & 3; t != tagCounts {
			fn(prev, x.tagCounts[t])
		} else {
			fn(prev, list[i:i+nf])
			i += nf
		}
	}
	return prev
}

// list returns term id's frozen part and tail.
func (x *Index) list(id int32) (frozen []byte, t *tail) {
	if int(id) < len(x.postN) {
		frozen = x.blob[x.postOff[id]:x.postOff[id+1]]
	}
	if i, ok := x.tailOf[id]; ok {
		t = &x.tails[i]
	}
	return frozen, t
}

// postings is the number of postings in term id's list, dead slots
// included.
func (x *Index) postings(id int32) int {
	n := 0
	if int(id) < len(x.postN) {
		n = int(x.postN[id])
	}
	if i, ok := x.tailOf[id]; ok {
		n += int(x.tails[i].n)
	}
	return n
}

// addPosting appends slot (the newest) to term id's list.
func (x *Index) addPosting(id, slot int32, counts []uint8) {
	i, ok := x.tailOf[id]
	if !ok {
		i = int32(len(x.tails))
		x.tailOf[id] = i
		var last int32
		if int(id) < len(x.postN) {
			last = int32(x.postLast[id])
		}
		x.tails = append(x.tails, tail{last: last})
	}
	t := &x.tails[i]
	before := len(t.data)
	t.data = appendPosting(t.data, t.last, slot, counts)
	t.last = slot
	t.n++
	x.tailBytes += len(t.data) - before
}

// appendList appends term id's whole list to dst, renumbering slots by
// remap (-1: drop the posting) when remap is not nil. It returns the
// list's last slot and its number of postings.
func (x *Index) appendList(dst []byte, id int32, remap []int32) ([]byte, int32, uint32) {
	frozen, t := x.list(id)
	if remap == nil {
		// The parts are one list end to end.
		dst = append(dst, frozen...)
		last, n := int32(0), uint32(0)
		if int(id) < len(x.postN) {
			last, n = int32(x.postLast[id]), x.postN[id]
		}
		if t != nil {
			dst = append(dst, t.data...)
			last, n = t.last, n+t.n
		}
		return dst, last, n
	}
	var last int32
	var n uint32
	x.each(id, func(slot int32, counts []uint8) {
		if r := remap[slot]; r >= 0 {
			dst = appendPosting(dst, last, r, counts)
			last = r
			n++
		}
	})
	return dst, last, n
}

// each calls fn for every posting of term id, dead slots included.
func (x *Index) each(id int32, fn func(slot int32, counts []uint8)) {
	frozen, t := x.list(id)
	prev := x.walk(frozen, 0, fn)
	if t != nil {
		x.walk(t.data, prev, fn)
	}
}

// rewrite makes every list frozen again: the tails are appended to the
// frozen parts (remap nil), or every list is re-encoded with its slots
// renumbered (compaction). Caller holds mu for writing.
func (x *Index) rewrite(remap []int32) {
	terms := x.terms.used
	size := len(x.blob) + x.tailBytes
	blob := make([]byte, 0, size)
	off := make([]uint64, terms+1)
	last := make([]uint32, terms)
	n := make([]uint32, terms)
	for id := range int32(terms) {
		var l int32
		blob, l, n[id] = x.appendList(blob, id, remap)
		last[id] = uint32(l)
		off[id+1] = uint64(len(blob))
	}
	x.blob, x.postOff, x.postLast, x.postN = blob, off, last, n
	x.tailOf, x.tails, x.tailBytes = map[int32]int32{}, nil, 0
	x.dropSnapshot()
}
