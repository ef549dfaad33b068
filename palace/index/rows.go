package index

// rowBlockShift sets the rows per block of a rowStore: 4096 rows, 16 MiB of
// float32 at 1024 dimensions.
const (
	rowBlockShift = 12
	rowBlockRows  = 1 << rowBlockShift
	rowBlockMask  = rowBlockRows - 1
)

// rowStore is a growable array of fixed-length rows kept in blocks of
// rowBlockRows rows. Growing never moves what is stored: a single
// contiguous slice would, at 100k rows of 996 floats, copy 400 MB on the
// write that crosses its capacity and briefly hold both copies. Only the
// last block grows by appending, so a small index stays small.
type rowStore[T int8 | float32] struct {
	dim    int
	blocks [][]T
	n      int
}

func newRowStore[T int8 | float32](dim int) rowStore[T] { return rowStore[T]{dim: dim} }

// len is the number of rows.
func (s *rowStore[T]) len() int { return s.n }

// row returns row i, aliased (writes go to the store).
func (s *rowStore[T]) row(i int) []T {
	b := s.blocks[i>>rowBlockShift]
	o := (i & rowBlockMask) * s.dim
	return b[o : o+s.dim : o+s.dim]
}

// rows returns rows [lo, hi), which must lie in one block, aliased.
func (s *rowStore[T]) rows(lo, hi int) []T {
	b := s.blocks[lo>>rowBlockShift]
	o := (lo & rowBlockMask) * s.dim
	return b[o : o+(hi-lo)*s.dim]
}

// push appends a row (a copy of v, or zeros when v is nil) and returns its
// index.
func (s *rowStore[T]) push(v []T) int {
	if s.n&rowBlockMask == 0 && s.n>>rowBlockShift == len(s.blocks) {
		s.blocks = append(s.blocks, nil)
	}
	b := &s.blocks[s.n>>rowBlockShift]
	if v == nil {
		*b = append(*b, make([]T, s.dim)...)
	} else {
		*b = append(*b, v[:s.dim]...)
	}
	s.n++
	return s.n - 1
}

// reserve makes room for n more rows, so that loading a snapshot appends
// without growing any block step by step.
func (s *rowStore[T]) reserve(n int) {
	want := s.n + n
	for bi := s.n >> rowBlockShift; bi*rowBlockRows < want; bi++ {
		if bi == len(s.blocks) {
			s.blocks = append(s.blocks, nil)
		}
		if rows := min(rowBlockRows, want-bi*rowBlockRows); cap(s.blocks[bi]) < rows*s.dim {
			nb := make([]T, len(s.blocks[bi]), rows*s.dim)
			copy(nb, s.blocks[bi])
			s.blocks[bi] = nb
		}
	}
}

// extend appends n zero rows in whole blocks; the caller fills them
// through blocks (a snapshot load reads straight into them).
func (s *rowStore[T]) extend(n int) {
	s.reserve(n)
	want := s.n + n
	for bi := s.n >> rowBlockShift; bi*rowBlockRows < want; bi++ {
		s.blocks[bi] = s.blocks[bi][:min(rowBlockRows, want-bi*rowBlockRows)*s.dim]
	}
	s.n = want
}

// adopt makes an empty store use rows already laid out in v (n rows of
// dim values), cut into blocks without copying. Each block's capacity is
// its length, so growing the store never writes past it into v.
func (s *rowStore[T]) adopt(v []T, n int) {
	s.blocks = s.blocks[:0]
	for lo := 0; lo < n; lo += rowBlockRows {
		rows := min(rowBlockRows, n-lo)
		s.blocks = append(s.blocks, v[lo*s.dim:(lo+rows)*s.dim:(lo+rows)*s.dim])
	}
	s.n = n
}
