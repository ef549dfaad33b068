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

// A drawer's day, which its episode and day words name, is its day in the
// machine's zone: an evening's conversation in New York, which runs past
// midnight UTC, is one episode, and the next morning another.
func TestDaysAreTheMachinesDays(t *testing.T) {
	newYork := time.FixedZone("EDT", -4*3600)
	old := dayZone
	dayZone = func() *time.Location { return newYork }
	defer func() { dayZone = old }()
	ep := episode{session: "whatsapp:Ana"}
	evening := time.Date(2023, 5, 29, 22, 30, 0, 0, time.UTC) // 18:30 in New York
	late := time.Date(2023, 5, 30, 1, 30, 0, 0, time.UTC)     // 21:30 there, the same evening
	morning := time.Date(2023, 5, 30, 13, 0, 0, 0, time.UTC)  // 09:00 there, the next day
	if ep.word(evening) != ep.word(late) || ep.word(late) == ep.word(morning) {
		t.Errorf("episode words %q %q %q; want the evening's two alike and the morning's another", ep.word(evening), ep.word(late), ep.word(morning))
	}
	if a, b := dateWords(evening, "we met"), dateWords(late, "we met"); a != "d20230529 " || b != a {
		t.Errorf("day words %q %q, want both d20230529", a, b)
	}
}

// The keyword snapshot is named for the zone its days were drawn in: none
// for UTC, and zones that draw other days by other names.
func TestSnapshotNamesItsZone(t *testing.T) {
	newYork := time.FixedZone("EST", -5*3600)
	tokyo := time.FixedZone("JST", 9*3600)
	if zoneTagOf(time.UTC) != "" || zoneTagOf(time.FixedZone("GMT", 0)) != "" {
		t.Errorf("UTC is tagged %q", zoneTagOf(time.UTC))
	}
	if a, b := zoneTagOf(newYork), zoneTagOf(tokyo); a == "" || b == "" || a == b {
		t.Errorf("New York %q, Tokyo %q; want two tags", a, b)
	}
}
