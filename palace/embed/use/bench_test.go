package use_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed/use"
)

// query20 tokenises to 20 pieces and query8 to 8 (checked below).
const (
	query20 = "What did Caroline research about adoption agencies when she visited the city last summer with her mom?"
	query8  = "Where does Melanie hike?"
)

func tokens(b testing.TB, s string) int {
	ids, err := use.New().Tokenize(s)
	if err != nil {
		b.Fatal(err)
	}
	return len(ids)
}

// benchEmbed reports the minimum, p50 and p90 latency per call besides
// the mean.
// Each benchmark runs once per kernel this CPU can run; the first is the
// one Embed uses.
func benchEmbed(b *testing.B, texts []string) {
	for _, kernel := range use.Kernels() {
		b.Run(kernel, func(b *testing.B) {
			enc, restore := use.NewForKernel(kernel)
			defer restore()
			benchWith(b, enc, texts)
		})
	}
}

func benchWith(b *testing.B, enc *use.Encoder, texts []string) {
	if err := enc.Load(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := enc.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := enc.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[0].Microseconds())/1000, "min-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
}

func BenchmarkEmbedQuery20(b *testing.B) {
	if n := tokens(b, query20); n != 20 {
		b.Fatalf("query20 has %d tokens", n)
	}
	benchEmbed(b, []string{query20})
}

func BenchmarkEmbedQuery8(b *testing.B) {
	if n := tokens(b, query8); n != 8 {
		b.Fatalf("query8 has %d tokens", n)
	}
	benchEmbed(b, []string{query8})
}

func BenchmarkEmbedBatch64(b *testing.B) {
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = fmt.Sprintf("Caroline: I went to the LGBTQ support group yesterday and it was so powerful, number %d.", i)
	}
	benchEmbed(b, texts)
}

func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		// Load decodes once per process; report it rather than repeat it.
		b.ReportMetric(float64(use.New().LoadTime().Microseconds())/1000, "load-ms")
	}
}

// turnTexts are 32 texts of 60-odd words, the size of a conversation turn
// with the context it borrows: what a palace embeds when it writes.
func turnTexts() []string {
	parts := []string{
		"I finally finished the bookshelf for the kids' room last weekend, and it took way longer than I expected.",
		"We drove up to the lake on Saturday morning; the water was freezing but the dogs loved every minute of it.",
		"My sister keeps asking whether I'll come to her wedding in October, and I still haven't booked the flights.",
		"The new release broke the import script again, so I spent most of Tuesday chasing a date parsing bug.",
		"Have you tried the ramen place near the station? Their broth is rich and they make the noodles by hand.",
		"I signed up for a pottery class on Thursday evenings because I wanted something to do with my hands.",
		"Grandma's recipe calls for far too much butter, but nobody in the family would let me change a thing.",
		"The marathon training plan says sixteen miles this weekend, and my knee has been complaining since Monday.",
	}
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = fmt.Sprintf("Speaker %d: %s %s\n%s", i, parts[i%8], parts[(i+3)%8], parts[(i+5)%8])
	}
	return texts
}

func BenchmarkEmbedTurns32(b *testing.B) { benchEmbed(b, turnTexts()) }
