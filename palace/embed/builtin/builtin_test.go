package builtin_test

import (
	"context"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin"
	"github.com/loci-mem/loci/palace/embed/glove"
	"github.com/loci-mem/loci/palace/embed/use"
)

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		name, id string
		dim      int
		lang     float64 // embed.LanguageShare: the models of words read language only
	}{
		{"use-lite", use.ID, 512, 1},
		{"glove", glove.ID, 100, 1},
		{"hash", embed.HashID, 384, 0},
		{"hybrid", "concat(hash-v1*0.15,glove-100d-sif-v1*0.7,use-lite-v1*0.15)", 996, 0.85},
	} {
		e, err := embed.Lookup(c.name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", c.name, err)
		}
		if e.ID() != c.id || e.Dim() != c.dim {
			t.Errorf("Lookup(%q): ID %q Dim %d, want %q %d", c.name, e.ID(), e.Dim(), c.id, c.dim)
		}
		if got := embed.LanguageShare(e); math.Abs(got-c.lang) > 1e-9 {
			t.Errorf("LanguageShare(%q) = %v, want %v", c.name, got, c.lang)
		}
	}
	if got := embed.Default().ID(); got != "concat(hash-v1*0.15,glove-100d-sif-v1*0.7,use-lite-v1*0.15)" {
		t.Errorf("Default().ID() = %q", got)
	}
}

func TestHybrid(t *testing.T) {
	e := embed.Default()
	vs, err := e.Embed(context.Background(), []string{
		"Caroline went to the LGBTQ support group on Tuesday.",
		"When did Caroline go to the support group?",
		"What is Melanie's favourite pottery glaze?",
		"",
		"xqzv_17",
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if len(v) != e.Dim() {
			t.Fatalf("vector %d has %d dims", i, len(v))
		}
		n := float64(embed.Dot(v, v))
		want := 1.0
		if i == 3 {
			want = 0
		}
		if math.Abs(n-want) > 1e-4 {
			t.Errorf("vector %d: norm² %v, want %v", i, n, want)
		}
	}
	// An identifier no model knows still gets a (hash) vector.
	if near, far := embed.Dot(vs[0], vs[1]), embed.Dot(vs[0], vs[2]); near <= far {
		t.Errorf("related %v <= unrelated %v", near, far)
	}
}

// BenchmarkDefaultQuery embeds one 20-token question with the default
// (hybrid) embedder, as a search does.
func BenchmarkDefaultQuery(b *testing.B) {
	e := embed.Default()
	ctx := context.Background()
	q := []string{"What did Caroline research about adoption agencies when she visited the city last summer with her mom?"}
	if _, err := e.Embed(ctx, q); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := e.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

// TestKnownScales measures the built-in encoders' scales again, of
// unrelated texts and of restatements: the values embed.KnownScale and
// embed.KnownRestatements give are those MeasureScale and
// MeasureRestatements find, within 5e-4 (the kernels of other CPUs round
// USE-lite's sums a little differently).
func TestKnownScales(t *testing.T) {
	for _, name := range []string{"hash", "glove", "use-lite", "hybrid"} {
		e, err := embed.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []struct {
			what    string
			measure func(context.Context, embed.Embedder) (embed.Scale, error)
			known   func(string) (embed.Scale, bool)
		}{
			{"scale", embed.MeasureScale, embed.KnownScale},
			{"restatements", embed.MeasureRestatements, embed.KnownRestatements},
		} {
			got, err := k.measure(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := k.known(e.ID())
			t.Logf("%s %s: measured %s, known %s", name, k.what, got, want)
			if !ok || math.Abs(got.Mean-want.Mean) > 5e-4 || math.Abs(got.SD-want.SD) > 5e-4 {
				t.Errorf("%s: measured %s %s, embed has %s (%v)", name, k.what, got, want, ok)
			}
		}
	}
}
