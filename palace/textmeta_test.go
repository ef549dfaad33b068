package palace_test

import (
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

func TestReadTextMeta(t *testing.T) {
	t.Parallel()
	day := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, time.UTC) }
	for _, c := range []struct {
		text    string
		when    time.Time
		speaker string
	}{
		{"[D1:3] (8 May, 2023) Caroline: I went to the support group.", day(2023, 5, 8, 12, 0), "Caroline"},
		{"(1:56 pm on 8 May, 2023) Melanie: painted a lake", day(2023, 5, 8, 13, 56), "Melanie"},
		{"2024-03-02 — user: the build is red again", day(2024, 3, 2, 12, 0), "user"},
		{"2024-03-02T09:15: deploy failed", day(2024, 3, 2, 9, 15), ""},
		{"[assistant] The cache is keyed by tenant.", time.Time{}, "assistant"},
		{"[model] Try a partial index.", time.Time{}, "model"},
		{"May 8, 2023: Jon Snow: winter is coming", day(2023, 5, 8, 12, 0), "Jon Snow"},
		{"[March 3rd, 2022] we moved the office", day(2022, 3, 3, 12, 0), ""},
		// RFC 3339 and SQL-style stamps, with seconds and a zone.
		{"(2024-03-02T09:15:30Z) user: the build is red", day(2024, 3, 2, 9, 15).Add(30 * time.Second), "user"},
		{"[2024-03-02T09:15:00+02:00] assistant: fixed", day(2024, 3, 2, 7, 15), "assistant"},
		{"2024-03-02 09:15:07.123 - Ana: ok", day(2024, 3, 2, 9, 15).Add(7 * time.Second), "Ana"},
		// Not headers.
		{"We ship on 8 May, 2023 if the tests pass.", time.Time{}, ""},
		{"Decision: we use Postgres for the team palace", time.Time{}, ""},
		{"Note: yesterday the build broke", time.Time{}, ""},
		{"the api gateway validates JWT tokens", time.Time{}, ""},
		{"(see the README) for details", time.Time{}, ""},
		{"2023-02-31: not a day", time.Time{}, ""},
		{"(2024-03-02T09:15:61Z) no such second", time.Time{}, ""},
		{"TODO: rotate the keys", time.Time{}, ""},
		{"I think: maybe", time.Time{}, ""},
	} {
		m := palace.ReadTextMeta(c.text)
		if !m.When.Equal(c.when) || m.Speaker != c.speaker {
			t.Errorf("ReadTextMeta(%q) = %v %q, want %v %q", c.text, m.When, m.Speaker, c.when, c.speaker)
		}
	}
}
