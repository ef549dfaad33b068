package palace

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A palace of an earlier release embedded long texts in the keyword
// window. Until it is re-embedded, search maps those passage vectors to
// their old spans; Reembed then re-embeds exactly the drawers whose
// passage vectors are of the old window (a text longer than one vector
// window but shorter than a keyword window had none), records the window,
// and a second run finds nothing to do.
func TestReembedMovesPassageVectorsToTheVectorWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newTestPalace(t)
	filler := func(tag string, n int) []string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("%s%d", tag, i%37)
		}
		return w
	}
	needle := "zeppelin rudder hinge gondola"
	lw := filler("log", 400)
	long := strings.Join(lw[:200], " ") + " " + needle + " " + strings.Join(lw[200:], " ")
	medium := strings.Join(filler("memo", 80), " ")
	short := "a short note about a sailing boat"
	var ds []*Drawer
	for _, text := range []string{long, medium, short} {
		d := &Drawer{Content: text}
		if err := p.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	if h, err := p.IndexHealth(ctx); err != nil || h.StalePassages {
		t.Fatalf("a new palace: %+v (%v), want its vector window recorded", h, err)
	}
	stored := func(when string) {
		t.Helper()
		for _, d := range ds {
			got, err := p.Get(ctx, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.VecPassages != len(VectorPassages(d.Content)) {
				t.Fatalf("%s: a drawer of %d words has %d passage vectors, want %d", when,
					len(strings.Fields(d.Content)), got.VecPassages, len(VectorPassages(d.Content)))
			}
		}
	}
	stored("written")

	// Make it a palace of the earlier release: passage vectors in the
	// keyword window, no window recorded.
	storeOldVectors(t, p, ds, "", func(d *Drawer) []string {
		texts := []string{embedText(d, nil)}
		for _, sp := range Passages(d.Content) {
			texts = append(texts, d.Content[sp.Start:sp.End])
		}
		return texts
	})
	if h, err := p.IndexHealth(ctx); err != nil || !h.StalePassages || h.StaleVectors != 0 {
		t.Fatalf("the earlier release's palace: %+v (%v), want stale passages only", h, err)
	}

	// passage finds the vector hit on the needle and its span's words.
	passage := func(what string, window int) {
		t.Helper()
		hits, err := p.Search(ctx, SearchRequest{Query: needle, Mode: ModeVector, K: 3})
		if err != nil || len(hits) == 0 || hits[0].Drawer.ID != ds[0].ID || hits[0].Passage == nil {
			t.Fatalf("%s: %+v (%v), want the long drawer with a passage", what, hits, err)
		}
		sp := hits[0].Passage
		text := long[sp.Start:sp.End]
		if !strings.Contains(text, needle) || len(strings.Fields(text)) != window {
			t.Fatalf("%s: passage of %d words %q, want the needle in a window of %d",
				what, len(strings.Fields(text)), text, window)
		}
	}
	passage("old vectors", PassageWords)

	n, err := p.Reembed(ctx, 2)
	if err != nil || n != 2 {
		t.Fatalf("Reembed re-embedded %d drawers (%v), want the long and the medium one", n, err)
	}
	stored("after Reembed")
	if h, err := p.IndexHealth(ctx); err != nil || h.StalePassages {
		t.Fatalf("after Reembed: %+v (%v), want the window recorded", h, err)
	}
	passage("new vectors", VectorPassageWords)
	if n, err := p.Reembed(ctx, 2); err != nil || n != 0 {
		t.Fatalf("a second Reembed re-embedded %d (%v)", n, err)
	}
}

// vectorSpans reads a stored count in either window, and nothing else;
// the vector passages of a very long text stay within maxVectorPassages,
// cover it with overlapping windows, and never number as many as its
// keyword passages (between 303,030 and 307,125 words the bound's widened
// window would be the keyword window itself).
func TestVectorSpansKnowsBothWindows(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("w ", 800_000)
	for _, words := range []int{51, 120, 151, 400, 5000, 102_500, 200_000, 303_100, 305_000, 307_125, 790_000} {
		text := long[:2*words-1]
		vec, kw := VectorPassages(text), Passages(text)
		if len(vec) > maxVectorPassages || len(vec) < 2 || vec[0].Start != 0 || vec[len(vec)-1].End != len(text) {
			t.Fatalf("%d words: %d vector passages from %d to %d", words, len(vec), vec[0].Start, vec[len(vec)-1].End)
		}
		for i := 1; i < len(vec); i++ {
			if vec[i].Start >= vec[i-1].End {
				t.Fatalf("%d words: vector passages %d and %d do not overlap", words, i-1, i)
			}
		}
		if len(vec) == len(kw) {
			t.Fatalf("%d words: both windows give %d passages, so a stored count cannot tell them apart", words, len(vec))
		}
		if got := vectorSpans(text, len(vec)); len(got) != len(vec) || got[0] != vec[0] {
			t.Errorf("%d words: vector window not recognised", words)
		}
		if len(kw) > 0 {
			if got := vectorSpans(text, len(kw)); len(got) != len(kw) || got[len(got)-1] != kw[len(kw)-1] {
				t.Errorf("%d words: keyword window not recognised", words)
			}
		}
		if vectorSpans(text, len(vec)+1) != nil || vectorSpans(text, 0) != nil {
			t.Errorf("%d words: a count of neither window gave spans", words)
		}
	}
}

// A palace whose vectors were made before they read identifiers' words
// (vectorWords) re-embeds exactly its texts that hold one, short or long,
// records the layout, and finds nothing to do the second time.
func TestReembedGivesIdentifiersTheirWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newTestPalace(t)
	var ds []*Drawer
	for _, text := range []string{
		"resp, err := parseHTTPResponse(conn)",
		"a short note about a sailing boat",
		"cfg.max_attempts = 3",
	} {
		d := &Drawer{Content: text}
		if err := p.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	// Make it a palace of the earlier layout: vectors of the text alone.
	storeOldVectors(t, p, ds, "50/25/4096/cjk", func(d *Drawer) []string { return []string{d.Content} })
	if h, err := p.IndexHealth(ctx); err != nil || !h.StalePassages {
		t.Fatalf("the earlier layout's palace: %+v (%v), want it stale", h, err)
	}
	before := map[string]int64{}
	for _, d := range ds {
		got, err := p.Get(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		before[d.ID] = got.Seq
	}
	if n, err := p.Reembed(ctx, 8); err != nil || n != 1 {
		t.Fatalf("Reembed re-embedded %d drawers (%v), want the one with an identifier", n, err)
	}
	for i, d := range ds {
		got, err := p.Get(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if moved := got.Seq != before[d.ID]; moved != (i == 0) {
			t.Errorf("%q re-embedded: %v", d.Content, moved)
		}
	}
	if h, err := p.IndexHealth(ctx); err != nil || h.StalePassages {
		t.Fatalf("after Reembed: %+v (%v), want the layout recorded", h, err)
	}
	if n, err := p.Reembed(ctx, 8); err != nil || n != 0 {
		t.Fatalf("a second Reembed re-embedded %d (%v)", n, err)
	}
}

// storeOldVectors gives each of ds the vectors of the texts old makes of
// it (its whole text's, then its passages'), as an earlier release stored
// them, and records layout as the palace's vector layout.
func storeOldVectors(t *testing.T, p *Palace, ds []*Drawer, layout string, old func(*Drawer) []string) {
	t.Helper()
	ctx := context.Background()
	err := p.Write(ctx, func(tx *Tx) error {
		for _, d := range ds {
			vs, err := p.emb.Embed(ctx, old(d))
			if err != nil {
				return err
			}
			v := Vectors{Whole: vs[0]}
			if len(vs) > 1 {
				v.Passages = vs[1:]
			}
			seq, err := tx.Log(EventUpdated, d.ID, nil)
			if err != nil {
				return err
			}
			got, err := tx.Get(d.ID)
			if err != nil {
				return err
			}
			if err := tx.st.Drawers().SetVector(ctx, got.RID, seq, p.emb.ID(), seq, *v.encode()); err != nil {
				return err
			}
		}
		return tx.st.Meta().Set(ctx, metaVectorPassages, layout)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A palace whose vectors were made before they read what they now read
// (an emoji's words, the word a misspelt or informal word stands for)
// re-embeds exactly its texts that hold such a thing (a face names
// nothing, and a word the encoder knows is read as written), records the
// layout, and finds nothing to do the second time.
func TestReembedReadsWhatVectorsNowRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, layout string
		texts        []string
		want         int
	}{
		{"emoji", "50/25/4096/cjk/idents", []string{"off to 🇯🇵 tomorrow", "a short note about a sailing boat", "ha 😂😂"}, 1},
		{"the word meant", "50/25/4096/cjk/idents-emoji", []string{"a great vacaton", "a short note about a sailing boat", "see you tmrw", "my mom went home"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := newTestPalace(t)
			var ds []*Drawer
			for _, text := range c.texts {
				d := &Drawer{Content: text}
				if err := p.Add(ctx, d); err != nil {
					t.Fatal(err)
				}
				ds = append(ds, d)
			}
			storeOldVectors(t, p, ds, c.layout, func(d *Drawer) []string { return []string{d.Content} })
			if h, err := p.IndexHealth(ctx); err != nil || !h.StalePassages {
				t.Fatalf("the earlier layout's palace: %+v (%v), want it stale", h, err)
			}
			if n, err := p.Reembed(ctx, 8); err != nil || n != c.want {
				t.Fatalf("Reembed re-embedded %d drawers (%v), want %d", n, err, c.want)
			}
			if n, err := p.Reembed(ctx, 8); err != nil || n != 0 {
				t.Fatalf("a second Reembed re-embedded %d (%v)", n, err)
			}
		})
	}
}
