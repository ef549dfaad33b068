package index

import "testing"

func TestRowStoreAcrossBlocks(t *testing.T) {
	const dim = 3
	for _, reserve := range []int{0, 1, rowBlockRows - 1, rowBlockRows, 2*rowBlockRows + 5} {
		s := newRowStore[float32](dim)
		s.reserve(reserve)
		n := 2*rowBlockRows + 17
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				if got := s.push([]float32{float32(i), float32(i) + 0.5, -float32(i)}); got != i {
					t.Fatalf("push returned %d, want %d", got, i)
				}
			} else {
				s.push(nil)
				copy(s.row(i), []float32{float32(i), float32(i) + 0.5, -float32(i)}) // rows alias the store
			}
			if i == rowBlockRows+1 {
				s.reserve(100) // reserving mid-way keeps what is stored
			}
		}
		if s.len() != n {
			t.Fatalf("len %d, want %d", s.len(), n)
		}
		for i := 0; i < n; i++ {
			r := s.row(i)
			if len(r) != dim || cap(r) != dim || r[0] != float32(i) || r[1] != float32(i)+0.5 || r[2] != -float32(i) {
				t.Fatalf("reserve %d: row %d = %v (cap %d)", reserve, i, r, cap(r))
			}
		}
	}
}
