package palace

import (
	"testing"
	"time"
)

// A header's clock time without a zone is a wall clock in the machine's
// zone, and the drawer keeps the instant it names, on the day it names
// there; a date without a time is noon there; a time that names its
// offset keeps it whatever the zone.
func TestHeaderTimesAreTheWritersWallClock(t *testing.T) {
	newYork := time.FixedZone("EDT", -4*3600)
	tokyo := time.FixedZone("JST", 9*3600)
	for _, c := range []struct {
		date string
		loc  *time.Location
		want string
	}{
		{"30/05/2023, 00:30", newYork, "2023-05-30T04:30:00Z"},
		{"30/05/2023, 00:30", tokyo, "2023-05-29T15:30:00Z"},
		{"30/05/2023, 00:30", time.UTC, "2023-05-30T00:30:00Z"},
		{"8 May, 2023", newYork, "2023-05-08T16:00:00Z"},
		{"8 May, 2023", tokyo, "2023-05-08T03:00:00Z"},
		{"1:56 pm on 8 May, 2023", tokyo, "2023-05-08T04:56:00Z"},
		{"2024-03-02T09:15:00+01:00", newYork, "2024-03-02T08:15:00Z"},
	} {
		got, n, ok := dateAt(c.date, OrderUnknown, c.loc)
		if !ok || n != len(c.date) || got.Format(time.RFC3339) != c.want || got.Location() != time.UTC {
			t.Errorf("%q in %s: %v (ok %v, %d bytes), want %s in UTC", c.date, c.loc, got, ok, n, c.want)
		}
	}
}
