package palace_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

func TestPassagesCoverTheText(t *testing.T) {
	t.Parallel()
	if palace.Passages(strings.Repeat("word ", palace.PassageWords)) != nil {
		t.Fatal("a text of one window was split")
	}
	words := make([]string, 1000)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	text := strings.Join(words, "  \n")
	spans := palace.Passages(text)
	if len(spans) < 2 || spans[0].Start != 0 || spans[len(spans)-1].End != len(text) {
		t.Fatalf("spans %v do not cover the text", spans)
	}
	for i, sp := range spans {
		n := len(strings.Fields(text[sp.Start:sp.End]))
		if n > palace.PassageWords || n < palace.PassageWords/2 {
			t.Errorf("passage %d has %d words", i, n)
		}
		if i > 0 && sp.Start >= spans[i-1].End {
			t.Errorf("passages %d and %d do not overlap", i-1, i)
		}
	}
}

// A 4 MiB text is stored whole, found by a phrase from its middle (first
// by keywords and hybrid; by vectors among the hits, since a text this
// long is embedded in wide windows, see maxVectorPassages, which a short
// note sharing a word of the query may outrank), and returned once, with
// the passage that matched.
func TestLongTextFoundByItsMiddle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	r := rand.New(rand.NewSource(1))
	vocab := strings.Fields(`the of and a to in is was for on that with as by at from it this be are
		log line request server client error retry timeout cache disk queue worker deploy build test
		memory index vector token user agent session palace drawer room value field record batch`)
	var b strings.Builder
	for b.Len() < palace.MaxContentBytes-4096 {
		b.WriteString(vocab[r.Intn(len(vocab))])
		b.WriteByte(' ')
		if r.Intn(12) == 0 {
			b.WriteString(". ")
		}
	}
	filler := b.String()
	needle := "The quarterly zeppelin inspection found a cracked rudder hinge near gondola seven."
	mid := len(filler) / 2
	mid = strings.LastIndexByte(filler[:mid], ' ') + 1
	text := filler[:mid] + needle + " " + filler[mid:]
	long := palacetest.MustAdd(t, p, &palace.Drawer{Content: text, Room: "Research"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "A short note about the rudder of a sailing boat."})
	got, err := p.Get(ctx, long.ID)
	if err != nil || got.Content != strings.TrimSpace(text) {
		t.Fatalf("the long text was not stored whole (%d bytes, want %d): %v", len(got.Content), len(text), err)
	}
	for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeVector, palace.ModeHybrid} {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "zeppelin inspection cracked rudder hinge gondola", Mode: mode, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		seen := timesFound(hits, long)
		first := len(hits) > 0 && hits[0].Drawer.ID == long.ID
		if seen != 1 || !first && mode != palace.ModeVector {
			t.Fatalf("%s: the long drawer is not first exactly once: %d hits, seen %d times", mode, len(hits), seen)
		}
		var sp *palace.Span
		for _, h := range hits {
			if h.Drawer.ID == long.ID {
				sp = h.Passage
			}
		}
		if sp == nil || !strings.Contains(got.Content[sp.Start:sp.End], "zeppelin inspection") {
			t.Fatalf("%s: the passage returned does not hold the match: %+v", mode, sp)
		}
		if sp.End-sp.Start > 4096 {
			t.Fatalf("%s: the passage is %d bytes; a passage is a window, not the text", mode, sp.End-sp.Start)
		}
	}
	if _, _, err := p.Forget(ctx, long.ID); err != nil {
		t.Fatal(err)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "zeppelin inspection", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Drawer.ID == long.ID {
			t.Fatal("a forgotten long drawer is still found through one of its passages")
		}
	}
	if err := p.Add(ctx, &palace.Drawer{Content: strings.Repeat("x", palace.MaxContentBytes+1)}); err == nil {
		t.Fatal("a text over the limit was stored")
	}
}

func TestSpanOf(t *testing.T) {
	text := "hello world"
	for _, c := range []struct {
		sp   *palace.Span
		want string
		ok   bool
	}{
		{&palace.Span{Start: 6, End: 11}, "world", true},
		{nil, "", false},
		{&palace.Span{Start: 3, End: 3}, "", false},
		{&palace.Span{Start: -1, End: 4}, "", false},
		{&palace.Span{Start: 6, End: 12}, "", false},
	} {
		if got, ok := c.sp.Of(text); got != c.want || ok != c.ok {
			t.Errorf("%+v.Of = %q, %v; want %q, %v", c.sp, got, ok, c.want, c.ok)
		}
	}
}
