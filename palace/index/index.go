package index

// Result is one neighbour of a query.
type Result struct {
	Key uint64
	// Score is the cosine similarity for unit vectors (higher is closer).
	Score float32
}

// Index is a set of unit vectors searchable by similarity.
//
// Implementations are safe for concurrent use. Add of a key that is
// already present replaces nothing and returns false; callers give a new
// version of a vector a new key and Remove the old one.
type Index interface {
	// Add inserts vec under key. It reports whether the key was new.
	Add(key uint64, vec []float32) bool
	// Remove tombstones key; later searches never return it.
	Remove(key uint64)
	// Search returns up to k results ordered by descending score. When
	// allow is non-nil only keys for which it returns true are returned;
	// it may be called from several goroutines at once.
	Search(q []float32, k int, allow func(key uint64) bool) []Result
	// Len is the number of live (not removed) keys.
	Len() int
	// Dim is the vector length, fixed by the first Add (0 when empty).
	Dim() int
}
