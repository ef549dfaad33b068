package palace

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestWithoutPlaceholders(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"<Media omitted>", ""},
		{"image omitted", ""},
		{"\u200e<attached: 00000012-PHOTO-2023-05-30-13-53-12.jpg>", ""},
		{"IMG-20230512-WA0007.jpg (file attached)", ""},
		{"PTT-20230512-WA0003.opus (file attached)", ""},
		{"IMG-20230512-WA0007.jpg (file attached)\nLook what I made!", "Look what I made!"},
		{"Quarterly report.pdf (file attached)", ""},
		{"I sent report.pdf (file attached) yesterday", "I sent report.pdf (file attached) yesterday"}, // not a line of its own
		{"[Photo]", ""},
		{"[Sticker]\nhaha", "haha"},
		{"[Voice message]", ""},
		{"see [photo] below", "see [photo] below"},
		{"Ana sent a photo.", ""},
		{"You sent an attachment.", ""},
		{"Maria José sent a GIF", ""},
		{"my mom sent a photo of the dog", "my mom sent a photo of the dog"},
		{"Ana sent a photo of the dog.", "Ana sent a photo of the dog."},
		{"Look at this! <Media omitted>", "Look at this!"},
		{"See you at 5 <This message was edited>", "See you at 5"},
		{"This message was deleted", ""},
		{"Missed voice call", ""},
		{"You unsent a message", ""},
		{"Jess unsent a message", ""},
		{"Mary Jo unsent a message", ""},
		{"omg she unsent a message lol", "omg she unsent a message lol"},
		// Ordinary words that happen to hold a cue are left alone.
		{"I missed you so much", "I missed you so much"},
		{"I deleted the app and omitted the tests", "I deleted the app and omitted the tests"},
		// A tapback is a placeholder as a whole, whatever it quotes.
		{"Loved “I got the job!”", ""},
		{"Laughed at \"you did NOT\"", ""},
		{"Emphasized “Dinner at 8.\nDon't be late”", ""},
		{"Reacted 🔥 to “new car!!”", ""},
		{"Removed a heart from “see you soon”", ""},
		{"Removed a question mark from “you coming?”", ""},
		{"Liked an image", ""},
		{"Reacted 😆 to your message", ""},
		// A person who writes like one says something.
		{"Loved “Dune”, you have to see it", "Loved “Dune”, you have to see it"},
		{"Loved the movie", "Loved the movie"},
		{"loved “dune”", "loved “dune”"},
	} {
		if got := withoutPlaceholders(c.text); got != c.want {
			t.Errorf("withoutPlaceholders(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	t.Setenv("LOCI_PLACEHOLDERS", "0")
	if got := withoutPlaceholders("<Media omitted>"); got != "<Media omitted>" {
		t.Errorf("with LOCI_PLACEHOLDERS=0: %q", got)
	}
}

// A text of placeholders says nothing, with its header or label or
// without; one that reacts or asks besides is read as a reaction or a
// question.
func TestTextsOfPlaceholders(t *testing.T) {
	for _, c := range []struct {
		text                  string
		nothing, reacts, asks bool
	}{
		{"<Media omitted>", true, true, false},
		{"[D3:7] (8 May, 2023) Melanie: <Media omitted>", true, true, false},
		{"Melanie: IMG-20230512-WA0007.jpg (file attached)", true, true, false},
		{"Melanie: [Sticker]", true, true, false},
		{"Melanie: Liked a message", true, true, false},
		{"Melanie sent a photo.", true, true, false},
		{"Melanie: sticker omitted", true, true, false},
		{"lol <Media omitted>", false, true, false},
		{"<Media omitted> Did you see it?", false, false, true},
		{"<Media omitted> This is the vase I made in pottery class.", false, false, false},
		{"Melanie: Loved “I finished the vase!”", true, true, false},
		{"Melanie: Reacted 😆 to your message", true, true, false},
		{"Melanie: You unsent a message", true, true, false},
		{"[D3:8] (8 May, 2023) Melanie: Laughed at “" + strings.Repeat("the glaze ran everywhere ", 60) + "”", true, false, false}, // too long to read for a reaction
		{"Loved “Dune”, you have to see it", false, false, false},
	} {
		d := &Drawer{Content: c.text, SenderIDs: []string{"Melanie"}}
		if got := saysNothing(d); got != c.nothing {
			t.Errorf("saysNothing(%q) = %v", c.text, got)
		}
		if got := onlyReacts(d); got != c.reacts {
			t.Errorf("onlyReacts(%q) = %v", c.text, got)
		}
		if got := onlyAsks(d); got != c.asks {
			t.Errorf("onlyAsks(%q) = %v", c.text, got)
		}
	}
}

// The walk to a hit's neighbours passes over a placeholder as over a line
// that is not a turn: the reply after a photo's placeholder is lifted as
// the reply right after the hit is, and the placeholder is not lifted.
func TestNeighboursPassOverPlaceholders(t *testing.T) {
	p := newTestPalace(t)
	ctx := context.Background()
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	var ds []*Drawer
	for i, turn := range [][2]string{
		{"bo", "what did you make at the class?"},
		{"ann", "a vase for my mum"},
		{"ann", "<Media omitted>"},
		{"bo", "gorgeous, the glaze is perfect"},
	} {
		d := &Drawer{Content: turn[1], Kind: KindTurn, SessionID: "s", SenderIDs: []string{turn[0]},
			Timestamp: t0.Add(time.Duration(i) * time.Minute)}
		if err := p.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	got, err := p.neighbours(ctx, ds[1], 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].d.ID != ds[0].ID || got[0].lift != neighbourLift || got[1].d.ID != ds[3].ID || got[1].lift != neighbourLift {
		var texts []string
		for _, n := range got {
			texts = append(texts, n.d.Content)
		}
		t.Fatalf("neighbours %q, want the question before and the reply after, each at %v", texts, neighbourLift)
	}
	t.Setenv("LOCI_PLACEHOLDERS", "0")
	if got, _ := p.neighbours(ctx, ds[1], 0); len(got) < 2 || got[1].d.ID != ds[2].ID {
		t.Errorf("with LOCI_PLACEHOLDERS=0 the placeholder is a turn of ann's run")
	}
}

// A tapback repeats the text it reacts to, and what comes after it takes
// its context from that text once: the walk back passes over the tapback,
// so the reply does not borrow the quote as well as the text, nor take the
// text's words, said twice, as its conversation's topic.
func TestContextPassesOverTapbacks(t *testing.T) {
	texts := []string{ // oldest first
		"Ana: we adopted a greyhound called Pixel",
		"Ben: Loved “we adopted a greyhound called Pixel”",
		"Ben: so cute",
		"Ana: she sleeps all day",
	}
	for _, c := range []struct {
		last      int  // the drawer's text
		off       bool // LOCI_PLACEHOLDERS=0
		greyhound int  // times its keywords hold the word
	}{
		{2, false, 1}, // Ben's reply borrows Ana's text once
		{3, false, 0}, // and Ana's next text takes no topic from it
		{2, true, 2},  // read as words, the tapback is borrowed too
		{3, true, 1},  // and "greyhound", said twice, is a topic
	} {
		name := texts[c.last]
		if c.off {
			name += ", tapbacks read as words"
		}
		t.Run(name, func(t *testing.T) {
			if c.off {
				t.Setenv("LOCI_PLACEHOLDERS", "0")
			}
			who, _, _ := strings.Cut(texts[c.last], ": ")
			d := &Drawer{Content: texts[c.last], SenderIDs: []string{who}}
			kw, err := contextKeywords(d, func() func() (*Drawer, error) { return walkBack(texts, c.last) })
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(kw, "greyhound"); n != c.greyhound {
				t.Errorf("keywords %q hold greyhound %d times, want %d", kw, n, c.greyhound)
			}
		})
	}
}

// A tapback restates another text whole, so it is no relevance feedback
// document of its own: the text it quotes counts once. A placeholder
// stays one (it holds no words to count twice).
func TestFeedbackPassesOverTapbacks(t *testing.T) {
	p := newTestPalace(t)
	ctx := context.Background()
	texts := []string{
		"Loved “we adopted a greyhound called Pixel”",
		"<Media omitted>",
		"Pixel the greyhound sleeps all day",
	}
	for _, text := range texts {
		if err := p.Add(ctx, &Drawer{Content: text, SenderIDs: []string{"ann"}}); err != nil {
			t.Fatal(err)
		}
	}
	// The drawers' row ids, whatever they are.
	byRID, err := p.drawersByRID(ctx, []int64{1, 2, 3, 4, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	var pool []feedbackCand
	for _, text := range texts {
		for rid, d := range byRID {
			if d.Content == text {
				pool = append(pool, feedbackCand{rid: rid, score: 1})
			}
		}
	}
	if len(pool) != len(texts) {
		t.Fatalf("found %d of the %d drawers by row id", len(pool), len(texts))
	}
	for _, c := range []struct {
		off  bool
		want int
	}{{false, 2}, {true, 3}} {
		if c.off {
			t.Setenv("LOCI_PLACEHOLDERS", "0")
		}
		docs, _, err := p.feedbackDocuments(ctx, pool, []string{"greyhound"})
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != c.want {
			t.Errorf("LOCI_PLACEHOLDERS off %v: %d feedback documents, want %d", c.off, len(docs), c.want)
		}
	}
}

// The walk past tapbacks passes at most maxBorrowTurns of them, the bound
// of every walk back: a palace of nothing but tapbacks costs a write no
// more reads than one of texts.
func TestPastTapbacksIsBounded(t *testing.T) {
	texts := []string{"Ana: the first text"}
	for range 3 * maxBorrowTurns {
		texts = append(texts, "Ben: Loved “the first text”")
	}
	texts = append(texts, "Ana: and now")
	reads := 0
	walk := walkBack(texts, len(texts)-1)
	counted := func() (*Drawer, error) { reads++; return walk() }
	x, err := pastTapbacks(counted)()
	if err != nil {
		t.Fatal(err)
	}
	if reads != maxBorrowTurns+1 || x == nil || !isTapbackText(x) {
		t.Errorf("%d reads, then %v; want %d tapbacks passed and the next given", reads, x, maxBorrowTurns)
	}
}
