package embed_test

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
)

func TestHashBasics(t *testing.T) {
	e := embed.NewHash(0)
	if got, want := e.ID(), embed.HashID; got != want {
		t.Fatalf("ID = %q, want %q", got, want)
	}
	if got, want := e.Dim(), embed.HashDim; got != want {
		t.Fatalf("Dim = %d, want %d", got, want)
	}
	if got, want := embed.NewHash(128).ID(), "hash-v1/128"; got != want {
		t.Fatalf("ID(128) = %q, want %q", got, want)
	}
	texts := []string{
		"The cat sat on the mat.",
		"the CAT sat on the mat",
		"Quarterly revenue grew by twelve percent.",
		"",
		"!!! ...",
	}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("got %d vectors, want %d", len(vs), len(texts))
	}
	for i, v := range vs[:3] {
		if len(v) != embed.HashDim {
			t.Fatalf("vector %d has %d dims", i, len(v))
		}
		if n := embed.Dot(v, v); math.Abs(float64(n)-1) > 1e-5 {
			t.Errorf("vector %d norm² = %v, want 1", i, n)
		}
	}
	for i := 3; i < 5; i++ {
		if n := embed.Dot(vs[i], vs[i]); n != 0 {
			t.Errorf("vector %d (no words) norm² = %v, want 0", i, n)
		}
	}
	if s := embed.Dot(vs[0], vs[1]); s < 0.999 {
		t.Errorf("case/punctuation variants: cosine %v, want ~1", s)
	}
	if s := embed.Dot(vs[0], vs[2]); s > 0.3 {
		t.Errorf("unrelated sentences: cosine %v, want small", s)
	}
	again, _ := e.Embed(context.Background(), texts[:1])
	if !reflect.DeepEqual(again[0], vs[0]) {
		t.Error("not deterministic")
	}
}

func TestHashSharesMorphology(t *testing.T) {
	e := embed.NewHash(embed.HashDim)
	vs, _ := e.Embed(context.Background(), []string{"running shoes", "run shoe", "tax invoice"})
	if near, far := embed.Dot(vs[0], vs[1]), embed.Dot(vs[0], vs[2]); near <= far+0.2 {
		t.Errorf("trigrams should relate running/run: near %v far %v", near, far)
	}
}

func TestHashWords(t *testing.T) {
	got := embed.HashWords("Ｈｅｌｌｏ, wörld! snake_case x2")
	want := []string{"hello", "wörld", "snake", "case", "x2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("HashWords = %q, want %q", got, want)
	}
}

func TestHashCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := embed.NewHash(0).Embed(ctx, []string{"x"}); err == nil {
		t.Fatal("want error from cancelled context")
	}
}

func BenchmarkHashSentence(b *testing.B) {
	e := embed.NewHash(embed.HashDim)
	ctx := context.Background()
	texts := []string{"Caroline: I went to the LGBTQ support group yesterday and it was so powerful."}
	for i := 0; i < b.N; i++ {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLexical(t *testing.T) {
	for _, c := range []struct {
		e    embed.Embedder
		want bool
	}{
		{embed.NewHash(0), true},
		{embed.NewHash(64), true},
		{named{embed.NewHash(0), "hash-v10"}, false},
		{named{embed.NewHash(0), "openai/hash-like"}, false},
	} {
		if got := embed.Lexical(c.e); got != c.want {
			t.Errorf("Lexical(%s) = %v", c.e.ID(), got)
		}
	}
}

// named is an embedder under another ID.
type named struct {
	embed.Embedder
	id string
}

func (n named) ID() string { return n.id }
