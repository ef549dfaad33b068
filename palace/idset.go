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

// idMap maps row ids or vector keys to row ids or vector keys. Like
// idSet it is dense where ids come in sequence: a slice indexed by id
// holds 8 bytes an entry, where a map holds about 35 (70 MB for the two
// maps of a million-drawer index). An id far past the entries so far (more
// than twice their count, plus idMapSlack) goes to a map, so a palace whose
// ids are sparse never grows a slice larger than its contents warrant.
type idMap struct {
	dense  []int64 // id -> value+1; 0: absent
	sparse map[int64]int64
	n      int
}

const idMapSlack = 1 << 16

func newIDMap(hint int) *idMap { return &idMap{dense: make([]int64, 0, hint+1)} }

// get and del treat a nil map as empty.
func (m *idMap) get(id int64) (int64, bool) {
	if m == nil {
		return 0, false
	}
	if id >= 0 && id < int64(len(m.dense)) && m.dense[id] != 0 {
		return m.dense[id] - 1, true
	}
	v, ok := m.sparse[id]
	return v, ok
}

func (m *idMap) set(id, v int64) {
	if _, ok := m.sparse[id]; ok {
		m.sparse[id] = v
		return
	}
	if id >= 0 && id < int64(2*m.n+idMapSlack) {
		if id >= int64(len(m.dense)) {
			m.dense = append(m.dense, make([]int64, int(id)+1-len(m.dense))...)
		}
		if m.dense[id] == 0 {
			m.n++
		}
		m.dense[id] = v + 1
		return
	}
	if m.sparse == nil {
		m.sparse = map[int64]int64{}
	}
	m.sparse[id] = v
	m.n++
}

// known reports whether m holds id.
func (m *idMap) known(id int64) bool {
	_, ok := m.get(id)
	return ok
}

func (m *idMap) del(id int64) {
	if m == nil {
		return
	}
	if id >= 0 && id < int64(len(m.dense)) && m.dense[id] != 0 {
		m.dense[id] = 0
		m.n--
		return
	}
	if _, ok := m.sparse[id]; ok {
		delete(m.sparse, id)
		m.n--
	}
}

// len is the number of ids mapped.
func (m *idMap) len() int { return m.n }
