package store

import "context"

// TextSet names one kind of free text a palace keeps beside its drawers'
// own fields. Erasing for good (a purge, a scrub with the redactor's
// latest rules) has to reach every one of them, not only the drawers.
type TextSet string

// The text sets, each one table of the palace.
const (
	TextMeta          TextSet = "meta"           // the palace's description and settings
	TextEvents        TextSet = "events"         // the change log's details
	TextMessages      TextSet = "messages"       // conversation messages buffered for extraction
	TextSessionErrors TextSet = "session_errors" // the last extraction error of each session
	TextDreamRuns     TextSet = "dream_runs"     // the dreamer's run reports
	TextDreamChanges  TextSet = "dream_changes"  // what each dream change found and left
	TextClosets       TextSet = "closets"        // each room's keywords and summary
	TextTriples       TextSet = "triples"        // knowledge-graph triples and their provenance
)

// TextSets lists every text set, in the order a scrub walks them.
var TextSets = []TextSet{TextMeta, TextEvents, TextMessages, TextSessionErrors, TextDreamRuns,
	TextDreamChanges, TextClosets, TextTriples}

// TextWriter rewrites and erases the free text of a palace outside its
// drawers.
type TextWriter interface {
	// Rewrite reads up to limit rows of set whose key sorts after after
	// ("" from the first), in key order, and passes each text column to
	// fn (json says the column holds a JSON document). The rows fn
	// changed are written back. It returns the key of the last row read,
	// "" when none was left, and how many rows changed.
	Rewrite(ctx context.Context, set TextSet, after string, limit int,
		fn func(text string, json bool) (string, bool)) (last string, changed int, err error)
	// EraseDrawer removes what the palace's history keeps of a drawer:
	// the details of its events, the before and after of the dreamer's
	// changes to it (marked undone: nothing is left to restore), its undo
	// tokens, and the closet of its room (the next dream builds it
	// again). It returns how many rows it changed.
	EraseDrawer(ctx context.Context, id, room string) (int64, error)
}
