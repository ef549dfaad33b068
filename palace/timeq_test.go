package palace_test

import (
	"context"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

func TestParseTimeRange(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 15, 4, 0, 0, time.UTC) // a Sunday
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		q        string
		from, to time.Time
	}{
		{"what did we decide in 2023?", d(2023, 1, 1), d(2024, 1, 1)},
		{"notes from May 2024", d(2024, 5, 1), d(2024, 6, 1)},
		{"what happened last May", d(2026, 5, 1), d(2026, 6, 1)},
		{"anything last December?", d(2025, 12, 1), d(2026, 1, 1)},
		{"what did I say yesterday", d(2026, 11, 21), d(2026, 11, 22)},
		{"todo items from today", d(2026, 11, 22), d(2026, 11, 23)},
		{"what did we ship last week", d(2026, 11, 9), d(2026, 11, 16)},
		{"this month's incidents", d(2026, 11, 1), d(2026, 12, 1)},
		{"goals for last year", d(2025, 1, 1), d(2026, 1, 1)},
		{"the bug from 3 days ago", d(2026, 11, 18), d(2026, 11, 20)},
		{"What was James doing on March 16, 2022?", d(2022, 3, 16), d(2022, 3, 19)},
		{"notes of 16 March 2022", d(2022, 3, 16), d(2022, 3, 19)},
		{"the 3rd of Sept. 2024 release", d(2024, 9, 3), d(2024, 9, 6)},
		{"the deploy of 2025-02-28", d(2025, 2, 28), d(2025, 3, 3)},
		{"what did we decide on May 5", d(2026, 5, 5), d(2026, 5, 8)},
		{"what happened December 24th", d(2025, 12, 24), d(2025, 12, 27)},
		{"by the 1st of March", d(2026, 3, 1), d(2026, 3, 4)},
		{"what did we decide on Friday?", d(2026, 11, 20), d(2026, 11, 23)},
		{"the bug from last Sunday", d(2026, 11, 15), d(2026, 11, 18)},
		{"standup last Monday", d(2026, 11, 16), d(2026, 11, 19)},
		{"photos from last weekend", d(2026, 11, 14), d(2026, 11, 18)},
		{"what did sam do on 7/31/2023", d(2023, 7, 31), d(2023, 8, 3)},
		{"what did sam do on 31/07/2023", d(2023, 7, 31), d(2023, 8, 3)},
		{"minutes of 31.07.2023", d(2023, 7, 31), d(2023, 8, 3)},
		{"minutes of 4.7.2023", d(2023, 7, 4), d(2023, 7, 7)}, // a dot is day first
		{"the call on 12/25/23", d(2023, 12, 25), d(2023, 12, 28)},
		{"what did we discuss on 11/14", d(2026, 11, 14), d(2026, 11, 17)},
		{"what did we discuss on 11/28", d(2025, 11, 28), d(2025, 12, 1)}, // not after today
		{"what did I eat last night", d(2026, 11, 21), d(2026, 11, 22)},
		{"the call this morning", d(2026, 11, 22), d(2026, 11, 23)},
		{"what did we decide earlier today", d(2026, 11, 22), d(2026, 11, 23)},
		{"the bug I hit the other day", d(2026, 11, 8), d(2026, 11, 21)},
		{"the talk a couple of weeks ago", d(2026, 11, 4), d(2026, 11, 12)},
		{"the talk a few days ago", d(2026, 11, 18), d(2026, 11, 20)},
		{"the trip several months back", d(2026, 8, 6), d(2026, 9, 7)},
		{"the move ten years ago", time.Date(2016, 11, 22, 0, 0, 0, 0, time.UTC).Add(-183 * 24 * time.Hour), time.Date(2016, 11, 22, 0, 0, 0, 0, time.UTC).Add(183 * 24 * time.Hour)},
	}
	for _, c := range cases {
		r, ok := palace.ParseTimeRange(c.q, now)
		if !ok || !r.From.Equal(c.from) || !r.To.Equal(c.to) {
			t.Errorf("ParseTimeRange(%q) = [%v, %v) %v, want [%v, %v)", c.q, r.From, r.To, ok, c.from, c.to)
		}
	}
	for _, q := range []string{"how does the gateway validate tokens", "may I ask about the 2023-style config", "port 2023",
		"may 5 people join the call", "what was on April 31, 2022", "the march 3 plan", "build 2022-13-45",
		"do we deploy fridays?", "the weekend rota",
		"what did we do on 03/04/2023", // its order does not show
		"bump to 1.2.10", "add 3/4 of the flour", "call 555-12-34", "on 31/31/2023", "on 2/30/2023",
		"I will be back in a few days", "a few weeks of work", "put it back"} {
		if r, ok := palace.ParseTimeRange(q, now); ok {
			t.Errorf("ParseTimeRange(%q) = %+v, want no time", q, r)
		}
	}
}

// TestTimeAwareRecall: a query naming a time lifts the memory from that
// time above an equally relevant one from another time.
func TestTimeAwareRecall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, err := reg.Create(ctx, "timed", "")
	if err != nil {
		t.Fatal(err)
	}
	may := &palace.Drawer{Content: "Planning meeting: we agreed to migrate billing to the new queue", Timestamp: time.Date(2026, 5, 12, 10, 0, 0, 0, time.UTC)}
	sept := &palace.Drawer{Content: "Planning meeting: we agreed to migrate search to the new cluster", Timestamp: time.Date(2026, 9, 3, 10, 0, 0, 0, time.UTC)}
	if err := p.AddMany(ctx, []*palace.Drawer{sept, may}); err != nil {
		t.Fatal(err)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "what did the planning meeting agree last May", K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Drawer.ID != may.ID || !hits[0].InTimeRange || hits[1].InTimeRange {
		t.Fatalf("time-aware ranking: %+v", hitContents(hits))
	}
	hits, err = p.Search(ctx, palace.SearchRequest{Query: "what did the planning meeting agree in September 2026", K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if hits[0].Drawer.ID != sept.ID {
		t.Fatalf("September query ranked %v first", hits[0].Drawer.Content)
	}
}
