// Package kg is loci's temporal knowledge graph: subject–predicate–object
// triples with a validity interval, kept in the palace's store beside the
// drawers (kg declares the Storage it needs; every store backend — SQLite,
// PostgreSQL — implements it). A palace reaches its graph through
// palace.Palace.KG, which redacts what the graph stores.
//
// It backs seed 003's kg_assert and kg_query tools and everything built on
// them: point-in-time queries (AsOf), full history, retraction, reverse
// lookups, the dashboard's subject browser, and the dreamer's hygiene passes
// (MergeDuplicates, Churn).
//
// # Model
//
// A (subject, predicate) pair has at most one active triple (valid_to NULL).
// Asserting a new object closes the active one at the new triple's
// valid_from, so a pair's history is a chain of half-open intervals
// [valid_from, valid_to). Asserting the object that is already active is a
// no-op that returns the active triple unchanged: re-stating a fact does not
// fragment its history. Writes run in one transaction each, and Storage
// serialises the writers of a graph (across processes, and across machines
// with PostgreSQL), which keeps the one-active-triple invariant.
//
// Subjects, predicates and objects are trimmed of surrounding white space and
// otherwise compared byte for byte (case-sensitive, no Unicode
// normalisation). Times are stored as fixed-width RFC 3339 UTC text with
// nanoseconds, so they sort correctly as strings.
//
// # Dependencies
//
// kg owns no schema and opens no database: the store backend does both.
//
// kg must import nothing of loci (no palace, dreamer, server or cmd package):
// only the standard library. Faces translate its errors (ErrInvalid,
// ErrNotFound) into their own contracts at the edge.
package kg
