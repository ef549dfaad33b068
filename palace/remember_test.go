package palace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// Texts stored one at a time through one connection are neighbours: each
// borrows the one before it as context, so an answer is found by the
// words of the question it answers. Another connection starts afresh, a
// standalone note (no speaker) borrows nothing, and the header's date and
// speaker become the drawer's time and sender.
func TestRememberThroughAConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	remember := func(text, conn string) *palace.Drawer {
		t.Helper()
		d, err := p.Remember(ctx, text, palace.RememberOptions{Connection: conn})
		if err != nil {
			t.Fatalf("Remember(%q): %v", text, err)
		}
		got, err := p.Get(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	q := remember("(8 May, 2023) Melanie: Do you still go rock climbing on weekends?", "a")
	if want := time.Date(2023, 5, 8, 12, 0, 0, 0, time.UTC); !q.Timestamp.Equal(want) {
		t.Errorf("timestamp = %v, want %v (the header's date)", q.Timestamp, want)
	}
	if len(q.SenderIDs) != 1 || q.SenderIDs[0] != "Melanie" {
		t.Errorf("senders = %v, want [Melanie]", q.SenderIDs)
	}
	if borrowed(q) != "" {
		t.Errorf("the first text of a connection borrowed %q", borrowed(q))
	}
	other := remember("Caroline: The parade starts at noon.", "b")
	if borrowed(other) != "" {
		t.Errorf("a text of connection b borrowed %q from connection a", borrowed(other))
	}
	a := remember("(8 May, 2023) Caroline: Yes, every spring in Yosemite.", "a")
	// Borrowed without its date header, which is metadata.
	if want := "Melanie: Do you still go rock climbing on weekends?"; borrowed(a) != want {
		t.Errorf("keywords = %q, want the text before it in the connection, %q", borrowed(a), want)
	}
	if n := remember("The deploy runs on Fridays.", "a"); borrowed(n) != "" {
		t.Errorf("a standalone note (no speaker) borrowed %q", borrowed(n))
	}
	if a.SessionID != "" {
		t.Errorf("a connection is stored as session %q", a.SessionID)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "rock climbing on weekends", Mode: palace.ModeKeyword, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range hits {
		found = found || h.Drawer.ID == a.ID
	}
	if !found {
		t.Errorf("the answer is not found by the question's words: %v", hits)
	}
}

// Chat exports write user names in lower case ("mel_k"): after a header
// such a label names the speaker too, so the reply borrows the question
// it answers, as it would under a capitalised name.
func TestRememberThroughAConnectionReadsNamesInLowerCase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	var got []*palace.Drawer
	for _, text := range []string{"(8 May, 2023) mel_k: do you still go rock climbing on weekends", "(8 May, 2023) caro: yes, every spring in yosemite"} {
		d, err := p.Remember(ctx, text, palace.RememberOptions{Connection: "a"})
		if err != nil {
			t.Fatal(err)
		}
		if d, err = p.Get(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if s := got[1].SenderIDs; len(s) != 1 || s[0] != "caro" {
		t.Errorf("senders = %v, want [caro]", s)
	}
	if want := "mel_k: do you still go rock climbing on weekends"; borrowed(got[1]) != want {
		t.Errorf("the reply borrowed %q, want %q", borrowed(got[1]), want)
	}
}

// A session is stored with the drawer, and its texts are neighbours across
// connections and restarts (the store finds the previous one).
func TestRememberInASession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	first, err := p.Remember(ctx, "user: which port does the gateway listen on?", palace.RememberOptions{Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.Remember(ctx, "assistant: 8443, behind the load balancer", palace.RememberOptions{Session: "s1", Connection: "other"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Get(ctx, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "s1" || borrowed(got) != first.Content {
		t.Errorf("session %q keywords %q; want s1 and the session's previous text", got.SessionID, borrowed(got))
	}
	if len(got.SenderIDs) != 1 || got.SenderIDs[0] != "assistant" {
		t.Errorf("senders = %v, want [assistant]", got.SenderIDs)
	}
}

// A turn sent as several messages borrows back through its speaker's run
// to the message it answers, on every path: through a connection, in a
// session written one text at a time (the store is walked), and in a
// batch of session turns. The next speaker's reply borrows only the
// message before it, a run that answers no one only the text before it,
// and the run stops at turnContextBytes.
func TestBurstBorrowsTheMessageItAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	chat := []string{
		"Ana: Do you still go rock climbing on weekends?",
		"Ben: omg yes",
		"Ben: every spring",
		"Ben: in Yosemite with my sister",
		"Ana: nice!",
	}
	check := func(t *testing.T, got []*palace.Drawer) {
		t.Helper()
		want := []string{
			"",
			chat[0],
			chat[0] + "\n" + chat[1],
			chat[0] + "\n" + chat[1] + "\n" + chat[2],
			chat[3],
		}
		checkBorrowed(t, got, want)
	}
	for _, through := range []string{"connection", "session"} {
		t.Run(through, func(t *testing.T) {
			t.Parallel()
			p := palacetest.MustOpenPalace(t)
			ds := rememberAll(t, p, through, chat)
			check(t, readBack(t, p, ds))
			// Found by the question's words itself, not only as a
			// neighbour of a hit.
			hits, err := p.Search(ctx, palace.SearchRequest{Query: "rock climbing", Mode: palace.ModeKeyword, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range hits {
				found = found || (h.Drawer.ID == ds[3].ID && h.BM25 > 0)
			}
			if !found {
				t.Errorf("the last message of the run does not match the question's words: %v", hits)
			}
		})
	}
	t.Run("batch", func(t *testing.T) {
		t.Parallel()
		p := palacetest.MustOpenPalace(t)
		ds := sessionTurns(chat)
		// The first two in one write, the rest in another: the second
		// write's run reaches back into the store.
		if err := p.AddMany(ctx, ds[:2]); err != nil {
			t.Fatal(err)
		}
		if err := p.AddMany(ctx, ds[2:]); err != nil {
			t.Fatal(err)
		}
		check(t, readBack(t, p, ds))
	})
	t.Run("one speaker's notes", func(t *testing.T) {
		// A run that answers no one borrows only the text before it:
		// one speaker's notes are unrelated more often than not.
		t.Parallel()
		p := palacetest.MustOpenPalace(t)
		var ds []*palace.Drawer
		for _, text := range []string{"user: I prefer tabs", "user: we deploy on Fridays", "user: the staging box is slow"} {
			d, err := p.Remember(ctx, text, palace.RememberOptions{Connection: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, d)
		}
		if got := readBack(t, p, ds); borrowed(got[2]) != "user: we deploy on Fridays" {
			t.Errorf("the third note borrowed %q, want only the note before it", borrowed(got[2]))
		}
	})
	t.Run("a long text lends its end", func(t *testing.T) {
		// A reply answers what was said last. The long reply before it
		// opens by restating the user's plan and closes with a question;
		// the answer borrows the question, and who asked it, on every
		// path.
		t.Parallel()
		opening := "assistant: So you want to repaint the boathouse before the regatta in June. "
		middle := strings.Repeat("Sand the old coat first, then prime the bare wood. ", 14)
		closing := "Which colour did the club vote for?"
		texts := []string{opening + middle + closing, "user: forest green"}
		for _, through := range []string{"connection", "session", "batch"} {
			p := palacetest.MustOpenPalace(t)
			var ds []*palace.Drawer
			if through == "batch" {
				ds = sessionTurns(texts)
				if err := p.AddMany(ctx, ds); err != nil {
					t.Fatal(err)
				}
			} else {
				ds = rememberAll(t, p, through, texts)
			}
			kw := borrowed(readBack(t, p, ds)[1])
			if !strings.HasSuffix(kw, closing) || strings.Contains(kw, "boathouse") || !strings.HasPrefix(kw, "assistant: …") {
				t.Errorf("%s: the answer borrowed %q, want the reply's speaker and its end, marked as cut", through, kw)
			}
			if len(kw) > 600-len(texts[1])+len("…") {
				t.Errorf("%s: borrowed %d bytes, past the budget", through, len(kw))
			}
		}
	})
	t.Run("budget", func(t *testing.T) {
		t.Parallel()
		p := palacetest.MustOpenPalace(t)
		long := "Ben: " + strings.Repeat("the trail was long and the rock was warm ", 14)
		var ds []*palace.Drawer
		for _, text := range []string{chat[0], long, "Ben: so worth it"} {
			d, err := p.Remember(ctx, text, palace.RememberOptions{Connection: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, d)
		}
		got := readBack(t, p, ds)
		if borrowed(got[1]) != "" {
			t.Errorf("a %d-byte message borrowed %q", len(long), borrowed(got[1]))
		}
		// The long message fills what a text may borrow (maxBorrowBytes):
		// its end is taken, marked as cut, and the run stops there.
		kw := borrowed(got[2])
		if !strings.HasPrefix(kw, "Ben: …") || !strings.HasSuffix(kw, "the rock was warm") || len(kw) > 300+len("…") {
			t.Errorf("a short message after a long one borrowed %q (%d bytes), want the long one's end within 300 bytes", kw, len(kw))
		}
		if strings.Contains(kw, "climbing") {
			t.Errorf("past the budget the run went on: borrowed %q", kw)
		}
	})
}

// A text stored after a silence of episodeSilence or more starts a new
// episode of its session or connection: it borrows nothing from the texts
// before the silence, on every path (through a connection, in a session
// one text at a time, in a batch of session turns), while a reply a few
// minutes after the message it answers borrows it as always.
func TestSilenceEndsWhatATextBorrows(t *testing.T) {
	t.Parallel()
	checkBorrowedOnEveryPath(t, []string{
		"(2024-03-02 09:15) Ana: Do you still go rock climbing on weekends?",
		"(2024-03-02 09:17) Ben: every spring, in Yosemite",
		"(2024-03-02 13:40) Ben: back from lunch, the build is green",
	}, []string{"", "Ana: Do you still go rock climbing on weekends?", ""})
}

// A reply answers the message before it however late it comes within a
// day (replyWindow): Ben's answer the next morning borrows Ana's question
// of the evening before. A message of another speaker two days later
// opens a new conversation and borrows nothing.
func TestAReplyBorrowsAcrossASilence(t *testing.T) {
	t.Parallel()
	checkBorrowedOnEveryPath(t, []string{
		"(2024-03-02 21:05) Ana: How was the trip to Norway?",
		"(2024-03-03 08:40) Ben: amazing, we saw the fjords",
		"(2024-03-05 10:00) Ana: Hey, are you free on Friday?",
	}, []string{"", "Ana: How was the trip to Norway?", ""})
}

// checkBorrowedOnEveryPath writes chat (texts that open with their time,
// "(2024-03-02 09:15) ") on every path (through a connection, in a session
// one text at a time, in a batch of session turns) and checks what each
// text borrowed.
func checkBorrowedOnEveryPath(t *testing.T, chat, want []string) {
	t.Helper()
	for _, through := range []string{"connection", "session"} {
		t.Run(through, func(t *testing.T) {
			t.Parallel()
			p := palacetest.MustOpenPalace(t)
			checkBorrowed(t, readBack(t, p, rememberAll(t, p, through, chat)), want)
		})
	}
	t.Run("batch", func(t *testing.T) {
		t.Parallel()
		p := palacetest.MustOpenPalace(t)
		var ds []*palace.Drawer
		for _, text := range chat {
			m := palace.ReadTextMeta(text)
			ds = append(ds, &palace.Drawer{Kind: palace.KindTurn, SessionID: "s1", Content: text[len("(2024-03-02 09:15) "):],
				SenderIDs: []string{m.Speaker}, Timestamp: m.When})
		}
		if err := p.AddMany(context.Background(), ds); err != nil {
			t.Fatal(err)
		}
		checkBorrowed(t, readBack(t, p, ds), want)
	})
}

// readBack reads drawers back from the palace, as stored.
func readBack(t *testing.T, p *palace.Palace, ds []*palace.Drawer) []*palace.Drawer {
	t.Helper()
	var out []*palace.Drawer
	for _, d := range ds {
		got, err := p.Get(context.Background(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got)
	}
	return out
}

// rememberAll writes texts one at a time through one connection, or in a
// session with a new connection for every text (only the store knows what
// came before).
func rememberAll(t *testing.T, p *palace.Palace, through string, texts []string) []*palace.Drawer {
	t.Helper()
	var ds []*palace.Drawer
	for _, text := range texts {
		o := palace.RememberOptions{Connection: "c1"}
		if through == "session" {
			o = palace.RememberOptions{Session: "s1", Connection: text}
		}
		d, err := p.Remember(context.Background(), text, o)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

// checkBorrowed checks what each of the drawers read back borrowed.
func checkBorrowed(t *testing.T, got []*palace.Drawer, want []string) {
	t.Helper()
	for i, d := range got {
		if borrowed(d) != want[i] {
			t.Errorf("message %d (%q) borrowed %q, want %q", i, d.Content, borrowed(d), want[i])
		}
	}
}

// borrowed is what d borrowed: its keywords without the names its text
// addresses, which follow a record separator (palace/address.go).
func borrowed(d *palace.Drawer) string {
	kw, _, _ := strings.Cut(d.Keywords, "\x1e")
	return kw
}
