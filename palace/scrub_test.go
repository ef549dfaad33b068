package palace_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

func TestStripPrivate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want string
		n        int
	}{
		{"no tags here", "no tags here", 0},
		{"my pin is <private>4321</private> ok", "my pin is   ok", 1},
		{"a <PRIVATE>x</Private> b <private>y\nz</private> c", "a   b   c", 2},
		{"keep this <private>but not this, the tag never closes", "keep this", 1},
		{"<private>all of it</private>", "", 1},
		{"</private> stray close stays", "</private> stray close stays", 0},
	} {
		got, n := palace.StripPrivate(c.in)
		if got != c.want || n != c.n {
			t.Errorf("StripPrivate(%q) = %q, %d; want %q, %d", c.in, got, n, c.want, c.n)
		}
	}
}

// Private spans never reach the store, whatever field they are in.
func TestPrivateSpansAreNeverStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	d := &palace.Drawer{Content: "The door code is <private>8812</private> for the lab.",
		Keywords: "lab <private>8812</private>", Tags: []string{"<private>secret-tag</private>", "lab"},
		Meta: map[string]any{"note": "<private>8812</private> again"}}
	palacetest.MustAdd(t, p, d)
	got, err := p.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := got.Content + got.Keywords + strings.Join(got.Tags, " ") + got.Meta["note"].(string)
	if strings.Contains(all, "8812") || strings.Contains(all, "secret-tag") || strings.Contains(all, "private") {
		t.Fatalf("a private span was stored: %+v", got)
	}
	if _, err := p.KG().Assert(ctx, kg.Assertion{Subject: "lab", Predicate: "code", Object: "<private>8812</private> hidden",
		Provenance: "chat <private>8812</private>"}); err != nil {
		t.Fatal(err)
	}
	ts, err := p.KG().Query(ctx, "lab")
	if err != nil || len(ts) != 1 {
		t.Fatalf("triples %v %v", ts, err)
	}
	if strings.Contains(ts[0].Object+ts[0].Provenance, "8812") {
		t.Fatalf("a private span reached the graph: %+v", ts[0])
	}
}
