package palace

import (
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/bm25"
)

// A header that names the text's date is metadata: the vector is made,
// and the next text borrows, without it. Without a date the text is kept
// whole, since a leading group may be what it says.
func TestSaidText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"[D1:3] (8 May, 2023) Caroline: I adopted a puppy", "Caroline: I adopted a puppy"},
		{"2024-03-02 — user: the build is red again", "user: the build is red again"},
		{"[2024-03-02T09:15:00Z] deploy failed", "deploy failed"},
		{"(see the README) for details", "(see the README) for details"},
		{"[assistant] The cache is keyed by tenant.", "[assistant] The cache is keyed by tenant."},
		{"(8 May, 2023)", "(8 May, 2023)"},
		{"We ship on 8 May, 2023.", "We ship on 8 May, 2023."},
	} {
		if got := saidText(c.text); got != c.want {
			t.Errorf("saidText(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	d := &Drawer{Content: "[D1:3] (8 May, 2023) Caroline: I adopted a puppy", Keywords: "Melanie: any news?"}
	if got, want := embedText(d, nil), "Caroline: I adopted a puppy\nMelanie: any news?"; got != want {
		t.Errorf("embedText = %q, want %q", got, want)
	}
}

// A drawer is indexed with its day as one word, unless its text's header
// names its date already.
func TestDateWords(t *testing.T) {
	at := time.Date(2023, 5, 8, 23, 30, 0, 0, time.FixedZone("", -3*3600)) // 9 May in UTC
	for _, c := range []struct {
		when    time.Time
		content string
		want    string
	}{
		{at, "Caroline: I went to the support group.", "d20230509 "},
		{at, "[D1:3] (8 May, 2023) Caroline: I went to the support group.", ""},
		{at, "(see the README) for details", "d20230509 "},
		{time.Time{}, "no time at all", ""},
	} {
		if got := dateWords(c.when, c.content); got != c.want {
			t.Errorf("dateWords(%v, %q) = %q, want %q", c.when, c.content, got, c.want)
		}
	}
}

// A drawer written in a session, or stored through a connection, is
// indexed with its episode's day's word instead of its day's: one token,
// the same for the drawers of one episode and day, different for another
// episode (a session and a connection of the same id included) or another
// day of it. A drawer of neither keeps its day's word; one with no time
// gets its episode's word alone; a text whose header names its date gets
// none, as it gets no day word.
func TestEpisodeWord(t *testing.T) {
	at := time.Date(2023, 5, 8, 12, 0, 0, 0, time.UTC)
	text := "Caroline: I went to the support group."
	s1 := episode{session: "session_1"}
	a := episodeWord(at, text, s1)
	if b := episodeWord(at.Add(3*time.Hour), "other words", s1); a != b {
		t.Errorf("one session's day: %q and %q", a, b)
	}
	for _, other := range []string{
		episodeWord(at, text, episode{session: "session_2"}),
		episodeWord(at, text, episode{conn: "session_1"}),
		episodeWord(at.AddDate(0, 0, 1), text, s1),
		episodeWord(time.Time{}, text, s1),
		episodeWord(at, text, episode{}),
	} {
		if other == a {
			t.Errorf("another episode or day shares the word %q", a)
		}
	}
	if toks := bm25.AppendTokens(nil, a+"went"); len(toks) != 2 || toks[0] != strings.TrimSpace(a) || !strings.HasPrefix(a, "s") {
		t.Errorf("the episode word %q is read as %q, want one token", a, toks)
	}
	c := episode{conn: "stdio-1"}
	if x, y := episodeWord(at, text, c), episodeWord(at.Add(time.Hour), text, c); x != y || x == "" || x == a {
		t.Errorf("one connection's day: %q and %q", x, y)
	}
	if got := episodeWord(at, "[D1:3] (8 May, 2023) Caroline: I went.", c); got != "" {
		t.Errorf("a text whose header names its date: %q, want none", got)
	}
	if got := episodeWord(at, text, episode{}); got != "d20230508 " {
		t.Errorf("a drawer of no episode: %q, want its day's word", got)
	}
}
