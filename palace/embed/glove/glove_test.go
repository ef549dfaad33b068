package glove_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/embed/glove"
)

func TestKnownWords(t *testing.T) {
	e := glove.New()
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"The Cat sat.", []string{"the", "cat", "sat"}},
		{"I don't know, she’s well-known!", []string{"do", "not", "know", "she", "well-known"}},
		{"We can't go; they'll co-sign", []string{"we", "can", "not", "go", "they", "will", "co", "sign"}},
		{"ＡＢＣ CAFE", []string{"abc", "cafe"}},
		{"function xyzzyqq_foo() 12345", []string{"function", "foo"}},
	} {
		got, err := e.Known(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Known(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEmbed(t *testing.T) {
	e := glove.New()
	if e.ID() != glove.ID || e.Dim() != glove.Dim {
		t.Fatalf("ID %q Dim %d", e.ID(), e.Dim())
	}
	vs, err := e.Embed(context.Background(), []string{
		"The kitten slept on the rug.",
		"A cat rested on the carpet.",
		"Stock markets fell sharply after the interest rate decision.",
		"zzqxv 12345 ___",
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if n := embed.Dot(vs[i], vs[i]); math.Abs(float64(n)-1) > 1e-5 {
			t.Errorf("vector %d norm² %v", i, n)
		}
	}
	if n := embed.Dot(vs[3], vs[3]); n != 0 {
		t.Errorf("out-of-vocabulary text: norm² %v, want 0", n)
	}
	if near, far := embed.Dot(vs[0], vs[1]), embed.Dot(vs[0], vs[2]); near < far+0.2 {
		t.Errorf("paraphrase %v vs unrelated %v", near, far)
	}
	if lt := e.LoadTime(); lt <= 0 || lt > time.Second {
		t.Errorf("load time %v", lt)
	}
}

func BenchmarkEmbedSentence(b *testing.B) {
	e := glove.New()
	ctx := context.Background()
	texts := []string{"Caroline: I went to the LGBTQ support group yesterday and it was so powerful."}
	if _, err := e.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.ReportMetric(float64(glove.New().LoadTime().Microseconds())/1000, "load-ms")
	}
}
