package palace

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The answer to a text that only asks is the next other speaker's run
// after it: what the asker adds first is passed over, and the run ends at
// the asker's next text, at a third speaker, at a silence or at the
// context budget.
func TestAnswersTo(t *testing.T) {
	ctx := context.Background()
	p := newTestPalace(t)
	at := time.Date(2024, 3, 2, 10, 0, 0, 0, time.UTC)
	session := func(id string, lines ...string) []*Drawer {
		t.Helper()
		var ds []*Drawer
		for _, line := range lines {
			who, text, _ := strings.Cut(line, ": ")
			if strings.HasPrefix(who, "+") { // a day's silence before it
				who = who[1:]
				at = at.Add(24 * time.Hour)
			}
			at = at.Add(time.Minute)
			ds = append(ds, &Drawer{Kind: KindTurn, Content: text, SessionID: id, SenderIDs: []string{who}, Timestamp: at})
		}
		if err := p.AddMany(ctx, ds); err != nil {
			t.Fatal(err)
		}
		return ds
	}
	texts := func(ds []*Drawer) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Content)
		}
		return out
	}
	answers := func(d *Drawer) []string {
		t.Helper()
		got, err := p.answersTo(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return texts(got)
	}
	check := func(name string, got []string, want ...string) {
		t.Helper()
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: answers %q, want %q", name, got, want)
		}
	}

	s := session("s1",
		"Nate: Do you have a favorite superhero?",
		"Nate: Or a favorite villain?",
		"Joanna: Thanks, Nate!",
		"Joanna: Spider-Man has always been a favorite of mine.",
		"Nate: Nice.",
		"Joanna: And you?")
	check("run after the asker goes on", answers(s[0]), "Thanks, Nate!", "Spider-Man has always been a favorite of mine.")
	check("the last question of the asker", answers(s[1]), "Thanks, Nate!", "Spider-Man has always been a favorite of mine.")
	check("no answer before the session ends", answers(s[5]))

	s = session("s2",
		"Ann: Where did you go?",
		"Bob: To the coast.",
		"Cal: Me too!")
	check("a third speaker ends the run", answers(s[0]), "To the coast.")

	s = session("s3",
		"Ann: Where did you go?",
		"+Bob: Morning!")
	check("a silence ends the search", answers(s[0]))

	long := strings.Repeat("word ", 100)
	s = session("s4",
		"Ann: Which trail?",
		"Bob: "+long,
		"Bob: "+long,
		"Bob: The north one.")
	if got := answers(s[0]); len(got) != 2 {
		t.Errorf("the context budget: %d answers, want 2 (the run's first %d bytes)", len(got), turnContextBytes)
	}

	if got := answers(&Drawer{Content: "Where?", SenderIDs: []string{"Ann"}}); got != nil {
		t.Errorf("a text outside a session: answers %q, want none", got)
	}
}
