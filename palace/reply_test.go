package palace_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A turn whose export names the message it answers (a group chat's reply
// to an earlier message, with another conversation between) borrows that
// message, not the one sent just before it, and addresses its sender;
// whether the message was stored in the same batch or an earlier one, and
// however long before. A reply naming no message it can find borrows as
// any turn does.
func TestReplyBorrowsTheMessageItAnswers(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		apart   bool          // the message answered stored in a batch of its own first
		after   time.Duration // the reply's time after it
		replyTo string        // "": the id of the message answered
		want    string        // borrowed
		notWant string
		to      string // addressed
	}{
		{"same batch", false, 2 * time.Minute, "", "rope", "playoffs", "Ana"},
		{"stored before", true, 2 * time.Minute, "", "rope", "playoffs", "Ana"},
		{"two days later", true, 48 * time.Hour, "", "rope", "playoffs", "Ana"},
		{"names no stored message", false, 2 * time.Minute, "0190aaaa-0000-7000-8000-000000000000", "playoffs", "rope", "Cy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := palacetest.MustOpenPalace(t)
			at := time.Date(2024, 3, 2, 10, 0, 0, 0, time.UTC)
			turn := func(who, text string, d time.Duration) *palace.Drawer {
				return &palace.Drawer{Kind: palace.KindTurn, Content: who + ": " + text, SessionID: "group",
					SenderIDs: []string{who}, Timestamp: at.Add(d)}
			}
			question := turn("Ana", "who is bringing the climbing rope on Saturday?", 0)
			question.ID = "0190aaaa-0000-7000-8000-000000000001"
			other := turn("Cy", "did anyone watch the playoffs last night?", c.after-time.Minute)
			reply := turn("Ben", "me, the new 60m one", c.after)
			reply.Meta = map[string]any{palace.MetaReplyTo: question.ID}
			if c.replyTo != "" {
				reply.Meta[palace.MetaReplyTo] = c.replyTo
			}
			batches := [][]*palace.Drawer{{question, other, reply}}
			if c.apart {
				batches = [][]*palace.Drawer{{question}, {other, reply}}
			}
			for _, b := range batches {
				if err := p.AddMany(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			got, err := p.Get(ctx, reply.ID)
			if err != nil {
				t.Fatal(err)
			}
			// The name addressed closes the keywords, after a record separator.
			if !strings.Contains(got.Keywords, c.want) || strings.Contains(got.Keywords, c.notWant) || !strings.HasSuffix(got.Keywords, "\x1e"+c.to) {
				t.Errorf("the reply borrowed %q", got.Keywords)
			}
		})
	}
}

// A chain of replies is one conversation: the texts a reply reads before
// it (for the words its conversation keeps repeating) are the message it
// answers, the one that message answers and so on, not the other
// conversation's messages sent between them.
func TestReplyChainIsOneConversation(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	var g groupChat
	say := g.say
	rope := say("Ana", "who brings the rope to the crag?", nil)
	game := say("Cy", "did the game go to overtime?", nil)
	say("Dee", "the game went to overtime twice", game)
	mine := say("Ben", "my rope, the crag is close to me", rope)
	thanks := say("Ana", "great, thanks!", mine)
	if err := p.AddMany(ctx, g.ds); err != nil {
		t.Fatal(err)
	}
	got, err := p.Get(ctx, thanks.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Keywords, "my rope") || strings.Contains(got.Keywords, "game") || strings.Contains(got.Keywords, "overtime") {
		t.Errorf("the reply read %q", got.Keywords)
	}
}

// A walk back that has gone by time stays in time: a reply met on the way
// answers its own conversation, and following it would skip the texts of
// this one sent since (here "the crag opens at 8", which with the
// question before it makes "crag" the conversation's word).
func TestWalkBackByTimeStaysInTime(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	var g groupChat
	say := g.say
	say("Ana", "which crag on Saturday?", nil)
	game := say("Cy", "did the game go to overtime?", nil)
	say("Ben", "the crag opens at 8", nil)
	say("Dee", "it did, twice", game)
	note := say("Ana", "ok, I will bring the chalk", nil)
	if err := p.AddMany(ctx, g.ds); err != nil {
		t.Fatal(err)
	}
	got, err := p.Get(ctx, note.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Keywords, "crag") {
		t.Errorf("the note read %q", got.Keywords)
	}
}

// groupChat is a group's chat as its export is read: its messages a
// minute apart, each with an id, one that answers another naming it.
type groupChat struct{ ds []*palace.Drawer }

func (g *groupChat) say(who, text string, answers *palace.Drawer) *palace.Drawer {
	at := time.Date(2024, 3, 2, 10, 0, 0, 0, time.UTC)
	d := &palace.Drawer{Kind: palace.KindTurn, Content: who + ": " + text, SessionID: "group",
		SenderIDs: []string{who}, Timestamp: at.Add(time.Duration(len(g.ds)) * time.Minute)}
	d.ID = fmt.Sprintf("0190aaaa-0000-7000-8000-%012d", len(g.ds)+1)
	if answers != nil {
		d.Meta = map[string]any{palace.MetaReplyTo: answers.ID}
	}
	g.ds = append(g.ds, d)
	return d
}

// An agent that relays a group chat names, for a text that answers an
// earlier message than the last, the drawer it answers
// (RememberOptions.ReplyTo): the text joins that drawer's session and
// borrows it, not the other conversation's message stored between them.
// A reply_to that names nothing a conversation can answer is refused, and
// nothing is stored.
func TestRememberNamesTheMessageItAnswers(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	say := func(text string, o palace.RememberOptions) *palace.Drawer {
		t.Helper()
		d, err := p.Remember(ctx, text, o)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	question := say("(2 March, 2024) Ana: who is bringing the climbing rope on Saturday?", palace.RememberOptions{Session: "group"})
	say("(2 March, 2024) Cy: did anyone watch the playoffs last night?", palace.RememberOptions{Session: "group"})
	reply := say("(2 March, 2024) Ben: me, the new 60m one", palace.RememberOptions{ReplyTo: question.ID, Connection: "relay"})
	got, err := p.Get(ctx, reply.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "group" || got.Meta[palace.MetaReplyTo] != question.ID {
		t.Errorf("session %q, reply_to %v; want the session of the message answered and its id", got.SessionID, got.Meta[palace.MetaReplyTo])
	}
	if kw := borrowed(got); !strings.Contains(kw, "rope") || strings.Contains(kw, "playoffs") {
		t.Errorf("the reply borrowed %q, want the question and not the playoffs", kw)
	}

	note := say("The team meets on Saturdays.", palace.RememberOptions{})
	fact := &palace.Drawer{Kind: palace.KindFact, Content: "Ben owns a 60m rope.", SessionID: "group"}
	if err := p.Add(ctx, fact); err != nil {
		t.Fatal(err)
	}
	before, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Statuses: palace.AnyStatus}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    palace.RememberOptions
		text string
		want string
	}{
		{"unknown", palace.RememberOptions{ReplyTo: "0190aaaa-0000-7000-8000-00000000dead"}, "Ben: ok", "no memory"},
		{"blank", palace.RememberOptions{ReplyTo: "  "}, "Ben: ok", "blank"},
		{"outside a session", palace.RememberOptions{ReplyTo: note.ID}, "Ben: ok", "outside a session"},
		{"another session", palace.RememberOptions{ReplyTo: question.ID, Session: "dm"}, "Ben: ok", `belongs to session "group", not "dm"`},
		{"not a message", palace.RememberOptions{ReplyTo: fact.ID}, "Ben: ok", "not a message of a conversation"},
		{"before it", palace.RememberOptions{ReplyTo: question.ID}, "(1 March, 2024) Ben: ok", "after this text"},
	} {
		_, err := p.Remember(ctx, c.text, c.o)
		if palace.ErrorCode(err) != palace.CodeInvalid || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "reply_to") {
			t.Errorf("%s: %v, want an invalid-argument error about reply_to saying %q", c.name, err, c.want)
		}
	}
	after, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Statuses: palace.AnyStatus}, Limit: 100})
	if err != nil || len(after) != len(before) {
		t.Errorf("%d drawers after the refused texts, %d before (%v)", len(after), len(before), err)
	}
}
