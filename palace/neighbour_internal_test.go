package palace

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// The texts a hit lifts: on each side the next text, and while that text
// is the hit's speaker's, the one after it, as far as another speaker's
// text, the context budget of the run or a silence; each step a further
// neighbourLift of the share.
func TestNeighboursFollowTheHitsRun(t *testing.T) {
	p := newTestPalace(t)
	ctx := context.Background()
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	at := 0
	say := func(session, who, text string, after time.Duration) *Drawer {
		t.Helper()
		at++
		d := &Drawer{Content: text, Kind: KindTurn, SessionID: session, SenderIDs: []string{who},
			Timestamp: t0.Add(time.Duration(at)*time.Minute + after)}
		if who == "" {
			d.SenderIDs = nil
		}
		if err := p.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	type want struct {
		text string
		lift float64
	}
	least := 0.0
	check := func(name string, hit *Drawer, wants []want) {
		t.Helper()
		got, err := p.neighbours(ctx, hit, least)
		if err != nil {
			t.Fatal(err)
		}
		ok := len(got) == len(wants)
		for i := 0; ok && i < len(got); i++ {
			ok = got[i].d.Content == wants[i].text && math.Abs(got[i].lift-wants[i].lift) < 1e-12
		}
		if !ok {
			var b strings.Builder
			for _, n := range got {
				fmt.Fprintf(&b, "\n  %.3f %.40q", n.lift, n.d.Content)
			}
			t.Errorf("%s: got%s\nwant %v", name, b.String(), wants)
		}
	}
	l1, l2, l3 := neighbourLift, neighbourLift*neighbourLift, neighbourLift*neighbourLift*neighbourLift

	// A run of messages: the lift goes on through the hit's run and one
	// text beyond it, on both sides.
	say("run", "bo", "how was the weekend?", 0)
	say("run", "ann", "so", 0)
	say("run", "ann", "guess what", 0)
	hit := say("run", "ann", "we adopted a puppy", 0)
	say("run", "ann", "a beagle", 0)
	say("run", "bo", "no way!", 0)
	say("run", "bo", "name?", 0)
	check("a run", hit, []want{{"guess what", l1}, {"so", l2}, {"how was the weekend?", l3},
		{"a beagle", l1}, {"no way!", l2}})
	// A share that could not reach the results is not read.
	least = l2
	check("a run, down to 0.6²", hit, []want{{"guess what", l1}, {"so", l2}, {"a beagle", l1}, {"no way!", l2}})
	least = l1 + 0.01
	check("a run, above 0.6", hit, nil)
	least = 0

	// Speakers taking turns: one text on each side.
	say("turns", "bo", "one", 0)
	say("turns", "ann", "two", 0)
	hit = say("turns", "bo", "three", 0)
	say("turns", "ann", "four", 0)
	say("turns", "bo", "five", 0)
	check("turns", hit, []want{{"two", l1}, {"four", l1}})

	// No speaker: one text on each side.
	say("anon", "", "first", 0)
	hit = say("anon", "", "second", 0)
	say("anon", "", "third", 0)
	say("anon", "", "fourth", 0)
	check("no speaker", hit, []want{{"first", l1}, {"third", l1}})

	// The run's budget: a long message ends it.
	long := strings.Repeat("word ", turnContextBytes/5) + "end"
	hit = say("long", "ann", "start", 0)
	say("long", "ann", long, 0)
	say("long", "ann", "past the budget", 0)
	check("the budget", hit, []want{{long, l1}})

	// A silence ends a side.
	hit = say("quiet", "ann", "before the silence", 0)
	say("quiet", "ann", "just after", 0)
	say("quiet", "ann", "hours later", 3*time.Hour)
	check("a silence", hit, []want{{"just after", l1}})
}

// In a chat of two conversations at once, a reply that names the message
// it answers lifts that message in place of the text before it, and a
// hit's next text that answers another message is another conversation's:
// the walk passes it and lifts the reply to the hit after it.
func TestNeighboursFollowReplies(t *testing.T) {
	p := newTestPalace(t)
	ctx := context.Background()
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	var ds []*Drawer
	say := func(who, text string, answers *Drawer) *Drawer {
		t.Helper()
		d := &Drawer{Content: who + ": " + text, Kind: KindTurn, SessionID: "group", SenderIDs: []string{who},
			Timestamp: t0.Add(time.Duration(len(ds)) * time.Minute)}
		if answers != nil {
			d.Meta = map[string]any{MetaReplyTo: answers.ID}
		}
		if err := p.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
		return d
	}
	rope := say("Ana", "who brings the rope on Saturday?", nil)
	game := say("Cy", "anyone watch the game?", nil)
	me := say("Ben", "me, the 60m one", rope)
	say("Dee", "only the second half", game)
	thanks := say("Ana", "perfect, thanks", me)
	lifted := func(hit *Drawer) []string {
		t.Helper()
		got, err := p.neighbours(ctx, hit, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range got {
			out = append(out, fmt.Sprintf("%s %.1f", n.d.Content, n.lift))
		}
		return out
	}
	if got, want := lifted(me), []string{"Ana: who brings the rope on Saturday? 0.6", "Ana: perfect, thanks 0.6"}; !slices.Equal(got, want) {
		t.Errorf("the reply lifts %q, want %q", got, want)
	}
	if got, want := lifted(thanks), []string{"Ben: me, the 60m one 0.6"}; !slices.Equal(got, want) {
		t.Errorf("the last reply lifts %q, want %q", got, want)
	}
	t.Setenv("LOCI_REPLIES", "0")
	if got, want := lifted(me), []string{"Cy: anyone watch the game? 0.6", "Dee: only the second half 0.6"}; !slices.Equal(got, want) {
		t.Errorf("replies read as plain messages: the reply lifts %q, want %q", got, want)
	}
}
