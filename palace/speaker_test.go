package palace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A speaker named by the call (RememberOptions.Speaker) is stored as the
// text's label, after its header, unless the text names that speaker
// already; a speaker a label could not hold is refused and nothing is
// stored.
func TestRememberLabelsTheSpeakerNamed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	for _, c := range []struct{ text, speaker, content, sender string }{
		{"I went hiking on Sunday.", "Caroline", "Caroline: I went hiking on Sunday.", "Caroline"},
		{"[D1:3] (8 May, 2023) I went hiking.", "Caroline", "[D1:3] (8 May, 2023) Caroline: I went hiking.", "Caroline"},
		{"  I went hiking.  ", " Caroline ", "Caroline: I went hiking.", "Caroline"},
		{"caroline: I went hiking.", "Caroline", "caroline: I went hiking.", "Caroline"},
		{"Caroline: I went hiking.", "Caroline", "Caroline: I went hiking.", "Caroline"},
		{"[user] the build is red again", "User", "[user] the build is red again", "user"},
		{"the build is red again", "Assistant", "assistant: the build is red again", "assistant"},
		{"Meeting notes: we deploy on Fridays.", "Ana", "Ana: Meeting notes: we deploy on Fridays.", "Ana"},
		{"sam: hi there", "jenny_k", "jenny_k: sam: hi there", "jenny_k"},
		{"Jess 🌸 is here", "Jess 🌸", "Jess 🌸: Jess 🌸 is here", "Jess 🌸"},
	} {
		d, err := p.Remember(ctx, c.text, palace.RememberOptions{Speaker: c.speaker})
		if err != nil {
			t.Fatalf("Remember(%q, speaker %q): %v", c.text, c.speaker, err)
		}
		got, err := p.Get(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Content != c.content {
			t.Errorf("Remember(%q, speaker %q) stored %q, want %q", c.text, c.speaker, got.Content, c.content)
		}
		if len(got.SenderIDs) != 1 || got.SenderIDs[0] != c.sender {
			t.Errorf("Remember(%q, speaker %q): senders %v, want [%s]", c.text, c.speaker, got.SenderIDs, c.sender)
		}
	}
	d, err := p.Remember(ctx, "(8 May, 2023) I went hiking.", palace.RememberOptions{Speaker: "Caroline"})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2023, 5, 8, 12, 0, 0, 0, time.UTC); !d.Timestamp.Equal(want) {
		t.Errorf("timestamp = %v, want the header's date %v", d.Timestamp, want)
	}

	count := func() int64 {
		t.Helper()
		n, err := p.Count(ctx, palace.Filter{Statuses: palace.AnyStatus})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	for _, c := range []struct{ speaker, want string }{
		{"Dr: Who", "colon"},
		{"Ana\nBob", "control character"},
		{strings.Repeat("a", 129), "at most 128 bytes"},
	} {
		_, err := p.Remember(ctx, "I went hiking.", palace.RememberOptions{Speaker: c.speaker})
		if palace.ErrorCode(err) != palace.CodeInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("speaker %q: err = %v, want an invalid-argument error naming the %s", c.speaker, err, c.want)
		}
	}
	if n := count(); n != before {
		t.Errorf("refused texts stored drawers: %d before, %d after", before, n)
	}
}

// A message stored with its speaker named by the call is indexed as the
// same message with its label written in the text: it borrows the same
// context, and the text after it borrows it the same way.
func TestSpeakerNamedIsTheSpeakerLabelled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	chat := []struct{ who, text string }{
		{"Melanie", "(8 May, 2023) Do you still go rock climbing on weekends?"},
		{"Caroline", "(8 May, 2023) Yes, every spring in Yosemite."},
		{"Melanie", "(8 May, 2023) That sounds amazing!"},
	}
	labelled := palacetest.MustOpenPalace(t)
	named := palacetest.MustOpenPalace(t)
	get := func(p *palace.Palace, id string) *palace.Drawer {
		t.Helper()
		d, err := p.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var last *palace.Drawer
	for _, m := range chat {
		a, err := labelled.Remember(ctx, strings.Replace(m.text, ") ", ") "+m.who+": ", 1), palace.RememberOptions{Connection: "c"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := named.Remember(ctx, m.text, palace.RememberOptions{Connection: "c", Speaker: m.who})
		if err != nil {
			t.Fatal(err)
		}
		a, b = get(labelled, a.ID), get(named, b.ID)
		last = b
		if a.Content != b.Content || borrowed(a) != borrowed(b) || !a.Timestamp.Equal(b.Timestamp) ||
			strings.Join(a.SenderIDs, ",") != strings.Join(b.SenderIDs, ",") {
			t.Errorf("speaker named: %q borrowing %q from %v at %v; labelled: %q borrowing %q from %v at %v",
				b.Content, borrowed(b), b.SenderIDs, b.Timestamp, a.Content, borrowed(a), a.SenderIDs, a.Timestamp)
		}
	}
	if got := borrowed(last); !strings.Contains(got, "Caroline: Yes, every spring in Yosemite.") {
		t.Errorf("the last message borrowed %q, want the labelled message before it", got)
	}
}
