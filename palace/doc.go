// Package palace is loci's core: a palace is one isolated memory space,
// holding drawers (memories of every kind) in rooms, with a hybrid BM25 +
// vector recall engine over them.
//
// # Layout
//
// The core keeps drawers and recall; each other contract has a package of
// its own, built on the core:
//
//	palace            drawers (write path, reads, forget/undo, erasing for good),
//	                  recall (search, fusion, layers), the derived indexes' state,
//	                  palaces (Registry)
//	palace/store      the store boundary: the records a palace keeps and the
//	                  interfaces a backend implements; the vocabulary is defined there
//	palace/store/sqlstore  the SQL behind every reader and writer, once, through a
//	                       Dialect; Copy moves a palace between backends
//	palace/store/sqlite    the default backend: one SQLite file per palace
//	palace/store/postgres  the team backend: one PostgreSQL database, many palaces
//	palace/store/storetest the conformance suite every backend passes
//	palace/facts      facts and their review queue (seed 004, mem_save_fact)
//	palace/session    conversation buffers and their extraction (seed 001, hooks)
//	palace/archive    export and import (JSON Lines), readable Markdown export
//	palace/dreamlog   the dreamer's journal: runs, changes and undo, the lease
//	palace/bm25       the in-memory keyword index (FTS5-exact tokenizer and scores, CJK cut finer)
//	palace/index      the vector indexes (exact scan, approximate graph)
//	palace/embed      the built-in sentence encoders and the remote provider
//	palace/redact     secret redaction
//	palace/extract    turning conversation into episodes, facts and cases
//
// # Truth and caches
//
// A palace's store (see palace/store) is its single source of truth: every
// acknowledged write is committed there before the call returns (write.go
// says how). The keyword and vector indexes are derived caches, kept in
// memory with snapshots in the palace's cache directory, rebuilt from the
// store whenever they are missing, stale or corrupt. Several processes —
// or, with PostgreSQL, several machines — may open one palace at once; each
// catches up with the others' writes from the change log's seq high-water
// mark before it searches. An erasure (erase.go) is a write like any other
// that also marks the palace: each process then drops the erased words
// and vectors from its caches and writes their snapshots again.
//
// # Imports
//
// Every face of loci (MCP tools, HTTP, CLI, hooks, dashboard) is a thin
// adapter over this package and its sub-packages. palace must never import
// server, dreamer or cmd; of loci's packages it imports only kg and its own
// sub-packages. Only the store backends talk to a database.
package palace
