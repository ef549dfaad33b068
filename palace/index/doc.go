// Package index holds the palace's in-memory vector indexes, all keyed by
// uint64 and all implementing Index:
//
//   - Flat: an exact scan over one contiguous row-major slice with AVX2
//     kernels (pure-Go fallback), a top-k heap and the allow filter applied
//     before scoring; optionally int8-quantised (a quarter of the memory).
//   - HNSW: a wrapper over github.com/coder/hnsw that never calls its
//     Delete and never adds a key twice (graph nodes are internal row
//     numbers; removal is a tombstone filtered at query time), re-ranks the
//     graph's candidates by the exact metric, falls back to an exact scan
//     when filters leave too few, turns panics inside coder/hnsw into a
//     degraded-but-exact state, rebuilds off-lock, and saves/loads
//     checksummed snapshots atomically.
//   - Auto: Flat below a size threshold, HNSW above it, switching by a
//     background build while the flat index keeps answering.
//
// README.md in this directory records what coder/hnsw v0.6.1 (and its main
// branch, whose search is identical) actually achieves, how each default
// was chosen, and the commands that measure them.
//
// The index is a derived cache. The palace's SQLite file holds every
// vector; an index can be thrown away and rebuilt at any time, and a
// snapshot records the change-log seq it covers and the embedder model id
// so a stale or foreign one is detected.
//
// This package imports nothing from loci and must never do so: it sits
// below palace and knows nothing of drawers, rooms or SQLite.
package index
