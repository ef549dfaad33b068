package palace_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A palace past its graph threshold builds a graph and holds it off (the
// exact scan answers) until calibration has measured it on the palace's
// own questions, in the process that built it and in one that loaded it
// from the snapshot. Once calibration chooses it (40,000 rows: a beam of
// 48 costs a fraction of the scan), searches go through the graph,
// re-ranked from the store: the results match the exhaustive path's,
// removed drawers never come back, and a restart keeps the graph and the
// choice.
func TestVectorSearchThroughTheGraph(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	graph := index.GraphConfig{Min: 400, M: 8, EfConstruction: 48, EfSearch: 48}
	cfg := palace.Config{DataDir: dir, Embedder: embed.NewHash(64), Graph: graph}
	reg, p, ds, text := wordsPalace(t, cfg, 40000, 1)
	const rows = 40000
	queries := make([]string, 60)
	for i := range queries {
		queries[i] = text(3)
	}
	ask := func() {
		t.Helper()
		for _, q := range queries {
			if _, err := p.Search(ctx, palace.SearchRequest{Query: q, Mode: palace.ModeVector, NoAccess: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ask()
	if st := p.VectorIndexStats(); st.Graph != rows || !st.GraphOff || st.Scored != 0 || p.IndexInfo().Kind != "exact" {
		t.Fatalf("a graph just built: %+v, kind %q; want it held off and unused", st, p.IndexInfo().Kind)
	}

	// A restart loads the graph from the snapshot, still uncalibrated: a
	// search straight after it, and warming without questions, leave it
	// held off.
	restart := func() {
		t.Helper()
		if err := reg.Close(); err != nil {
			t.Fatal(err)
		}
		reg = palacetest.MustOpenRegistry(t, cfg)
		var err error
		if p, err = reg.Open(ctx, "big"); err != nil {
			t.Fatal(err)
		}
	}
	restart()
	if _, err := p.Search(ctx, palace.SearchRequest{Query: queries[0], Mode: palace.ModeVector, NoAccess: true}); err != nil {
		t.Fatal(err)
	}
	if st := p.VectorIndexStats(); st.Graph != rows || !st.GraphOff || st.Scored != 0 {
		t.Fatalf("first search after a restart: %+v, want the loaded graph held off and unused", st)
	}
	if err := p.WarmIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if st, in := p.VectorIndexStats(), p.IndexInfo(); st.Graph != rows || !st.GraphOff || in.Calibrated || in.Calibration != nil {
		t.Fatalf("warmed without questions: stats %+v, info %+v; want the saved graph held off, uncalibrated", st, in)
	}

	// Once the process has seen enough questions, calibration measures
	// the graph on them and switches it on. A busy moment (the suite's
	// other tests) can make the graph time as dear as the scan although
	// its beam reached the target: the next calls (the dreamer's next
	// passes) time the choice again, up to three times.
	ask()
	c, err := p.CalibrateIndex(ctx)
	if err != nil || c == nil {
		t.Fatalf("calibration: %+v, %v", c, err)
	}
	for i := 0; i < 3 && c.Use == "scan" && c.Reached > 0; i++ {
		t.Logf("calibration kept the scan on its cost: %+v; timing again", c)
		if c, err = p.CalibrateIndex(ctx); err != nil || c == nil || c.Retimed != i+1 {
			t.Fatalf("timing %d again: %+v, %v", i+1, c, err)
		}
	}
	if again, err := p.CalibrateIndex(ctx); err != nil || again != nil {
		t.Fatalf("a calibration once the graph is on: %+v, %v; want none due", again, err)
	}
	st := p.VectorIndexStats()
	if c.Queries != len(queries) || c.Use != "graph" || c.Recall < index.CalibrationTarget || st.GraphOff ||
		!p.IndexInfo().Calibrated || p.IndexInfo().Kind != "graph" {
		t.Fatalf("calibration after %d questions: %+v, stats %+v; want the graph chosen", len(queries), c, st)
	}
	if rec, err := p.IndexRecall(ctx, queries, 10); err != nil || rec < 0.95 {
		t.Fatalf("graph search recall@10 against the exhaustive path: %.3f, %v", rec, err)
	}
	// Scores are exact cosines (re-ranked from the store), as on the
	// exhaustive path.
	for _, q := range queries[:10] {
		a, err := p.Search(ctx, palace.SearchRequest{Query: q, Mode: palace.ModeVector, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Search(ctx, palace.SearchRequest{Query: q, Mode: palace.ModeVector, NoAccess: true, Exhaustive: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || a[0].Drawer.ID != b[0].Drawer.ID || a[0].Cosine != b[0].Cosine {
			t.Fatalf("query %q: graph first %v, exhaustive first %v", q, first(a), first(b))
		}
	}
	// Forgotten drawers never come back.
	gone := map[string]bool{}
	for _, d := range ds[:300] {
		if _, _, err := p.Forget(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
		gone[d.ID] = true
	}
	for _, q := range queries {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: q, Mode: palace.ModeVector, K: 30, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if gone[h.Drawer.ID] {
				t.Fatalf("forgotten drawer %s returned", h.Drawer.ID)
			}
		}
	}
	h, err := p.IndexHealth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Kind != "graph" || h.Tombstones != 300 || h.Live != rows-300 {
		t.Fatalf("index health %+v, want a graph with %d live and 300 tombstones", h, rows-300)
	}

	// A restart keeps the calibrated graph: the first search goes
	// through it.
	restart()
	if _, err := p.Search(ctx, palace.SearchRequest{Query: queries[0], Mode: palace.ModeVector, NoAccess: true}); err != nil {
		t.Fatal(err)
	}
	if st := p.VectorIndexStats(); st.Graph != rows || st.GraphOff || st.EfSearch != c.Ef || st.Scored == 0 || !p.IndexInfo().Calibrated {
		t.Fatalf("first search after a restart: %+v, want the calibrated graph (beam %d) answering", st, c.Ef)
	}
	if rec, err := p.IndexRecall(ctx, queries, 10); err != nil || rec < 0.95 {
		t.Fatalf("after a restart: recall %.3f, %v", rec, err)
	}
}

func first(hs []palace.Hit) string {
	if len(hs) == 0 {
		return "nothing"
	}
	return fmt.Sprintf("%s (%.4f)", hs[0].Drawer.ID, hs[0].Cosine)
}

// Past the graph's threshold, calibration on the palace's own queries
// also builds the projected first stage (vectors of 384 dimensions, so
// 128 projected ones are worth having), chooses what answers searches,
// reports it as the index's kind, and a restart keeps the projection and
// the choice. Whatever answers, recall against the exhaustive path holds.
func TestVectorSearchThroughTheProjection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cfg := palace.Config{DataDir: dir, Embedder: embed.NewHash(384), Graph: index.GraphConfig{Min: 400, M: 8, EfConstruction: 48, EfSearch: 48}}
	reg, p, _, text := wordsPalace(t, cfg, 2000, 2)
	queries := make([]string, 60)
	for i := range queries {
		queries[i] = text(3)
		if _, err := p.Search(ctx, palace.SearchRequest{Query: queries[i], Mode: palace.ModeVector, NoAccess: true}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := p.CalibrateIndex(ctx)
	if err != nil || c == nil {
		t.Fatalf("calibration: %+v, %v", c, err)
	}
	t.Logf("calibration: %+v", c)
	st := p.VectorIndexStats()
	kind := map[string]string{"graph": "graph", "projection": "projection", "scan": "exact"}[c.Use]
	if st.ProjectDims != index.DefaultProjectDims || st.ProjectCand == 0 || kind == "" || p.IndexInfo().Kind != kind ||
		st.GraphOff != (c.Use != "graph") || st.ProjectOff != (c.Use != "projection") {
		t.Fatalf("after calibration %+v: stats %+v, kind %q", c, st, p.IndexInfo().Kind)
	}
	if rec, err := p.IndexRecall(ctx, queries, 10); err != nil || rec < 0.9 {
		t.Fatalf("recall %.3f against the exhaustive path, %v (%+v)", rec, err, c)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	reg = palacetest.MustOpenRegistry(t, cfg)
	if p, err = reg.Open(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if err := p.WarmIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := p.VectorIndexStats(); got.ProjectDims != st.ProjectDims || got.ProjectCand != st.ProjectCand ||
		got.ProjectOff != st.ProjectOff || got.GraphOff != st.GraphOff || p.IndexInfo().Kind != kind {
		t.Fatalf("after a restart: stats %+v, kind %q; saved %+v, %q", got, p.IndexInfo().Kind, st, kind)
	}
}

// wordsPalace creates palace "big" holding n drawers of six random words
// each (and a number), and returns text, which makes more such text.
func wordsPalace(t *testing.T, cfg palace.Config, n int, seed int64) (*palace.Registry, *palace.Palace, []*palace.Drawer, func(int) string) {
	t.Helper()
	reg := palacetest.MustOpenRegistry(t, cfg)
	p := palacetest.MustCreate(t, reg, "big")
	words := strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima
		mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu
		garden river mountain coffee planet rocket violin castle forest desert ocean island`)
	r := rand.New(rand.NewSource(seed))
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.Intn(len(words))]
		}
		return strings.Join(w, " ")
	}
	ds := make([]*palace.Drawer, n)
	for i := range ds {
		ds[i] = &palace.Drawer{Content: fmt.Sprintf("%s %d", text(6), i)}
	}
	if err := p.AddMany(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	return reg, p, ds, text
}
