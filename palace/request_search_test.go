package palace_test

import (
	"context"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A query that opens with a request to the memory is ranked by what it
// asks for: "notes" and "memories", words of a few texts here, do not
// bring those texts first, and "your notes" does not ask for what the
// assistant said. The same questions without their request rank the same
// texts first.
func TestARequestIsSearchedByWhatItAsks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	add := func(speaker, text string) *palace.Drawer {
		d, err := p.Remember(ctx, text, palace.RememberOptions{Speaker: speaker})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	add("assistant", "I keep detailed notes on every sprint retrospective, and memories of each demo.")
	add("assistant", "Those memories of the summer in Lisbon are lovely; my notes say you loved the tram.")
	billing := add("user", "The billing service moved to PostgreSQL 16 in March.")
	dog := add("user", "Our dog Rex loves running on the beach every morning.")
	add("user", "My sister adopted a kitten named Miso last week.")
	for i, filler := range []string{
		"The standup moved to 9:30 on Mondays.",
		"We rotate the on-call schedule every two weeks.",
		"The design review for the search page is on Thursday.",
		"Lunch is catered on Fridays.",
		"The VPN certificate expires in December.",
		"The new laptop order went through procurement.",
	} {
		add([]string{"user", "assistant"}[i%2], filler)
	}
	for _, c := range []struct {
		query string
		want  *palace.Drawer
	}{
		{"Search your notes for information on the billing database", billing},
		{"the billing database", billing},
		{"Look up any memories about the dog", dog},
		{"the dog", dog},
		{"What do you remember about the beach?", dog},
	} {
		for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeHybrid} {
			hits, err := p.Search(ctx, palace.SearchRequest{Query: c.query, Mode: mode, K: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Drawer.ID != c.want.ID {
				var got []string
				for _, h := range hits {
					got = append(got, h.Drawer.Content)
				}
				t.Errorf("%s %q: first %q, want %q", mode, c.query, got, c.want.Content)
			}
		}
	}
}
