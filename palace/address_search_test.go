package palace_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A message's form of address ("Nice work, Bob!") is not a word it is
// found by: a question that names Bob finds what Bob said, not what was
// said to him, and the message is still found by all its other words.
func TestNameSaidToItsBearerIsNotAKeyword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	at := time.Date(2024, 3, 2, 10, 0, 0, 0, time.UTC)
	turns := []struct{ who, text string }{
		{"Bob", "Hey Ana, I repaired the old fence today"},
		{"Ana", "Nice work, Bob! My quilt is finished"},
		{"Bob", "Show me, Ana!"},
	}
	var ds []*palace.Drawer
	for i, tu := range turns {
		ds = append(ds, &palace.Drawer{Kind: palace.KindTurn, Content: tu.text, SessionID: "s1",
			SenderIDs: []string{tu.who}, Timestamp: at.Add(time.Duration(i) * time.Minute)})
	}
	if err := p.AddMany(ctx, ds); err != nil {
		t.Fatal(err)
	}
	// The drawers that match q's words (a keyword search also returns
	// its best hits' neighbours, which match nothing).
	keyword := func(q string) []string {
		t.Helper()
		hits, err := p.Search(ctx, palace.SearchRequest{Query: q, Mode: palace.ModeKeyword, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			if h.BM25 > 0 {
				ids = append(ids, h.Drawer.ID)
			}
		}
		return ids
	}
	// "Bob" is said only to Bob (and borrowed by the reply to that).
	if got := keyword("Bob"); len(got) != 0 {
		t.Errorf(`keyword search "Bob" matched %v; no text is about Bob by that word`, got)
	}
	// The opening message answers no one, so its "Ana" stays (and the
	// reply to it borrows it); the answer to Ana does not match her name.
	if got := keyword("Ana"); len(got) == 0 || got[0] != ds[0].ID || slices.Contains(got, ds[2].ID) {
		t.Errorf(`keyword search "Ana" matched %v, want %s first and not %s`, got, ds[0].ID, ds[2].ID)
	}
	if got := keyword("quilt"); len(got) == 0 || got[0] != ds[1].ID {
		t.Errorf(`keyword search "quilt" matched %v, want %s first`, got, ds[1].ID)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "What did Bob repair?", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Drawer.ID != ds[0].ID {
		t.Errorf("What did Bob repair? ranked %v first, want %q", hits, ds[0].Content)
	}
	got, err := p.Get(ctx, ds[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != turns[1].text {
		t.Errorf("stored %q, not the text as written %q", got.Content, turns[1].text)
	}
}
