package httpapi

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // LOCI_TIMEZONE works without a system zone database

	"github.com/loci-mem/loci/palace"
)

// Timestamps (seed 001): epoch milliseconds in, with values below 10^12
// read as seconds; ISO-8601 with an explicit offset out, rendered in the
// display time zone (LOCI_TIMEZONE, default UTC, shown as "Z"). A filter's
// ISO string without an offset is read in the display time zone.

// fromEpoch reads an epoch number as ms, or as seconds below 10^12
// (palace.Epoch), in loc.
func fromEpoch(n int64, loc *time.Location) time.Time {
	return palace.Epoch(n).In(loc)
}

// formatTime renders t in loc: RFC 3339 with "Z" for UTC or "+HH:MM",
// fractional seconds only when present.
func formatTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(time.RFC3339Nano)
}

// formatErrorTime renders an error envelope's timestamp the way seed 001
// shows it: "+00:00" rather than "Z".
func formatErrorTime(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02T15:04:05-07:00")
}

var isoLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
}

var naiveLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseISO reads an ISO-8601 timestamp; one without an offset is taken
// as local time in loc.
func parseISO(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range isoLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	for _, l := range naiveLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO-8601 timestamp", s)
}

// LoadLocation resolves LOCI_TIMEZONE's value ("" is UTC).
func LoadLocation(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, "UTC") || name == "Z" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("LOCI_TIMEZONE %q: %w", name, err)
	}
	return loc, nil
}
