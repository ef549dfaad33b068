package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// An informal word ("fam", "pics", "bday") or a British spelling
// ("organised") is found by the standard word a question uses, and such a
// word of a query asks for its standard word too, with or without a
// spelling lexicon. The text is unchanged.
func TestWordsAreFoundByTheirStandardForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		lex  func([]byte) bool
	}{{"with a lexicon", func(w []byte) bool { return len(w) > 0 }}, {"without", nil}} {
		p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Lexicon: c.lex}), "p")
		camping := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Went camping with my fam two weekends ago"})
		party := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Here are some pics from the bday party"})
		book := palacetest.MustAdd(t, p, &palace.Drawer{Content: "My favorite book is still Dune"})
		palacetest.MustAdd(t, p, &palace.Drawer{Content: "The book club meets on Monday; camping gear is in the garage"})
		palacetest.MustAdd(t, p, &palace.Drawer{Content: "The party went on past midnight"})
		street := palacetest.MustAdd(t, p, &palace.Drawer{Content: "We organised a street party for the whole neighbourhood"})
		t.Run(c.name, func(t *testing.T) {
			for _, q := range []struct {
				query string
				want  *palace.Drawer
			}{
				{"family", camping},
				{"birthday photos", party},
				{"my fav", book},
				{"my favourite", book},
				{"who organized it", street},
				{"neighborhood", street},
			} {
				wantFirst(t, p, q.query, q.want)
			}
		})
		d, err := p.Get(ctx, camping.ID)
		if err != nil || d.Content != camping.Content {
			t.Errorf("%s: stored text %q (%v)", c.name, d.Content, err)
		}
	}
}

// The past of an irregular verb is found by the verb a question asks
// with ("What did she buy?" finds "I bought"), and a query's past form
// asks for its verb too; a form with a second common sense is not read
// ("left" is also a side).
func TestIrregularVerbsAreFoundByTheirVerb(t *testing.T) {
	t.Parallel()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	guitar := palacetest.MustAdd(t, p, &palace.Drawer{Content: "I bought a red guitar at the flea market"})
	lisbon := palacetest.MustAdd(t, p, &palace.Drawer{Content: "We went to Lisbon in April and ate grilled sardines"})
	pottery := palacetest.MustAdd(t, p, &palace.Drawer{Content: "They teach pottery at the Saturday workshop"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "The flea market sells old records on Sundays"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "Lisbon is lovely in April, they say"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "The workshop is on Friday this week"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "Turn left after the market"})
	for _, q := range []struct {
		query string
		want  *palace.Drawer
	}{
		{"what did she buy at the market", guitar},
		{"where did they go in April", lisbon},
		{"what did they eat", lisbon},
		{"what was taught at the workshop", pottery},
	} {
		wantFirst(t, p, q.query, q.want)
	}
	// "leave" is not read into "left".
	if hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "leave", Mode: palace.ModeKeyword, NoAccess: true}); err != nil || len(hits) != 0 {
		t.Errorf("\"leave\" finds %d texts (%v), want none", len(hits), err)
	}
}

// An irregular plural is found by its noun and the noun by its plural
// ("children" and "child", "wolves" and "wolf"), which Porter's stemmer
// does not join; "men" is not read as "man", which is also said to anyone.
func TestIrregularPluralsAreFoundByTheirNoun(t *testing.T) {
	t.Parallel()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	kids := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Both children started school in September"})
	wolf := palacetest.MustAdd(t, p, &palace.Drawer{Content: "We heard a wolf howling near the cabin"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "School starts in September for everyone"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "The cabin has no heating"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "Man, that was a close call"})
	for _, q := range []struct {
		query string
		want  *palace.Drawer
	}{
		{"when did her child start school", kids},
		{"were there wolves", wolf},
	} {
		wantFirst(t, p, q.query, q.want)
	}
	if hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "men", Mode: palace.ModeKeyword, NoAccess: true}); err != nil || len(hits) != 0 {
		t.Errorf("\"men\" finds %d texts (%v), want none", len(hits), err)
	}
}
