package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A message that shares no word with the question ("I'm excited!") is
// found by the words of the topic its conversation had just repeated
// ("the opening of the studio"), in a session batch and through a
// connection alike.
func TestMessageIsFoundByItsConversationsTopic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	chat := []string{
		"Gina: When is the opening of your dance studio?",
		"Jon: The studio opening is on Saturday",
		"Gina: Don't miss a beat!",
		"Jon: Thanks, Gina!",
		"Jon: I'm excited!",
		"Gina: Me too. Did you finish the taxes?",
		"Jon: Almost, the forms are a pain",
	}
	ask := func(t *testing.T, p *palace.Palace, want string) {
		t.Helper()
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "How does he feel about the opening of his studio?",
			Mode: palace.ModeKeyword, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		// Keyword search returns only drawers that match the question's
		// words: without its topic, this one matches none.
		for _, h := range hits {
			if h.Drawer.ID == want {
				return
			}
		}
		t.Errorf("%q is not among the hits %v", chat[4], hits)
	}
	t.Run("session", func(t *testing.T) {
		t.Parallel()
		p := palacetest.MustOpenPalace(t)
		ds := sessionTurns(chat)
		if err := p.AddMany(ctx, ds); err != nil {
			t.Fatal(err)
		}
		ask(t, p, ds[4].ID)
	})
	t.Run("connection", func(t *testing.T) {
		t.Parallel()
		p := palacetest.MustOpenPalace(t)
		var excited string
		for i, text := range chat {
			d, err := p.Remember(ctx, text, palace.RememberOptions{Connection: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			if i == 4 {
				excited = d.ID
			}
		}
		ask(t, p, excited)
	})
}
