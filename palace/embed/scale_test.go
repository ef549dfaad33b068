package embed

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestTranslateCarriesACosineBetweenScales(t *testing.T) {
	from, to := Scale{Mean: 0.5, SD: 0.1}, Scale{Mean: 0.1, SD: 0.05}
	for _, c := range []struct{ in, want float64 }{
		{0.5, 0.1},  // as unrelated texts score on average
		{0.7, 0.2},  // two deviations above it
		{0.3, 0.0},  // two below
		{1.0, 0.35}, // a cosine of 1 is not carried to 1: only the spread is known
	} {
		if got := Translate(c.in, from, to); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Translate(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if got := Translate(0.9, to, from); got != 1 {
		t.Errorf("Translate past 1 = %v, want it kept at 1", got)
	}
	if got := Translate(0.42, from, from); got != 0.42 {
		t.Errorf("Translate on one scale = %v", got)
	}
	if got := Translate(0.42, Scale{}, to); got != 0.42 {
		t.Errorf("Translate from an unmeasured scale = %v", got)
	}
}

func TestParseScaleReadsWhatStringWrites(t *testing.T) {
	s := Scale{Mean: 0.466843, SD: 0.093914}
	got, err := ParseScale(s.String())
	if err != nil || got != s {
		t.Fatalf("ParseScale(%q) = %v, %v", s.String(), got, err)
	}
	for _, bad := range []string{"", "0.4", "x y", "0.4 0", "0.4 -0.1", "NaN 0.1"} {
		if _, err := ParseScale(bad); err == nil {
			t.Errorf("ParseScale(%q) took it", bad)
		}
	}
}

// constant gives every text the same vector.
type constant struct{ Embedder }

func (constant) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

// short returns one vector too few.
type short struct{ Embedder }

func (s short) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := s.Embedder.Embed(ctx, texts)
	return vs[1:], err
}

func TestMeasureScale(t *testing.T) {
	ctx := context.Background()
	if n := len(ScaleTexts()); n != 64 {
		t.Errorf("%d sentences, want 64", n)
	}
	s, err := MeasureScale(ctx, NewHash(HashDim))
	if err != nil || s != HashScale {
		t.Errorf("hash: %s, %v; want %s", s, err, HashScale)
	}
	if _, err := MeasureScale(ctx, constant{NewHash(2)}); err == nil || !strings.Contains(err.Error(), "same cosine") {
		t.Errorf("an embedder that tells nothing apart: %v", err)
	}
	if _, err := MeasureScale(ctx, short{NewHash(8)}); err == nil || !strings.Contains(err.Error(), "63 and 63 vectors for 64") {
		t.Errorf("an embedder that drops a vector: %v", err)
	}
}

func TestMeasureRestatements(t *testing.T) {
	ctx := context.Background()
	texts, restated := ScaleTexts(), RestatedTexts()
	if len(restated) != len(texts) {
		t.Fatalf("%d restatements of %d sentences", len(restated), len(texts))
	}
	for i, r := range restated {
		if r == texts[i] {
			t.Errorf("line %d restates nothing: %q", i+1, r)
		}
	}
	s, err := MeasureRestatements(ctx, NewHash(HashDim))
	if err != nil || s != HashRestatements {
		t.Errorf("hash: %s, %v; want %s", s, err, HashRestatements)
	}
	if _, err := MeasureRestatements(ctx, constant{NewHash(2)}); err == nil || !strings.Contains(err.Error(), "same cosine") {
		t.Errorf("an embedder that tells nothing apart: %v", err)
	}
	if _, err := MeasureRestatements(ctx, short{NewHash(8)}); err == nil || !strings.Contains(err.Error(), "127 vectors for 128") {
		t.Errorf("an embedder that drops a vector: %v", err)
	}
}
