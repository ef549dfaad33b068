package palace_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

// A question that asks when lifts the candidates that name a time: the
// turn that says when the move happened outranks turns that share more of
// the question's words but name no time; without the lift (LOCI_WHEN=0)
// they stay ahead of it.
func TestWhenQuestionsFavourTextsThatNameATime(t *testing.T) {
	p := MustOpenPalace(t)
	turn := conversation(t, p)
	answer := turn("", "ann", "We finally moved into the new house last spring.")
	for i := range 6 {
		turn("", "ann", fmt.Sprintf("Audrey loves the new house and its big garden, room %d", i))
	}
	rank := func() int { return rankOf(t, p, "When did Audrey move into the new house?", answer.ID) }
	if r := rank(); r != 1 {
		t.Fatalf("the turn naming a time is at rank %d, want 1", r)
	}
	t.Setenv("LOCI_WHEN", "0")
	if r := rank(); r == 1 {
		t.Fatalf("without the lift the turn naming a time is still first: the test shows nothing")
	}
}

// A question that names a speaker lifts what that speaker said: Melanie's
// own words about her evenings outrank a friend's remark about Melanie's
// evenings; without the lift (LOCI_SPEAKER=0) the remark stays ahead.
func TestQuestionsNamingASpeakerFavourTheirWords(t *testing.T) {
	p := MustOpenPalace(t)
	turn := conversation(t, p)
	own := turn("", "Melanie", "In the evenings I paint landscapes to relax after work.")
	turn("", "Caroline", "Melanie, your evenings sound busy. Do you ever relax after work?")
	for i := range 6 {
		turn("", "Caroline", fmt.Sprintf("The gallery downtown shows landscapes, hall %d", i))
	}
	rank := func() int { return rankOf(t, p, "What does Melanie do in the evenings to relax?", own.ID) }
	if r := rank(); r != 1 {
		t.Fatalf("Melanie's own turn is at rank %d, want 1", r)
	}
	t.Setenv("LOCI_SPEAKER", "0")
	if r := rank(); r == 1 {
		t.Fatalf("without the lift Melanie's own turn is still first: the test shows nothing")
	}
}

// A question in the first person asks for what the user said, where turns
// are recorded by chat role: the user's own words outrank the assistant's
// question about the same evenings; without the lift they do not.
func TestFirstPersonQuestionsFavourTheUsersWords(t *testing.T) {
	p := MustOpenPalace(t)
	turn := conversation(t, p)
	own := turn("", "user", "user: In the evenings I paint landscapes to relax after work.")
	turn("", "assistant", "assistant: Your evenings sound busy. Do you ever relax in the evenings after work?")
	for i := range 6 {
		turn("", "assistant", fmt.Sprintf("assistant: The gallery downtown shows landscapes, hall %d", i))
	}
	rank := func() int { return rankOf(t, p, "What do I do in the evenings to relax?", own.ID) }
	if r := rank(); r != 1 {
		t.Fatalf("the user's own turn is at rank %d, want 1", r)
	}
	t.Setenv("LOCI_SPEAKER", "0")
	if r := rank(); r == 1 {
		t.Fatalf("without the lift the user's own turn is still first: the test shows nothing")
	}
}

// A text that only asks states nothing: the answer to "What superhero is
// a favorite?" is the turn that names one, not the turn that asks for
// one, though the asking turn holds more of the question's words; without
// the lift (LOCI_ASKS=0) the asking turn stays ahead. A question typed
// without its question mark, as chat messages often are, asks by its
// form.
func TestTextsThatOnlyAskGiveWayToAnswers(t *testing.T) {
	for _, asking := range []string{"Do you have a favorite superhero?", "do you have a favorite superhero"} {
		t.Run(asking, func(t *testing.T) {
			p := MustOpenPalace(t)
			turn := conversation(t, p)
			turn("", "Nate", asking)
			answer := turn("", "Joanna", "Spider-Man has always been a favorite of mine.")
			for i := range 6 {
				turn("", "Nate", fmt.Sprintf("The comic shop downtown restocked its shelves, aisle %d", i))
			}
			rank := func() int { return rankOf(t, p, "What superhero is a favorite?", answer.ID) }
			if r := rank(); r != 1 {
				t.Fatalf("the answer is at rank %d, want 1", r)
			}
			t.Setenv("LOCI_ASKS", "0")
			if r := rank(); r == 1 {
				t.Fatalf("without the lift the answer is still first: the test shows nothing")
			}
		})
	}
}

// The answer to a question that matched rises with it: Joanna's reply
// shares no word with "Which superhero does she love?" but answers the
// turn that asks it. The asking turn is among the best matches and is
// lowered for only asking; its answer takes a share of the score it had
// and stands above it and above turns that say both words. Without the
// lifts (LOCI_ASKS=0) the reply, which matches nothing itself, is below
// its question.
func TestAnswersRiseWithTheirQuestion(t *testing.T) {
	p := MustOpenPalace(t)
	turn := conversation(t, p)
	question := turn("s1", "Nate", "Which superhero do you love?")
	// Too long to borrow its question's words (turnContextBytes): it is
	// found by nothing of its own.
	answer := turn("s1", "Joanna", "Spider-Man, for sure. "+strings.Repeat("Peter Parker is a student by day, always short of money "+
		"and late for everything, who still shows up for his neighbours in Queens every night. ", 5))
	for i := range 12 {
		turn("", "Nate", "We love superhero films"+strings.Repeat(" at the cinema", i))
	}
	const query = "Which superhero does she love?"
	rq, ra := rankIn(t, p, query, 16, question.ID), rankIn(t, p, query, 16, answer.ID)
	if ra == 0 || ra > 10 || ra > rq {
		t.Fatalf("the answer is at rank %d and its question at %d; want the answer in the first ten, above the question", ra, rq)
	}
	t.Setenv("LOCI_ASKS", "0")
	if rq, ra := rankIn(t, p, query, 16, question.ID), rankIn(t, p, query, 16, answer.ID); ra < rq {
		t.Fatalf("without the lifts the question is at rank %d and the answer at %d: the test shows nothing", rq, ra)
	}
}

// conversation returns a function that writes turns into p a minute
// apart; a turn written with no session is a session of its own.
func conversation(t *testing.T, p *palace.Palace) func(session, sender, text string) *palace.Drawer {
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	n := 0
	return func(session, sender, text string) *palace.Drawer {
		n++
		if session == "" {
			session = fmt.Sprintf("s%d", n)
		}
		return mustAdd(t, p, &palace.Drawer{Content: text, Kind: palace.KindTurn, SessionID: session,
			Timestamp: t0.Add(time.Duration(n) * time.Minute), SenderIDs: []string{sender}})
	}
}

// rankOf is the 1-based rank of drawer id among the ten results for
// query (0: absent).
func rankOf(t *testing.T, p *palace.Palace, query, id string) int {
	t.Helper()
	return rankIn(t, p, query, 10, id)
}

// A text that only reacts gives way: the reply "Wow, Melanie! That's so
// cool!" borrows the painting it answers and ranks by it; with the lift
// it scores half of what it scores without it (LOCI_REACTS=0), against
// the turn it answers, which stays first.
func TestTextsThatOnlyReactGiveWay(t *testing.T) {
	p := MustOpenPalace(t)
	turn := conversation(t, p)
	first := turn("s1", "Melanie", "I painted a sunset over the lake last weekend.")
	reaction := turn("s1", "Caroline", "Wow, Melanie! That's so cool!")
	for i := range 6 {
		turn("", "Caroline", fmt.Sprintf("The bakery on Main Street sells rye bread, loaf %d", i))
	}
	share := func() float64 {
		t.Helper()
		hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "What did Melanie paint at the lake?", K: 5, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) < 2 || hits[0].Drawer.ID != first.ID {
			t.Fatalf("the painting is not first: %+v", hits)
		}
		for _, h := range hits {
			if h.Drawer.ID == reaction.ID {
				return h.Score / hits[0].Score
			}
		}
		return 0
	}
	with := share()
	t.Setenv("LOCI_REACTS", "0")
	without := share()
	if without == 0 || math.Abs(with-without/2) > 1e-9 {
		t.Fatalf("the reaction scores %.4f of the painting, and %.4f without the lift; want half", with, without)
	}
}
