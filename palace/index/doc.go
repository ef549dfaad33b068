// Package index holds the palace's in-memory vector index, Flat, keyed by
// uint64 and implementing Index. One type in a few configurations:
//
//   - float32 rows scanned exactly, with AVX2 kernels (pure-Go fallback),
//     a top-k heap and the allow filter applied before scoring;
//   - int8 codes with one scale per row (Int8): a quarter of the memory
//     and a faster scan, at the price of approximate scores, optionally
//     re-ranked from float32 rows kept beside them (Rerank);
//   - with Int8, a navigable small-world graph over the rows (Graph,
//     graph.go): loci's own HNSW, built once the exact scan would cost
//     more than the graph, answering Search while SearchExact still
//     scans. It stores no vectors of its own, only neighbour lists.
//
// The palace uses int8 codes and the graph, and re-ranks candidates with
// the float32 vectors its store holds, so the index's memory is one byte a
// dimension plus the graph's links.
//
// README.md in this directory records why the graph is written here
// rather than taken from github.com/coder/hnsw, how each default was
// chosen, and the commands that measure them.
//
// The index is a derived cache. The store holds every vector; an index
// can be thrown away and rebuilt at any time, and a snapshot records the
// change-log seq it covers and the embedder model id so a stale or
// foreign one is detected.
//
// This package imports nothing from loci and must never do so: it sits
// below palace and knows nothing of drawers, rooms or SQLite.
package index
