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
	if got, want := embedText(d), "Caroline: I adopted a puppy\nMelanie: any news?"; got != want {
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

// A drawer written in a session is indexed with its session's day's word
// instead of its day's: one token, the same for the drawers of one
// session and day, different for another session or another day of the
// session. A drawer of no session keeps its day's word, and one of a
// session with no time gets the session's word alone.
func TestEpisodeWord(t *testing.T) {
	at := time.Date(2023, 5, 8, 12, 0, 0, 0, time.UTC)
	text := "Caroline: I went to the support group."
	a := episodeWord(at, text, "session_1")
	if b := episodeWord(at.Add(3*time.Hour), "other words", "session_1"); a != b {
		t.Errorf("one session's day: %q and %q", a, b)
	}
	for _, other := range []string{
		episodeWord(at, text, "session_2"),
		episodeWord(at.AddDate(0, 0, 1), text, "session_1"),
		episodeWord(time.Time{}, text, "session_1"),
		episodeWord(at, text, ""),
	} {
		if other == a {
			t.Errorf("another session or day shares the word %q", a)
		}
	}
	if toks := bm25.AppendTokens(nil, a+"went"); len(toks) != 2 || toks[0] != strings.TrimSpace(a) || !strings.HasPrefix(a, "s") {
		t.Errorf("the session word %q is read as %q, want one token", a, toks)
	}
	if got := episodeWord(time.Time{}, text, "session_1"); got != "s1504cd5dcdffb9ab " {
		t.Errorf("a session with no time: %q, want the hash of its id alone", got)
	}
	if got := episodeWord(at, text, ""); got != "d20230508 " {
		t.Errorf("a drawer of no session: %q, want its day's word", got)
	}
}
