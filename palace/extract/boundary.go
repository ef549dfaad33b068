package extract

import (
	"context"
	"time"
)

// BoundaryDetector decides where one stretch of conversation ends and the
// next begins. An Extractor may implement it too (the LLM extractor does);
// the session buffer then asks it before falling back to Boundaries.
type BoundaryDetector interface {
	// Boundary reports whether next starts a new stretch after the
	// buffered messages of the open stretch (oldest first, never empty).
	Boundary(ctx context.Context, buffered []Message, next Message) (bool, error)
}

// Boundaries is the default, heuristic boundary detector.
type Boundaries struct {
	// MaxGap: a message arriving more than MaxGap after the previous one
	// starts a new stretch.
	MaxGap time.Duration
	// MaxMessages and MaxBytes cap a stretch: reaching either closes it
	// (the message that reaches the cap is its last).
	MaxMessages int
	MaxBytes    int
}

// DefaultBoundaries: a calendar-day change (in the timestamps' own time
// zone), a gap of more than two hours, 50 messages or 32 KiB of text.
var DefaultBoundaries = Boundaries{MaxGap: 2 * time.Hour, MaxMessages: 50, MaxBytes: 32 << 10}

// Starts reports whether next begins a new stretch after last: its
// calendar day (in last's time zone) differs, or it comes more than MaxGap
// later. Messages with zero timestamps never start a stretch by time.
func (b Boundaries) Starts(last, next Message) bool {
	if last.Timestamp.IsZero() || next.Timestamp.IsZero() {
		return false
	}
	lt := last.Timestamp
	nt := next.Timestamp.In(lt.Location())
	ly, lm, ld := lt.Date()
	ny, nm, nd := nt.Date()
	if ny != ly || nm != lm || nd != ld {
		return nt.After(lt) // a day change forwards; out-of-order stays
	}
	return b.MaxGap > 0 && nt.Sub(lt) > b.MaxGap
}

// Full reports whether a stretch of n messages totalling size bytes of
// text has reached a cap.
func (b Boundaries) Full(n, size int) bool {
	return (b.MaxMessages > 0 && n >= b.MaxMessages) || (b.MaxBytes > 0 && size >= b.MaxBytes)
}

// Size is the number of text bytes a message counts for against MaxBytes.
func Size(m Message) int {
	n := len(m.Text)
	for _, tc := range m.ToolCalls {
		n += len(tc.Name) + len(tc.Arguments)
	}
	return n
}
