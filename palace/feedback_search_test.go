package palace_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// Relevance feedback finds the memory that answers a question in other
// words: "where does Caroline work?" against "She joined the Mercy clinic
// downtown as a nurse", which shares no word with it, through the words
// the memories about Caroline's work share with it. (Not parallel: it
// compares with LOCI_FEEDBACK=0.)
func TestFeedbackFindsOtherWording(t *testing.T) {
	p := palacetest.MustOpenPalace(t)
	addNotes(t, p, 7, func(int) time.Time { return time.Time{} })
	addClinicNotes(t, p)
	target := addClinicAnswer(t, p)
	rank := func() int { return rankOf(t, p, "where does Caroline work?", target) }
	t.Setenv("LOCI_FEEDBACK", "0")
	without := rank()
	t.Setenv("LOCI_FEEDBACK", "1")
	with := rank()
	if with == 0 || (without != 0 && with >= without) {
		t.Errorf("the answer ranks %d with feedback and %d without (0: not in the top 10); feedback should lift it", with, without)
	}
	t.Logf("rank without feedback %d, with %d", without, with)
}

// Relevance feedback learns the day of the best hits as it learns their
// words (dateWords): where they share a day, a memory of that day rises
// above memories of other days that match the question as well — the
// memory told beside the others. Without feedback (LOCI_FEEDBACK=0) the
// day counts for nothing, and another day's memory ranks first.
func TestFeedbackLearnsTheDayOfTheBestHits(t *testing.T) {
	p := palacetest.MustOpenPalace(t)
	start := time.Date(2023, 1, 1, 12, 0, 0, 0, time.UTC)
	addNotes(t, p, 11, func(i int) time.Time { return start.AddDate(0, 0, i) })
	// What the kids did on other days, worded like the memory asked for.
	var others []string
	for i, s := range kidsLearned {
		others = append(others, palacetest.MustAdd(t, p, &palace.Drawer{Content: s, Timestamp: start.AddDate(0, 0, 100+i)}).ID)
	}
	day := start.AddDate(0, 0, 70)
	for i, s := range campingTrip {
		palacetest.MustAdd(t, p, &palace.Drawer{Content: s, Timestamp: day.Add(time.Duration(i) * time.Minute)})
	}
	target := palacetest.MustAdd(t, p, &palace.Drawer{Content: "The kids finally learned to tie their own shoes.",
		Timestamp: day.Add(10 * time.Minute)})
	t.Setenv("LOCI_FEEDBACK", "0")
	if tr, or := campingRanks(t, p, target.ID, others); tr == 0 || or == 0 || tr < or {
		t.Fatalf("without feedback the memory of that day ranks %d and the best of the others %d: the test shows nothing", tr, or)
	}
	t.Setenv("LOCI_FEEDBACK", "1")
	if tr, or := campingRanks(t, p, target.ID, others); tr == 0 || or != 0 && or < tr {
		t.Errorf("with feedback the memory told the same day as the best hits ranks %d, below another day's (%d)", tr, or)
	}
}

// kidsLearned are memories worded like the one the camping question asks
// for ("The kids finally learned to tie their own shoes."), of other
// times; campingTrip are the memories of the trip.
var (
	kidsLearned = []string{
		"The kids finally learned to bake their own bread.", "The kids finally learned to ride their bikes.",
		"The kids finally learned to fold their own laundry.", "The kids finally learned to play their new piano.",
	}
	campingTrip = []string{
		"The camping trip by the lake was wonderful, the tent held up.",
		"On the camping trip we hiked to the falls every morning.",
		"Our camping trip ended with a storm, we packed up in the rain.",
		"We cooked every meal over the fire on the camping trip.",
	}
)

// campingRanks asks what the kids learned on the camping trip and gives
// the 1-based rank of target and of the best of others (0: not in the
// first 30).
func campingRanks(t *testing.T, p *palace.Palace, target string, others []string) (int, int) {
	t.Helper()
	hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "What did the kids learn on the camping trip?", K: 30, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	tr, or := 0, 0
	for i, h := range hits {
		switch {
		case h.Drawer.ID == target:
			tr = i + 1
		case or == 0 && slices.Contains(others, h.Drawer.ID):
			or = i + 1
		}
	}
	return tr, or
}

// Relevance feedback learns the episode of the best hits as it learns
// their words (episodeWord): where the memories of one day were told in
// several sessions, or stored by an agent through several connections
// (or a conversation came without its dates, all on the day it was
// stored), the memory told in the same episode as the best hits rises
// above the others that match the question as well. Every memory here is
// of one day, so the day's word cannot tell them apart. Neighbour lifts
// are off (LOCI_NEIGHBOUR=0), and no memory borrows the words of the one
// before it (session texts come with keywords of their own, the same for
// all; notes through a connection name no speaker): only the episode's
// word can lift the memory asked for. (Not parallel: it sets the
// environment.)
func TestFeedbackLearnsTheEpisodeOfTheBestHits(t *testing.T) {
	ctx := context.Background()
	for _, through := range []string{"session", "connection"} {
		t.Run(through, func(t *testing.T) {
			p := palacetest.MustOpenPalace(t)
			day := time.Date(2023, 3, 1, 9, 0, 0, 0, time.UTC)
			addNotes(t, p, 13, func(i int) time.Time { return day.Add(time.Duration(i) * time.Second) })
			at := day.Add(time.Hour)
			add := func(episode, text string) *palace.Drawer {
				if through == "connection" {
					d, err := p.Remember(ctx, text, palace.RememberOptions{Connection: episode})
					if err != nil {
						t.Fatal(err)
					}
					return d
				}
				at = at.Add(time.Minute)
				return palacetest.MustAdd(t, p, &palace.Drawer{Content: text, Keywords: "family", SessionID: episode, Timestamp: at})
			}
			var others []string
			for i, s := range kidsLearned {
				others = append(others, add(fmt.Sprintf("evening-%d", i), s).ID)
			}
			target := add("trip", "The kids finally learned to tie their own shoes.")
			for _, s := range campingTrip {
				add("trip", s)
			}
			t.Setenv("LOCI_NEIGHBOUR", "0")
			t.Setenv("LOCI_FEEDBACK", "0")
			if tr, or := campingRanks(t, p, target.ID, others); tr == 0 || or == 0 || tr < or {
				t.Fatalf("without feedback the memory of the trip's %s ranks %d and the best of the others %d: the test shows nothing", through, tr, or)
			}
			t.Setenv("LOCI_FEEDBACK", "1")
			if tr, or := campingRanks(t, p, target.ID, others); tr == 0 || or != 0 && or < tr {
				t.Errorf("with feedback the memory told in the %s of the best hits ranks %d, below another's (%d)", through, tr, or)
			}
		})
	}
}

// addNotes fills a palace with 150 notes of ten words drawn at random
// (seeded) from everyday nouns, the i-th at(i) (zero: now), so that
// relevance feedback runs (it needs 100 indexed texts).
func addNotes(t *testing.T, p *palace.Palace, seed int64, at func(i int) time.Time) {
	r := rand.New(rand.NewSource(seed))
	filler := strings.Fields("budget plant office printer lunch meeting garden bicycle recipe holiday weather train ticket " +
		"movie concert museum library kitchen window paint carpet guitar piano camera phone laptop coffee")
	for i := range 150 {
		var b strings.Builder
		fmt.Fprintf(&b, "Note %d:", i)
		for range 10 {
			b.WriteString(" " + filler[r.Intn(len(filler))])
		}
		palacetest.MustAdd(t, p, &palace.Drawer{Content: b.String(), Timestamp: at(i)})
	}
}

// Relevance feedback counts texts that restate one another once. Twelve
// replies repeat what Caroline said about a bakery job, each with the
// words of the question twice; taken as ten feedback documents, their
// words fill the expansion, and the memory that answers (the clinic, in
// other words) is not found through the words the clinic notes share with
// it. Passing over the restatements (LOCI_RESTATE=0 does not) leaves room
// for the clinic notes among the ten. Both searches are expanded: the
// first search of a palace once went without feedback, and with eight
// replies that each matched the question once, this test passed on that
// alone (TestAFirstSearchRanksAsALaterOne). (Not parallel: it sets the
// environment.)
func TestFeedbackCountsRestatementsOnce(t *testing.T) {
	p := palacetest.MustOpenPalace(t)
	addNotes(t, p, 7, func(int) time.Time { return time.Time{} })
	addClinicNotes(t, p)
	for i, lead := range []string{"So", "Right", "Got it", "Noted", "Okay", "I see", "Sure", "Ah", "Yes", "Oh", "Well", "Hm"} {
		palacetest.MustAdd(t, p, &palace.Drawer{Content: fmt.Sprintf("%s, Caroline: your old work at the bakery was hard work, Caroline, and meant "+
			"sourdough, flour orders, oven timers, pastry trays, the delivery van, market stalls and "+
			"cinnamon buns (%d).", lead, i)})
	}
	target := addClinicAnswer(t, p)
	rank := func() int { return rankIn(t, p, "where does Caroline work?", 20, target) }
	rank() // neither search measured below is the palace's first
	t.Setenv("LOCI_RESTATE", "0")
	without := rank()
	if without != 0 && without <= 3 {
		t.Fatalf("with every restatement counted the answer already ranks %d: the test shows nothing", without)
	}
	t.Setenv("LOCI_RESTATE", "1")
	with := rank()
	if with == 0 || (without != 0 && with >= without) {
		t.Errorf("the answer ranks %d with restatements counted once and %d with each counted (0: not in the top 20)", with, without)
	}
	t.Logf("rank with each restatement counted %d, counted once %d", without, with)
}

// addClinicNotes adds four notes about Caroline's work at a clinic, each
// with the words of "where does Caroline work?".
func addClinicNotes(t *testing.T, p *palace.Palace) {
	for _, s := range []string{
		"Caroline works long shifts at the clinic and the nurses rely on her.",
		"Caroline said work at the clinic was hectic; the nurse rota changed again.",
		"At work Caroline handles the clinic nurse rota and the night shifts.",
		"Caroline's work friends from the clinic threw her a farewell party.",
	} {
		palacetest.MustAdd(t, p, &palace.Drawer{Content: s})
	}
}

// addClinicAnswer adds the memory that answers "where does Caroline
// work?" without a word of it, and returns its id.
func addClinicAnswer(t *testing.T, p *palace.Palace) string {
	return palacetest.MustAdd(t, p, &palace.Drawer{Content: "She joined the Mercy clinic downtown as a nurse in March, on the night shift."}).ID
}

// rankIn is the 1-based rank of drawer id among the first k results of
// query (0: not among them).
func rankIn(t *testing.T, p *palace.Palace, query string, k int, id string) int {
	t.Helper()
	hits, err := p.Search(context.Background(), palace.SearchRequest{Query: query, K: k, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hits {
		if h.Drawer.ID == id {
			return i + 1
		}
	}
	return 0
}

// Relevance feedback takes no text long enough to be indexed as passages.
// Twelve long replies each open on Caroline's work, naming it more often
// than any note does, and go on, as a long reply does, to a story of their
// own (words no other text uses). They are the best of the first ranking,
// and taken as the ten feedback documents they leave no room for the
// clinic notes, whose words would lift the memory that answers (the
// clinic, in other words). Passing them over (LOCI_FEEDBACK_LONG=1 does
// not) leaves the ten to the short notes. (Not parallel: it sets the
// environment.)
func TestFeedbackPassesOverLongTexts(t *testing.T) {
	p := palacetest.MustOpenPalace(t)
	addNotes(t, p, 7, func(int) time.Time { return time.Time{} })
	addClinicNotes(t, p)
	r := rand.New(rand.NewSource(3))
	for i := range 12 {
		var b strings.Builder
		fmt.Fprintf(&b, "Caroline, your work! Caroline's work, Caroline at work, as you said.")
		for j := range 220 {
			if j%12 == 0 {
				b.WriteString(".")
			}
			fmt.Fprintf(&b, " story%cword%c", 'a'+rune(i), 'a'+rune(r.Intn(20)))
		}
		palacetest.MustAdd(t, p, &palace.Drawer{Content: b.String()})
	}
	target := addClinicAnswer(t, p)
	rank := func() int { return rankIn(t, p, "where does Caroline work?", 20, target) }
	rank() // neither search measured below is the palace's first
	t.Setenv("LOCI_FEEDBACK_LONG", "1")
	with := rank()
	if with != 0 && with <= 3 {
		t.Fatalf("with the long texts as feedback the answer already ranks %d: the test shows nothing", with)
	}
	t.Setenv("LOCI_FEEDBACK_LONG", "")
	without := rank()
	if without == 0 || (with != 0 && without >= with) {
		t.Errorf("the answer ranks %d with long texts passed over and %d with them as feedback (0: not in the top 20)", without, with)
	}
	t.Logf("rank with long texts as feedback %d, passed over %d", with, without)
}
