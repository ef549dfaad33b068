// Package store is the boundary between loci's core and where a palace's
// source of truth is kept. It defines the records a palace stores — drawers,
// the change log, fact numbers and undo tokens, session buffers, the
// dreamer's journal, knowledge-graph triples (declared by package kg) — and
// the interfaces a backend implements to keep them:
//
//   - Backend finds, creates and opens palaces: a directory of SQLite files
//     (package store/sqlite, the default, one user on one machine) or one
//     PostgreSQL database holding many palaces for many loci nodes (package
//     store/postgres).
//   - Store is one open palace: readers, and Begin for a write transaction.
//   - Tx is a write transaction. Every backend serialises the write
//     transactions of one palace (SQLite's write lock; an advisory lock
//     per palace in PostgreSQL), so a change-log sequence number handed out in a
//     transaction is committed in order, and read-check-write sequences
//     inside one transaction cannot interleave with another writer's.
//
// The words the code uses:
//
//   - palace: one isolated memory space (usually one per project).
//   - drawer: one memory of any kind (a note, a conversation turn, an
//     episode, a fact, a profile, an agent case …), filed in a room. Its row
//     id (RID) is the key of the keyword index; its vector key (VecKey) is
//     the key of its current vector in the vector index, and a new vector
//     always gets a new key.
//   - room: the named area a drawer is filed in (seed 003's rooms, or
//     Custom(name)).
//   - seq: a position in the palace's change log. Every logged change gets
//     the next seq; a drawer records the seq of its latest change, so
//     "drawers with seq > n" is what a derived index must replay.
//   - closet: the dreamer's per-room summary and keyword index.
//
// What the core does above this boundary — validation, redaction,
// embedding, ranking — never reaches a backend; what a backend does — SQL,
// connections, migrations — never reaches the core or a face. Only the
// backend packages import database/sql (a test in the repository root
// enforces it). This package imports nothing of loci but kg.
//
// The conformance suite in store/storetest runs unchanged against every
// backend.
package store
