package palace_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/palacetest"
)

// engineModel stands for a model behind an engine: the hash embedder
// under another name, counting its calls, failing while down is set.
type engineModel struct {
	embed.Embedder
	calls atomic.Int64
	down  atomic.Bool
}

func (e *engineModel) ID() string { return "openai/stand-in" }

func (e *engineModel) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	if e.down.Load() {
		return nil, errors.New("connection refused")
	}
	return e.Embedder.Embed(ctx, texts)
}

// An embedder whose scale loci does not know has it measured the first
// time a floor needs it, with two calls, and recorded in the palace: the
// next process (a hook runs one a prompt) reads it and calls the engine
// for nothing. An engine that cannot answer leaves floors as they were.
func TestAnEmbeddersScaleIsMeasuredOnceAndRecorded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	model := &engineModel{Embedder: embed.NewHash(embed.HashDim)}
	model.down.Store(true)
	reg := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: model})
	p := palacetest.MustCreate(t, reg, "proj")
	if _, ok := p.CosineScale(ctx); ok {
		t.Fatal("a scale from an engine that cannot answer")
	}
	if got := p.CosineFloor(ctx, 0.5, embed.HybridScale); got != 0.5 {
		t.Errorf("floor without a scale = %v, want 0.5 as it is", got)
	}
	if n := model.calls.Load(); n != 1 {
		t.Errorf("the engine was called %d times; a failed measurement stands for a minute", n)
	}
	reg.Close()

	model.down.Store(false)
	model.calls.Store(0)
	reg = palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: model})
	p, err := reg.Open(ctx, "proj")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := p.CosineScale(ctx)
	if !ok || math.Abs(s.Mean-embed.HashScale.Mean) > 1e-5 || math.Abs(s.SD-embed.HashScale.SD) > 1e-5 {
		t.Fatalf("scale %s (%v), want the hash embedder's %s", s, ok, embed.HashScale)
	}
	if n := model.calls.Load(); n != 2 {
		t.Errorf("measuring called the engine %d times, want 2 (searches and stored texts)", n)
	}
	want := s.Mean + (0.5-embed.HybridScale.Mean)/embed.HybridScale.SD*s.SD
	if got := p.CosineFloor(ctx, 0.5, embed.HybridScale); math.Abs(got-want) > 1e-9 {
		t.Errorf("floor = %v, want %v", got, want)
	}
	if got := p.CosineOn(ctx, embed.HybridScale)(want); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("the floor carried back = %v, want 0.5", got)
	}
	p.CosineScale(ctx)
	if rec, _ := p.Meta(ctx, "cosine_scale"); rec != "openai/stand-in "+s.String() {
		t.Errorf("meta cosine_scale = %q", rec)
	}
	reg.Close()

	model.calls.Store(0)
	reg = palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: model})
	p, err = reg.Open(ctx, "proj")
	if err != nil {
		t.Fatal(err)
	}
	if again, ok := p.CosineScale(ctx); !ok || again != s {
		t.Errorf("the recorded scale read back as %s (%v), want %s", again, ok, s)
	}
	if n := model.calls.Load(); n != 0 {
		t.Errorf("a recorded scale was measured again (%d calls)", n)
	}
}

// The scale of restatements is measured and recorded the same way, with
// one call, under its own key: each scale is measured when first needed.
func TestAnEmbeddersRestatementsAreMeasuredOnceAndRecorded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	model := &engineModel{Embedder: embed.NewHash(embed.HashDim)}
	reg := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: model})
	p := palacetest.MustCreate(t, reg, "proj")
	s, ok := p.RestatementScale(ctx)
	if !ok || s != embed.HashRestatements {
		t.Fatalf("restatements %s (%v), want the hash embedder's %s", s, ok, embed.HashRestatements)
	}
	if n := model.calls.Load(); n != 1 {
		t.Errorf("measuring called the engine %d times, want 1", n)
	}
	if rec, _ := p.Meta(ctx, "restatement_scale"); rec != "openai/stand-in "+s.String() {
		t.Errorf("meta restatement_scale = %q", rec)
	}
	if rec, _ := p.Meta(ctx, "cosine_scale"); rec != "" {
		t.Errorf("the cosine scale was measured as well: %q", rec)
	}
	reg.Close()

	model.calls.Store(0)
	model.down.Store(true)
	reg = palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Embedder: model})
	p, err := reg.Open(ctx, "proj")
	if err != nil {
		t.Fatal(err)
	}
	if again, ok := p.RestatementScale(ctx); !ok || again != s {
		t.Errorf("the recorded restatements read back as %s (%v), want %s", again, ok, s)
	}
	if _, ok := p.CosineScale(ctx); ok {
		t.Error("a cosine scale from an engine that cannot answer")
	}
	if n := model.calls.Load(); n != 1 {
		t.Errorf("the engine was called %d times, want 1 (the cosine scale's failed try)", n)
	}
}

// A built-in encoder's scale is known: nothing is embedded for it. The
// hash embedder's cosine counts shared trigrams, so no floor keeps a hit
// for it.
func TestABuiltInScaleIsKnown(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t) // the hash embedder, in palace's tests
	if s, ok := p.CosineScale(ctx); !ok || s != embed.HashScale {
		t.Fatalf("scale %s (%v), want %s", s, ok, embed.HashScale)
	}
	if got := p.CosineFloor(ctx, 0.35, embed.HybridScale); !math.IsInf(got, 1) {
		t.Errorf("a lexical embedder's floor = %v, want +Inf", got)
	}
	if s, ok := p.RestatementScale(ctx); !ok || s != embed.HashRestatements {
		t.Fatalf("restatements %s (%v), want %s", s, ok, embed.HashRestatements)
	}
	for _, key := range []string{"cosine_scale", "restatement_scale"} {
		if rec, _ := p.Meta(ctx, key); rec != "" {
			t.Errorf("a known scale was recorded under %s: %q", key, rec)
		}
	}
}

// Searches that need the scale at once wait for one measurement.
func TestAScaleIsMeasuredOnceForConcurrentSearches(t *testing.T) {
	ctx := context.Background()
	model := &engineModel{Embedder: embed.NewHash(embed.HashDim)}
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Embedder: model}), "proj")
	var wg sync.WaitGroup
	scales := make([]embed.Scale, 8)
	for i := range scales {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scales[i], _ = p.CosineScale(ctx)
		}()
	}
	wg.Wait()
	for _, s := range scales {
		if s != scales[0] || !s.Valid() {
			t.Fatalf("scales %v", scales)
		}
	}
	if n := model.calls.Load(); n != 2 {
		t.Errorf("the engine was called %d times, want 2", n)
	}
}
