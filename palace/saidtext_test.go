package palace

import (
	"testing"
	"time"
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
