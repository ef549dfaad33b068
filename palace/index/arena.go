package index

// arenaChunkFloats is the size of one arena chunk (256 KiB of float32).
const arenaChunkFloats = 1 << 16

// arena hands out fixed-length float32 rows carved from large chunks that
// are never reallocated, so a row slice stays valid (and unaliased) for as
// long as the arena lives. coder/hnsw keeps the slices it is given.
type arena struct {
	dim   int
	chunk []float32 // current chunk; rows are cut from its front
}

// add copies v into the arena and returns the stable copy.
func (a *arena) add(v []float32) []float32 {
	if len(a.chunk) < a.dim {
		a.chunk = make([]float32, max(arenaChunkFloats/a.dim, 1)*a.dim)
	}
	row := a.chunk[:a.dim:a.dim]
	a.chunk = a.chunk[a.dim:]
	copy(row, v)
	return row
}
