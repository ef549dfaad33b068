// Package dreamer runs loci's background consolidation on open palaces.
//
// A Manager keeps one goroutine per palace, shaped like litestream's Store
// (a context, its cancel func and a WaitGroup; Close is cancel then wait,
// at most ShutdownGrace). Each goroutine flushes access statistics,
// calibrates the vector index once it has been asked enough questions and
// saves its snapshot (Maintain) and, when the schedule says the
// palace is idle and due, runs the passes (Run): index maintenance,
// staleness, near-duplicate linking, agent skills, importance decay,
// closets and knowledge-graph hygiene. Each pass is a step over (palace,
// now) with an injectable clock; it plans read-only, then commits all of
// its changes in one transaction or none. No pass deletes or rewrites a
// memory's text: duplicates are linked (superseded_by), facts go stale,
// importance moves; every drawer change is recorded so Undo can revert a
// run. A lease-based lock in the palace's SQLite file keeps dreamers of
// different processes from working on one palace at once.
//
// README.md documents the passes, the schedule, the environment variables,
// the measured thresholds and the figures.
//
// dreamer imports palace and kg only; it is imported by server and cmd,
// and it never touches stdin, stdout or signals.
package dreamer
