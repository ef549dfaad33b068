package palace_test

import (
	"context"
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
	if q.Keywords != "" {
		t.Errorf("the first text of a connection borrowed %q", q.Keywords)
	}
	other := remember("Caroline: The parade starts at noon.", "b")
	if other.Keywords != "" {
		t.Errorf("a text of connection b borrowed %q from connection a", other.Keywords)
	}
	a := remember("(8 May, 2023) Caroline: Yes, every spring in Yosemite.", "a")
	if a.Keywords != q.Content {
		t.Errorf("keywords = %q, want the text before it in the connection", a.Keywords)
	}
	if n := remember("The deploy runs on Fridays.", "a"); n.Keywords != "" {
		t.Errorf("a standalone note (no speaker) borrowed %q", n.Keywords)
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
	if got.SessionID != "s1" || got.Keywords != first.Content {
		t.Errorf("session %q keywords %q; want s1 and the session's previous text", got.SessionID, got.Keywords)
	}
	if len(got.SenderIDs) != 1 || got.SenderIDs[0] != "assistant" {
		t.Errorf("senders = %v, want [assistant]", got.SenderIDs)
	}
}
