package claudecode

import (
	"fmt"
	"time"
)

// RelativeAge says how long before now t was, in the coarsest unit that
// still reads naturally: "just now", "5 minutes ago", "3 hours ago",
// "yesterday", "4 days ago", "2 weeks ago", "3 months ago", "2 years ago".
// A time in the future (clock skew between machines) reads "just now".
func RelativeAge(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour")
	case d < 48*time.Hour:
		return "yesterday"
	}
	days := int(d / (24 * time.Hour))
	switch {
	case days < 14:
		return plural(days, "day")
	case days < 60:
		return plural(days/7, "week")
	case days < 365:
		return plural(days/30, "month")
	}
	return plural(days/365, "year")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit + " ago"
	}
	return fmt.Sprintf("%d %ss ago", n, unit)
}
