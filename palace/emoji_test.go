package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// An emoji that names a thing is found by its words ("my new 🐶" by
// "dog", "off to 🇯🇵" by "Japan"), and such an emoji of a query asks for
// its words; a face names nothing, and the emoji a speaker's label ends
// with are part of a name. The text is unchanged.
func TestEmojiAreFoundByTheirWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	puppy := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Finally brought home our new 🐶 today!"})
	trip := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Off to 🇯🇵 tomorrow, so excited 😂"})
	pizza := palacetest.MustAdd(t, p, &palace.Drawer{Content: "We had pizza at Luigi's after the match"})
	tacos := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Friday night plan 🌮: the place on Elm Street"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "[D1:2] (8 May, 2023) Jess 🌸: see you at the station"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "The new schedule starts today"})
	for _, q := range []struct {
		query string
		want  *palace.Drawer
	}{
		{"dog", puppy},
		{"when is the Japan trip", trip},
		{"🍕", pizza},
		{"taco night", tacos}, // an emoji before a colon is no label but at a text's start
	} {
		wantFirst(t, p, q.query, q.want)
	}
	for _, q := range []string{"cherry blossom", "tears of joy"} {
		if hits, err := p.Search(ctx, palace.SearchRequest{Query: q, Mode: palace.ModeKeyword, NoAccess: true}); err != nil || len(hits) != 0 {
			t.Errorf("%q finds %d texts (%v), want none", q, len(hits), err)
		}
	}
	if d, err := p.Get(ctx, puppy.ID); err != nil || d.Content != puppy.Content {
		t.Errorf("stored text %q (%v)", d.Content, err)
	}
}
