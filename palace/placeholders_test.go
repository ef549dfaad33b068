package palace

import (
	"context"
	"testing"
	"time"
)

func TestWithoutPlaceholders(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"<Media omitted>", ""},
		{"image omitted", ""},
		{"\u200e<attached: 00000012-PHOTO-2023-05-30-13-53-12.jpg>", ""},
		{"Look at this! <Media omitted>", "Look at this!"},
		{"See you at 5 <This message was edited>", "See you at 5"},
		{"This message was deleted", ""},
		{"Missed voice call", ""},
		// Ordinary words that happen to hold a cue are left alone.
		{"I missed you so much", "I missed you so much"},
		{"I deleted the app and omitted the tests", "I deleted the app and omitted the tests"},
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
		{"Melanie: sticker omitted", true, true, false},
		{"lol <Media omitted>", false, true, false},
		{"<Media omitted> Did you see it?", false, false, true},
		{"<Media omitted> This is the vase I made in pottery class.", false, false, false},
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
