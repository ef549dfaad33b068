package palace

// idSet is a set of row ids or vector keys. Both are assigned in sequence
// (rids by SQLite, keys from the change log), so a bitset is dense and far
// cheaper to fill and probe than a map; the rare id beyond idSetBits goes
// to a map instead.
type idSet struct {
	bits []uint64
	big  map[uint64]struct{}
	n    int
}

// idSetBits bounds the bitset at 8 MiB.
const idSetBits = 1 << 26

func (s *idSet) add(id uint64) {
	if id >= idSetBits {
		if s.big == nil {
			s.big = map[uint64]struct{}{}
		}
		if _, ok := s.big[id]; !ok {
			s.big[id] = struct{}{}
			s.n++
		}
		return
	}
	w := int(id >> 6)
	if w >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, w+1-len(s.bits)+len(s.bits)/2)...)
	}
	if m := uint64(1) << (id & 63); s.bits[w]&m == 0 {
		s.bits[w] |= m
		s.n++
	}
}

func (s *idSet) has(id uint64) bool {
	if id >= idSetBits {
		_, ok := s.big[id]
		return ok
	}
	w := int(id >> 6)
	return w < len(s.bits) && s.bits[w]&(1<<(id&63)) != 0
}

// len is the number of ids in the set.
func (s *idSet) len() int { return s.n }
