// Package dreamlog is the dreamer's journal in a palace: the runs of
// dreamer passes, every drawer change a run made (so `loci dream undo` can
// revert it), the lease that lets one process at a time run passes on a
// palace, importance-decay bases, and the closets the dreamer refreshes.
//
// Its Tx is the write transaction of one pass: every change goes through
// it, is recorded for undo, and becomes visible only on Commit. The passes
// themselves (what to change) live in package dreamer; this package only
// records and applies their decisions, through the palace's write path.
//
// It imports palace and its store boundary, never dreamer, server or cmd.
package dreamlog
