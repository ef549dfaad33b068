package dreamer

import (
	"time"

	"github.com/loci-mem/loci/palace/dreamlog"
)

// scheduleState is what the schedule decides on.
type scheduleState struct {
	ActivitySeq int64     // newest change-log seq not written by the dreamer
	ActivityAt  time.Time // and its time (palace clock); zero when none
	HasRun      bool      // whether a run has finished before
	Run         dreamlog.Run
}

// due reports whether passes should start, and why. now is the palace's
// clock (idleness is measured on it, like the change log), wall the lock
// clock (run records use it).
//
//   - Nothing runs until the palace has been idle (no write) for idle.
//   - A palace never dreamed over is due.
//   - A write since the last run started makes it due.
//   - A run that did not complete (budget, shutdown, failure) is retried
//     once the palace has stayed idle for idle after it.
//   - Otherwise passes run again every so often (decay and staleness
//     move with time alone).
func (s scheduleState) due(now, wall time.Time, idle, every time.Duration) (bool, string) {
	if !s.ActivityAt.IsZero() && now.Sub(s.ActivityAt) < idle {
		return false, "busy"
	}
	if !s.HasRun {
		return true, "never dreamed"
	}
	if s.ActivitySeq > s.Run.SeqBefore {
		return true, "written since the last run"
	}
	since := wall.Sub(s.Run.FinishedAt)
	if s.Run.Status != dreamlog.Done {
		if since >= idle {
			return true, "last run did not complete"
		}
		return false, "retry later"
	}
	if since >= every {
		return true, "periodic"
	}
	return false, "up to date"
}
