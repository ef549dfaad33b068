// Package facts holds a palace's facts and their review queue: seed 004's
// Engram memories (remember, recall, memory://recall, the review CLI) and
// seed 000's mem_save_fact.
//
// Facts are durable statements about the user (seed 004's Engram memories
// and seed 000's mem_save_fact). Each is a drawer of palace.KindFact whose status
// walks the review queue:
//
//	pending  --approve-->  active  --horizon passes-->  stale
//	pending  --reject--->  rejected
//	active   --a conflicting fact is approved-->  superseded (SupersededBy = its drawer)
//	any      --forget--->  deleted
//
// Reject and forget hand out undo tokens (palace.Palace.Undo reverts
// them). Fact-specific fields live in the drawer's meta under the Meta*
// keys; the dreamer's staleness pass reads exactly these. Engram numbers
// ("mem-0042") are allocated per palace in the same transaction as the
// fact's drawer and never reused.
//
// It imports palace, never server, dreamer or cmd.
package facts
