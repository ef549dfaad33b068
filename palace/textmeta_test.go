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
		{"human: which index?", time.Time{}, "human"},
		{"gpt: a partial one", time.Time{}, "gpt"},
		{"(8 May, 2023) Speaker 2: the lease is signed", day(2023, 5, 8, 12, 0), "Speaker 2"},
		{"Mike_T: on my way", time.Time{}, "Mike_T"},
		// A contact's name with the emoji it ends with.
		{"[D1:3] (8 May, 2023) Jess 🌸: the flat is ours", day(2023, 5, 8, 12, 0), "Jess 🌸"},
		{"[30/05/2023, 13:53:12] Mom ❤️: call me", day(2023, 5, 30, 13, 53).Add(12 * time.Second), "Mom ❤️"},
		{"Ana Souza👩🏽‍💻: merged", time.Time{}, "Ana Souza👩🏽‍💻"},
		{"May 8, 2023: Jon Snow: winter is coming", day(2023, 5, 8, 12, 0), "Jon Snow"},
		// Names with particles in lower case, and a phone number as an
		// export names a sender who is not a contact (after a header only).
		{"[D1:3] (8 May, 2023) Maria del Carmen: the flat is ours", day(2023, 5, 8, 12, 0), "Maria del Carmen"},
		{"Ludwig van Beethoven: da da da dum", time.Time{}, "Ludwig van Beethoven"},
		{"30/05/2023, 13:53 - +44 7700 900123: running late", day(2023, 5, 30, 13, 53), "+44 7700 900123"},
		{"[5/30/23, 1:53 PM] +1 (555) 010-4477: on my way", day(2023, 5, 30, 13, 53), "+1 (555) 010-4477"},
		{"+44 7700 900123: no header, no speaker", time.Time{}, ""},
		{"Café in town: closed on Mondays", time.Time{}, ""},
		{"[March 3rd, 2022] we moved the office", day(2022, 3, 3, 12, 0), ""},
		// RFC 3339 and SQL-style stamps, with seconds and a zone.
		{"(2024-03-02T09:15:30Z) user: the build is red", day(2024, 3, 2, 9, 15).Add(30 * time.Second), "user"},
		{"[2024-03-02T09:15:00+02:00] assistant: fixed", day(2024, 3, 2, 7, 15), "assistant"},
		{"2024-03-02 09:15:07.123 - Ana: ok", day(2024, 3, 2, 9, 15).Add(7 * time.Second), "Ana"},
		// Chat exports, mail and JavaScript stamps, LongMemEval's sessions.
		{"2023/05/30 (Tue) 13:53 user: I adopted a greyhound", day(2023, 5, 30, 13, 53), "user"},
		{"[2023/05/30 (Tue) 13:53] assistant: congratulations", day(2023, 5, 30, 13, 53), "assistant"},
		{"(2023/05/30 (Tue) 13:53) user: a group may hold another", day(2023, 5, 30, 13, 53), "user"},
		{"[30/05/2023, 13:53:12] Ana: the flat is ours", day(2023, 5, 30, 13, 53).Add(12 * time.Second), "Ana"},
		{"5/30/23, 1:53 PM - Ana: we signed", day(2023, 5, 30, 13, 53), "Ana"},
		{"(Mon, 02 Mar 2024 09:15:00 +0100) Bo: the lease", day(2024, 3, 2, 8, 15), "Bo"},
		{"Tue May 30 2023 13:53:00 GMT+0000: Bo: moved", day(2023, 5, 30, 13, 53), "Bo"},
		{"Monday, May 8, 2023 at 1:56 pm — Jon: the studio opened", day(2023, 5, 8, 13, 56), "Jon"},
		{"2 March 2024, 09:15 | user: the build is red", day(2024, 3, 2, 9, 15), "user"},
		{"08.05.2023: Ana: packed", day(2023, 5, 8, 12, 0), "Ana"},
		{"2024-03-02 09:15:00 UTC - Ana: ok", day(2024, 3, 2, 9, 15), "Ana"},
		// After a header, a user name in lower case or a name in a script
		// without case, as chat exports write them; without one, a word
		// in lower case before a colon names no one.
		{"[D1:3] (8 May, 2023) jenny_k: I went to the support group", day(2023, 5, 8, 12, 0), "jenny_k"},
		{"[30/05/2023, 13:53:12] ana: the flat is ours", day(2023, 5, 30, 13, 53).Add(12 * time.Second), "ana"},
		{"(8 May, 2023) 李明: 我们周二部署", day(2023, 5, 8, 12, 0), "李明"},
		{"[2024-03-02] note: the build is red", day(2024, 3, 2, 12, 0), ""},
		{"sam: on my way", time.Time{}, ""},
		{"[D4:2] (8 May, 2023) A: the flat is ours", day(2023, 5, 8, 12, 0), "A"},
		{"A: make deploy", time.Time{}, ""},
		// A numeric date whose order it does not show is no date alone.
		{"[03/04/2023] Ana: the flat is ours", time.Time{}, "Ana"},
		// Not headers.
		{"3/4 of the team voted for Postgres", time.Time{}, ""},
		{"10.0.0.1: refused the connection", time.Time{}, ""},
		{"Wednesday 8 May 2023 is too specific: keep it", time.Time{}, ""},
		{"Wedding 8 May 2023: the venue", time.Time{}, ""},
		{"2023-05-08 10:30am standup moved", time.Time{}, ""},
		{"(13:75 on 8 May, 2023) no such minute", time.Time{}, ""},
		{"We ship on 8 May, 2023 if the tests pass.", time.Time{}, ""},
		{"Decision: we use Postgres for the team palace", time.Time{}, ""},
		{"Note: yesterday the build broke", time.Time{}, ""},
		{"the api gateway validates JWT tokens", time.Time{}, ""},
		{"(see the README) for details", time.Time{}, ""},
		{"2023-02-31: not a day", time.Time{}, ""},
		{"(2024-03-02T09:15:61Z) no such second", time.Time{}, ""},
		{"TODO: rotate the keys", time.Time{}, ""},
		{"Monday: standup moved to 10", time.Time{}, ""},
		{"Tomorrow: ship the release", time.Time{}, ""},
		{"I think: maybe", time.Time{}, ""},
	} {
		m := palace.ReadTextMeta(c.text)
		if !m.When.Equal(c.when) || m.Speaker != c.speaker {
			t.Errorf("ReadTextMeta(%q) = %v %q, want %v %q", c.text, m.When, m.Speaker, c.when, c.speaker)
		}
	}
}
