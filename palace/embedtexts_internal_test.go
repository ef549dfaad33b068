package palace

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
)

// countingEmbedder is the hash embedder, counting the texts it is given.
type countingEmbedder struct {
	embed.Embedder
	mu    sync.Mutex
	given map[string]int
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	for _, t := range texts {
		c.given[t]++
	}
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, texts)
}

// A conversation recorded without a user id stores its episode once for
// each participant, in the same words: the encoder reads it once, and each
// drawer still owns its vectors.
func TestATextGivenTwiceIsEmbeddedOnce(t *testing.T) {
	counter := &countingEmbedder{Embedder: embed.NewHash(64)}
	p := newTestPalaceWith(t, counter)
	var long strings.Builder
	for i := range 400 { // long enough to be embedded as passages too
		long.WriteString([]string{"the ", "harbour ", "pilot ", "tide ", "chart "}[i%5])
	}
	ds := []*Drawer{{Content: long.String()}, {Content: "a short note"}, {Content: long.String()}}
	counter.mu.Lock()
	counter.given = map[string]int{}
	counter.mu.Unlock()
	vs := p.Embed(context.Background(), ds)

	if len(vs[0].Passages) < 2 {
		t.Fatalf("the long text has %d vector passages, want several", len(vs[0].Passages))
	}
	for text, n := range counter.given {
		if n != 1 {
			t.Errorf("embedded %d times: %.40q", n, text)
		}
	}
	if len(vs[2].Passages) != len(vs[0].Passages) || !equalVector(vs[0].Whole, vs[2].Whole) {
		t.Fatal("the same text got different vectors")
	}
	for j := range vs[0].Passages {
		if !equalVector(vs[0].Passages[j], vs[2].Passages[j]) {
			t.Fatalf("passage %d differs between the two copies", j)
		}
	}
	vs[2].Whole[0] += 1
	vs[2].Passages[0][0] += 1
	if vs[0].Whole[0] == vs[2].Whole[0] || vs[0].Passages[0][0] == vs[2].Passages[0][0] {
		t.Error("the two drawers share one vector's memory")
	}
}

func equalVector(a, b []float32) bool {
	if len(a) != len(b) || a == nil {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The encoder reads an emoji that names a thing as its words, in its
// place, in a drawer's text, its passages and a query; the emoji a
// speaker's label ends with stay, being part of a name, and so do faces.
func TestTheEncoderReadsEmojiAsWords(t *testing.T) {
	counter := &countingEmbedder{Embedder: embed.NewHash(64), given: map[string]int{}}
	p := newTestPalaceWith(t, counter)
	long := "[D1:1] (8 May, 2023) Jess 🌸: off to 🇯🇵 with my 🐶😂" + strings.Repeat(" and then the harbour", 40)
	p.Embed(context.Background(), []*Drawer{{Content: long}})
	p.queryVector(context.Background(), "🍕 tonight?")
	var whole, passage, query bool
	for text := range counter.given {
		whole = whole || strings.HasPrefix(text, "Jess 🌸: off to Japan with my dog 😂")
		passage = passage || strings.HasPrefix(text, "[D1:1] (8 May, 2023) Jess 🌸: off to Japan with my dog 😂")
		query = query || text == "pizza tonight?"
		if strings.Contains(text, "cherry blossom") {
			t.Errorf("a label's emoji read as words: %.60q", text)
		}
	}
	if !whole || !passage || !query {
		t.Errorf("emoji read as words: whole text %v, passage %v, query %v; the encoder was given %v", whole, passage, query, counter.given)
	}
}

// The encoder reads the word a misspelt, drawn-out or informal word
// stands for, in its place, in a drawer's text, its passages and a query,
// as the keyword index reads it, where its vocabulary lacks the word as
// written ("bday"); a word it knows ("fam", "pics", "harbour"), an
// identifier and a known name stay as written.
func TestTheEncoderReadsTheWordMeant(t *testing.T) {
	counter := &countingEmbedder{Embedder: embed.NewHash(64), given: map[string]int{}}
	p := newTestPalaceWith(t, counter)
	long := "[D1:1] (8 May, 2023) Caroline: our vacaton with the fam was goood, couldn't be better, parseHTTPResponse aside" +
		strings.Repeat(" and then the harbour", 40)
	p.Embed(context.Background(), []*Drawer{{Content: long}})
	p.queryVector(context.Background(), "any bday pics from the vacaton?")
	const said = "Caroline: our vacation with the fam was good, couldn't be better, parseHTTPResponse aside and then the harbour"
	var whole, passage, query bool
	for text := range counter.given {
		whole = whole || strings.HasPrefix(text, said)
		passage = passage || strings.HasPrefix(text, "[D1:1] (8 May, 2023) "+said)
		query = query || text == "any birthday pics from the vacation?"
	}
	if !whole || !passage || !query {
		t.Errorf("the words meant read: whole text %v, passage %v, query %v; the encoder was given %v", whole, passage, query, counter.given)
	}
}
