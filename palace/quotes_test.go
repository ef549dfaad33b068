package palace

import "testing"

func TestUnquoted(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"> I went to the lake on Friday\n\nsounds fun! did you swim?", "sounds fun! did you swim?"},
		{"  >I went\n>  and swam\nnice", "nice"},
		{"sounds fun\n> I went to the lake\nwhen?", "sounds fun\nwhen?"},
		// A text of quoted lines alone shares them.
		{"> To be, or not to be", "> To be, or not to be"},
		// ">" inside a line quotes nothing.
		{"3 > 2, obviously", "3 > 2, obviously"},
		{"no quote here", "no quote here"},
	} {
		if got := unquoted(c.text); got != c.want {
			t.Errorf("unquoted(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	t.Setenv("LOCI_QUOTES", "0")
	if text := "> I went\n\nnice"; unquoted(text) != text {
		t.Errorf("with LOCI_QUOTES=0 the quote was left out")
	}
}

// The lifts read a reply without what it quotes: a reply that quotes a
// statement naming a time and only asks only asks, and names no time of
// its own, so a question asking when is not lifted to it.
func TestLiftsReadAReplyWithoutItsQuote(t *testing.T) {
	d := &Drawer{Content: "Bo: > I went to the lake last Friday\n\nno way, did you swim?", SenderIDs: []string{"Bo"}}
	q := readQuestion("When did Ann go to the lake?")
	if !q.when {
		t.Fatal("the question does not ask when")
	}
	if !onlyAsks(d) {
		t.Errorf("the reply is not read as only asking")
	}
	if f, asks := q.lift(d, nil); f >= 1 || !asks {
		t.Errorf("lift %g (asks %v), want the lowering of a text that only asks", f, asks)
	}
	t.Setenv("LOCI_QUOTES", "0")
	if f, _ := q.lift(d, nil); f != whenLift {
		t.Errorf("quotes read as the reply's own: lift %g, want %g (the quote's time)", f, whenLift)
	}
}
