package palace_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

// A strong hit lifts the turns on either side of it in its session: the
// turn that announced the news ranks among the ten results for the news
// itself, though it shares no word with the query; without the lift
// (LOCI_NEIGHBOUR=0) fourteen drawers that do share a word push it out.
func TestNeighboursOfStrongHitsRise(t *testing.T) {
	p, before, _, after := puppyNews(t, 1)
	got := puppyResults(t, p)
	if !got[before.ID] || !got[after.ID] {
		t.Fatalf("the turns beside the hit did not rise into the top 10: %v", got)
	}
	t.Setenv("LOCI_NEIGHBOUR", "0")
	if got := puppyResults(t, p); got[before.ID] {
		t.Fatalf("without the lift the announcing turn is still in the top 10: the test shows nothing")
	}
}

// A turn that a silence of episodeSilence or more parts from a strong hit
// (the announcement two hours before the news) is another episode of the
// session, and the hit does not lift it; the turn just after still rises.
func TestNoNeighbourAcrossASilence(t *testing.T) {
	p, before, _, after := puppyNews(t, 120)
	got := puppyResults(t, p)
	if !got[after.ID] {
		t.Fatalf("the turn after the hit did not rise into the top 10: %v", got)
	}
	if got[before.ID] {
		t.Errorf("a turn said two hours before the hit rose with it")
	}
}

// puppyNews is a palace where one session announces news, then gives it
// gap minutes later ("We adopted a beagle puppy…", the hit for
// puppyResults' query) and goes on a minute after, among fourteen other
// sessions' turns that share "puppy" with the query.
func puppyNews(t *testing.T, gap int) (p *palace.Palace, before, hit, after *palace.Drawer) {
	p = MustOpenPalace(t)
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	turn := func(session, text string, min int) *palace.Drawer {
		return mustAdd(t, p, &palace.Drawer{Content: text, Kind: palace.KindTurn, SessionID: session,
			Timestamp: t0.Add(time.Duration(min) * time.Minute), SenderIDs: []string{"ann"}})
	}
	before = turn("s1", "Guess what happened on Saturday morning!", 0)
	hit = turn("s1", "We adopted a beagle puppy and named him Biscuit", gap)
	after = turn("s1", "He already chewed through two shoes", gap+1)
	turn("s1", "Anyway, how was your week at the office?", gap+2)
	// Distractors that share "puppy", each longer than the last, so that
	// they rank one after another below the hit.
	for i := range 14 {
		turn(fmt.Sprintf("d%d", i), "The puppy in the park"+strings.Repeat(" barked at the neighbours", i), gap+10+i)
	}
	return p, before, hit, after
}

// puppyResults are the ten results for the puppy news; the news itself
// must be first.
func puppyResults(t *testing.T, p *palace.Palace) map[string]bool {
	t.Helper()
	hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "beagle puppy Biscuit", K: 10, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Drawer.Content != "We adopted a beagle puppy and named him Biscuit" {
		t.Fatalf("the matching turn is not first: %v", hitContents(hits))
	}
	out := map[string]bool{}
	for _, h := range hits {
		out[h.Drawer.ID] = true
	}
	return out
}

// A turn sent as several messages rises with its hit: the hit is long, so
// the messages after it borrow none of its matching words, and relevance
// feedback is off, so what lifts them is the hit alone. The message after
// the next, still the hit's speaker's, rises to 0.6² of the hit's score;
// without the lift (LOCI_NEIGHBOUR=0) it scores far less.
func TestABurstRisesWithItsHit(t *testing.T) {
	t.Setenv("LOCI_FEEDBACK", "0")
	p := MustOpenPalace(t)
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	at := 0
	say := func(session, who, text string) *palace.Drawer {
		at++
		return mustAdd(t, p, &palace.Drawer{Content: text, Kind: palace.KindTurn, SessionID: session,
			Timestamp: t0.Add(time.Duration(at) * time.Minute), SenderIDs: []string{who}})
	}
	say("s1", "bo", "Any news from the weekend?")
	hit := say("s1", "ann", "We adopted a beagle puppy and named him Biscuit."+
		strings.Repeat(" The shelter said he likes long walks, cold carrots and sleeping on warm laundry.", 5))
	say("s1", "ann", "He already chewed through two shoes")
	m2 := say("s1", "ann", "and the sofa cushion too")
	say("s1", "bo", "Oh no, what a rascal")
	for i := range 14 {
		say(fmt.Sprintf("d%d", i), "cy", "The puppy in the park"+strings.Repeat(" barked at the neighbours", i))
	}
	share := func() float64 {
		t.Helper()
		hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "beagle puppy Biscuit", K: 40, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		scores := map[string]float64{}
		for _, h := range hits {
			scores[h.Drawer.ID] = h.Score
		}
		if scores[hit.ID] == 0 {
			t.Fatalf("the hit is not found: %v", hitContents(hits))
		}
		return scores[m2.ID] / scores[hit.ID]
	}
	if s := share(); s < 0.36-1e-9 {
		t.Errorf("the message after the next scores %.4f of the hit, want at least 0.36", s)
	}
	t.Setenv("LOCI_NEIGHBOUR", "0")
	if s := share(); s >= 0.36-1e-9 {
		t.Errorf("without the lift the message after the next still scores %.4f of the hit: the test shows nothing", s)
	}
}

// BenchmarkSearchInRunsOfMessages searches a chat of one speaker's short
// messages, where every hit's neighbours are a run to walk (RECALL.md, "A
// turn in several messages"); LOCI_NEIGHBOUR=0 gives the search without
// the lift:
//
//	go test -tags sqlite_fts5 -run '^$' -bench SearchInRunsOfMessages -count 3 ./palace/
func BenchmarkSearchInRunsOfMessages(b *testing.B) {
	p := MustOpenPalace(b)
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	topics := []string{"puppy", "garden", "coffee", "concert", "painting", "hiking", "bakery", "guitar", "beach", "novel"}
	for i := range 3000 {
		mustAdd(b, p, &palace.Drawer{Content: fmt.Sprintf("msg %d about the %s", i, topics[i%10]), Kind: palace.KindTurn,
			SessionID: fmt.Sprintf("s%d", i/500), Timestamp: t0.Add(time.Duration(i) * time.Second), SenderIDs: []string{"ann"}})
	}
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if _, err := p.Search(ctx, palace.SearchRequest{Query: "the " + topics[i%10] + " msg", K: 10, NoAccess: true}); err != nil {
			b.Fatal(err)
		}
	}
}
