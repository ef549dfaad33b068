package palace

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// A vector search within a filter scores exactly the drawers the filter
// admits, whichever way their vectors are reached: looked up by key (a
// filter of few) or asked about in the index's order (index.Flat.
// SearchFiltered, here without a graph: a selective filter and a broad
// one). Each way must rank as scoring every vector the filter admits
// does, a long drawer's passages included, and return no drawer from
// outside it.
func TestFilteredVectorSearchIsExactOnEveryPath(t *testing.T) {
	ctx := context.Background()
	p := newTestPalace(t)
	r := rand.New(rand.NewSource(3))
	text := func(n int) string { return drawnWords(r, n) }
	// Rooms of 8, 24 and 100 drawers in 640: the first is looked up by
	// key, the others asked about (the checks below say so, so that the
	// sizes keep choosing those ways).
	sizes := map[string]int{"Frontend": 8, "Backend": 24, "Testing": 100}
	n := 0
	for room, m := range sizes {
		for i := range m {
			words := 12
			if i == 0 {
				words = 3 * PassageWords // passages, and a passage key per window
			}
			noErr(t, p.Add(ctx, &Drawer{Content: text(words), Room: room}))
			n++
		}
	}
	for ; n < 640; n++ {
		noErr(t, p.Add(ctx, &Drawer{Content: text(12), Room: "General"}))
	}
	idx, err := p.vec.sync(ctx)
	noErr(t, err)
	if !p.vec.hasLong() {
		t.Fatal("no drawer has passage vectors")
	}
	for room, path := range map[string]string{"Frontend": "by key", "Backend": "asked", "Testing": "asked"} {
		allowed, err := p.allowedDrawers(ctx, Filter{Room: room})
		noErr(t, err)
		got := "asked"
		if allowed.keys.len()*byKeyFraction <= idx.Len() {
			got = "by key"
		}
		if got != path {
			t.Fatalf("%s (%d drawers of %d vectors) is searched %s, want %s", room, allowed.keys.len(), idx.Len(), got, path)
		}
		for q := range 5 {
			query := text(4)
			res, err := p.vectorSearch(ctx, query, allowed, 10, 10, false)
			noErr(t, err)
			// Every vector the filter admits, scored exactly.
			qv := p.queryVector(ctx, query)
			all, err := p.rerank(ctx, qv, idx.SearchExact(qv, idx.Len(), allowed.hasKey), idx.Len())
			noErr(t, err)
			want, _ := p.vec.activeRIDs(all, 10)
			if len(res) != min(10, sizes[room]) || !slices.Equal(rids(res), rids(want)) {
				t.Fatalf("%s query %d (%s): %v, every admitted vector scored %v", room, q, path, rids(res), rids(want))
			}
			deep, err := p.vectorSearch(ctx, query, allowed, 10, 10, true)
			noErr(t, err)
			if !slices.Equal(rids(deep), rids(want)) {
				t.Fatalf("%s query %d (%s), exhaustive: %v, every admitted vector scored %v", room, q, path, rids(deep), rids(want))
			}
			for _, h := range res {
				if !allowed.hasRID(h.rid) {
					t.Fatalf("%s query %d: drawer %d is not in the room", room, q, h.rid)
				}
			}
		}
	}
}

func rids(list []ranked) []int64 {
	out := make([]int64, len(list))
	for i, r := range list {
		out[i] = r.rid
	}
	return out
}

// drawnWords is n words drawn at random from sixteen nouns.
func drawnWords(r *rand.Rand, n int) string {
	vocab := strings.Fields("river lantern copper meadow violin harbour quartz orchard falcon ember canyon glacier tulip saddle compass velvet")
	w := make([]string, n)
	for i := range w {
		w[i] = vocab[r.Intn(len(vocab))]
	}
	return strings.Join(w, " ")
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
