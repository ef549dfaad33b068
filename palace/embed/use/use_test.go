package use_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed/use"
	"github.com/loci-mem/loci/palace/internal/crosstest"
)

type refCase struct {
	S   string    `json:"s"`
	IDs []int32   `json:"ids"`
	E   []float64 `json:"e"`
}

// refDir finds ../shared/embed-ref beside the repository root (the
// directory holding go.mod).
func refDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory; cannot locate ../shared/embed-ref")
		}
		dir = parent
	}
	ref := filepath.Join(dir, "..", "shared", "embed-ref")
	if _, err := os.Stat(ref); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("reference vectors absent (%v): CI must have ../shared/embed-ref", err)
		}
		t.Skipf("reference vectors absent (%v): skipping the USE-lite reference test", err)
	}
	return ref
}

func loadRef(t testing.TB) []refCase {
	dir := refDir(t)
	var all []refCase
	for _, name := range []string{"use_ref.json", "use_ref2.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var cs []refCase
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all = append(all, cs...)
	}
	if len(all) < 50 {
		t.Fatalf("only %d reference cases", len(all))
	}
	return all
}

func cosine(a []float32, b []float64) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * b[i]
		na += float64(a[i]) * float64(a[i])
		nb += b[i] * b[i]
	}
	return d / math.Sqrt(na*nb)
}

// TestReference checks the port against vectors from the JavaScript
// reference: every token id list exactly, every embedding at cosine
// >= 0.9999, with every kernel this CPU can run, in one batch and one
// sentence at a time. Under an emulator (crosstest) the portable kernel
// embeds the batch only: it is the same Go as in the native run, where it
// embeds both ways, and one sentence at a time is what tests the
// assembly's short tails (half of the emulated run's 44 s was that
// kernel's).
func TestReference(t *testing.T) {
	cases := loadRef(t)
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.S
		ids, err := use.New().Tokenize(c.S)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids, c.IDs) {
			t.Errorf("Tokenize(%q)\n got %v\nwant %v", c.S, ids, c.IDs)
		}
	}
	for _, kernel := range use.Kernels() {
		t.Run(kernel, func(t *testing.T) {
			enc, restore := use.NewForKernel(kernel)
			defer restore()
			check := func(name string, vs [][]float32) {
				worst := 1.0
				for i, c := range cases {
					if len(vs[i]) != use.Dim {
						t.Fatalf("%s: vector %d has %d dims", name, i, len(vs[i]))
					}
					cs := cosine(vs[i], c.E)
					worst = math.Min(worst, cs)
					if cs < 0.9999 {
						t.Errorf("%s: %q: cosine %.6f < 0.9999", name, c.S, cs)
					}
				}
				t.Logf("%s: %d sentences, worst cosine %.7f", name, len(cases), worst)
			}
			// All at once (one stacked batch) and one at a time.
			vs, err := enc.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			check("batch", vs)
			if kernel == "generic" && crosstest.Emulated() {
				return
			}
			one := make([][]float32, len(texts))
			for i, s := range texts {
				v, err := enc.Embed(context.Background(), []string{s})
				if err != nil {
					t.Fatal(err)
				}
				one[i] = v[0]
			}
			check("single", one)
		})
	}
}

func TestEmbedContract(t *testing.T) {
	enc := use.New()
	if enc.ID() != use.ID || enc.Dim() != 512 {
		t.Fatalf("ID %q Dim %d", enc.ID(), enc.Dim())
	}
	vs, err := enc.Embed(context.Background(), []string{"", "  \t", "A cat sat on the mat.", "A kitten rested on the rug.", "Quarterly tax filing deadline"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		for _, x := range vs[i] {
			if x != 0 {
				t.Fatalf("blank text %d: want the zero vector", i)
			}
		}
	}
	for i := 2; i < 5; i++ {
		var n float64
		for _, x := range vs[i] {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("vector %d: norm² %v", i, n)
		}
	}
	if near, far := dot(vs[2], vs[3]), dot(vs[2], vs[4]); near <= far {
		t.Errorf("paraphrase cosine %v <= unrelated %v", near, far)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := enc.Embed(ctx, []string{"x"}); err == nil {
		t.Error("cancelled context: want an error")
	}
	if enc.LoadTime() <= 0 || enc.LoadTime() > 2*time.Second {
		t.Errorf("load time %v", enc.LoadTime())
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestConcurrentEmbed embeds from several goroutines at once and requires
// the vectors of a lone call (run with -race).
func TestConcurrentEmbed(t *testing.T) {
	enc := use.New()
	texts := []string{"I love hiking in the mountains", "Deploy the service on Friday", "the invoice is overdue"}
	want, err := enc.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			got, err := enc.Embed(context.Background(), texts[g%3:g%3+1])
			if err == nil && dot(got[0], want[g%3]) < 0.99999 {
				err = fmt.Errorf("goroutine %d: cosine %v", g, dot(got[0], want[g%3]))
			}
			errs <- err
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestVectorsHoldUnderPreemption embeds the same batch from several
// goroutines while the collector stops the world over and over, and
// requires every vector to equal, bit for bit, that of a lone call. On
// the AMX kernels this is the check that tile state is never lost or
// mixed up: each call configures and releases its tiles, a preemption
// signal that lands inside one is answered with the tiles saved by the
// kernel, and a goroutine is never moved to another thread inside one.
// On the other kernels it checks that a sentence's vector does not depend
// on how the products were split between goroutines, nor on where in a
// batch the sentence falls (each goroutine's batch starts at another
// sentence). Under an emulator (crosstest), where a pass takes fifty times
// as long, each goroutine embeds its batch once instead of five times,
// and the batch is of 8 sentences, not 24 (36 s emulated): the goroutines'
// batches of 8, 7, 6 and 5 leave every remainder of four rows the
// kernels pad, and a layer of one sentence is already split between
// goroutines (parallelMin).
func TestVectorsHoldUnderPreemption(t *testing.T) {
	rounds, n := 5, 24
	if crosstest.Emulated() {
		rounds, n = 1, 8
	}
	enc := use.New()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("Message %d: we moved the deploy to Friday because the staging database was still migrating, and %d people wait on it.", i, i*7)
	}
	want, err := enc.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // stop-the-world preemptions, as often as they come
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for range rounds {
				got, err := enc.Embed(context.Background(), texts[g:])
				if err != nil {
					errs <- err
					return
				}
				for i, v := range got {
					if !slices.Equal(v, want[g+i]) {
						errs <- fmt.Errorf("goroutine %d: text %d's vector differs from a lone call's (kernel %s)", g, g+i, use.Kernel())
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	<-done
}
