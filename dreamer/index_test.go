package dreamer_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/palace/store"
)

func TestIndexPassReembedsAfterAModelChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	dir := t.TempDir()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.Create(ctx, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"postgres runs on port 5432", "the frontend is built with vite", "deploys go out on tuesdays"}
	var ids []string
	for _, s := range texts {
		ids = append(ids, note(t, p, s).ID)
	}
	forgotten := note(t, p, "a drawer that was forgotten")
	if _, _, err := p.Forget(ctx, forgotten.ID); err != nil {
		t.Fatal(err)
	}
	reg.Close()

	reg2, err := palace.OpenRegistry(palace.Config{DataDir: dir, Now: clk.Now, Embedder: embed.NewHash(64)})
	if err != nil {
		t.Fatal(err)
	}
	defer reg2.Close()
	p2, err := reg2.Open(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	h, err := p2.IndexHealth(ctx)
	if err != nil || h.StaleVectors != 3 {
		t.Fatalf("health %+v (%v), want 3 stale vectors (the deleted drawer is not re-embedded)", h, err)
	}
	before := get(t, p2, ids[0])
	rep := dream(t, p2, clk, "index")
	pr := passReport(t, rep, "index")
	if pr.Index == nil || pr.Index.Reembedded != 3 || !pr.Index.Saved {
		t.Fatalf("index report %+v", pr.Index)
	}
	after := get(t, p2, ids[0])
	if after.Model != "hash-v1/64" || after.Seq == before.Seq || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("re-embedded drawer: model %q seq %d->%d updated %v->%v", after.Model, before.Seq, after.Seq,
			before.UpdatedAt, after.UpdatedAt)
	}
	hits, err := p2.Search(ctx, palace.SearchRequest{Query: "postgres port", Mode: palace.ModeVector, K: 1})
	if err != nil || len(hits) != 1 || hits[0].Drawer.ID != ids[0] {
		t.Fatalf("vector search after re-embedding: %v (%v)", hits, err)
	}
	if h, _ := p2.IndexHealth(ctx); h.StaleVectors != 0 {
		t.Fatalf("still %d stale vectors", h.StaleVectors)
	}
	if pr := passReport(t, dream(t, p2, clk, "index"), "index"); pr.Index.Reembedded != 0 {
		t.Fatalf("second pass re-embedded %d", pr.Index.Reembedded)
	}
}

// A palace of an earlier release embedded a text of 80 words whole (its
// vector window was the keyword one, 150 words) and recorded no vector
// window: the index pass re-embeds that drawer alone, in passages, and
// records the window, so the next pass has nothing to do.
func TestIndexPassReembedsPassagesOfAnEarlierWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	medium := note(t, p, strings.TrimSpace(strings.Repeat("the rota moved the night shift to thursdays ", 10)))
	note(t, p, "a short note")
	if got := get(t, p, medium.ID); got.VecPassages != len(palace.VectorPassages(medium.Content)) || got.VecPassages == 0 {
		t.Fatalf("an 80-word text stored %d passage vectors, want %d", got.VecPassages, len(palace.VectorPassages(medium.Content)))
	}
	whole := make([]byte, 4*p.Embedder().Dim())
	binary.LittleEndian.PutUint32(whole, math.Float32bits(1))
	err := store.Write(ctx, p.Store(), func(tx store.Tx) error {
		if err := tx.Drawers().SetVector(ctx, medium.RID, medium.Seq, medium.Model, medium.VecKey, store.Vector{Blob: whole}); err != nil {
			return err
		}
		return tx.Meta().Set(ctx, "vector_passages", "")
	})
	if err != nil {
		t.Fatal(err)
	}
	if h, err := p.IndexHealth(ctx); err != nil || !h.StalePassages || h.StaleVectors != 0 {
		t.Fatalf("health %+v (%v), want stale passages only", h, err)
	}
	pr := passReport(t, dream(t, p, clk, "index"), "index")
	if pr.Index == nil || pr.Index.Reembedded != 1 {
		t.Fatalf("index report %+v, want the medium drawer re-embedded", pr.Index)
	}
	if got := get(t, p, medium.ID); got.VecPassages != len(palace.VectorPassages(medium.Content)) {
		t.Fatalf("after the pass: %d passage vectors, want %d", got.VecPassages, len(palace.VectorPassages(medium.Content)))
	}
	if h, _ := p.IndexHealth(ctx); h.StalePassages {
		t.Fatal("the window is still not recorded")
	}
	if pr := passReport(t, dream(t, p, clk, "index"), "index"); pr.Index.Reembedded != 0 {
		t.Fatalf("second pass re-embedded %d", pr.Index.Reembedded)
	}
}

// Maintain, which runs every minute even with the scheduled passes off,
// calibrates a graph the process holds off once it has been asked enough
// questions, and never loads an index no search has loaded.
func TestMaintainCalibratesTheIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cfg := palace.Config{DataDir: dir, Embedder: embed.NewHash(64),
		Graph: index.GraphConfig{Min: 400, M: 8, EfConstruction: 48, EfSearch: 48}}
	reg, err := palace.OpenRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.Create(ctx, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("garden river mountain coffee planet rocket violin castle forest desert ocean island " +
		"alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike oscar papa romeo")
	r := rand.New(rand.NewSource(5))
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.Intn(len(words))]
		}
		return strings.Join(w, " ")
	}
	batch := make([]*palace.Drawer, 1000)
	for i := range batch {
		batch[i] = &palace.Drawer{Content: fmt.Sprintf("%s %d", text(6), i)}
	}
	if err := p.AddMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}

	// A fresh process: maintenance before any search leaves the index
	// unloaded.
	reg, err = palace.OpenRegistry(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if p, err = reg.Open(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	if err := dreamer.Maintain(ctx, p); err != nil {
		t.Fatal(err)
	}
	if in := p.IndexInfo(); in.Loaded {
		t.Fatalf("maintenance loaded the index: %+v", in)
	}
	search := func(n int) {
		for range n {
			if _, err := p.Search(ctx, palace.SearchRequest{Query: text(3), Mode: palace.ModeVector, NoAccess: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Too few questions: the graph stays held off, uncalibrated.
	search(10)
	if err := dreamer.Maintain(ctx, p); err != nil {
		t.Fatal(err)
	}
	if in := p.IndexInfo(); in.GraphNodes == 0 || !in.GraphOff || in.Calibrated || in.Calibration != nil {
		t.Fatalf("after 10 questions: %+v, want a graph held off and not calibrated", in)
	}
	// Enough: maintenance measures it on them and the choice is kept.
	search(60)
	if err := dreamer.Maintain(ctx, p); err != nil {
		t.Fatal(err)
	}
	in := p.IndexInfo()
	if !in.Calibrated || in.Calibration == nil || in.Calibration.Queries < 50 || in.GraphOff != (in.Calibration.Use != "graph") {
		t.Fatalf("after 70 questions: %+v (calibration %+v), want the index calibrated on them", in, in.Calibration)
	}
}

// failingEmbedder fails every call, as a provider that is down does: a
// drawer written meanwhile is stored without a vector.
type failingEmbedder struct{ embed.Embedder }

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("embedding endpoint unreachable")
}

// TestMaintainResumesEmbedding: maintenance, which runs with the dreamer's
// passes off too, has a long-running process make the vectors a drawer
// was left without.
func TestMaintainResumesEmbedding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	hash := embed.NewHash(64)
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir, Embedder: failingEmbedder{hash}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.Create(ctx, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	d := &palace.Drawer{Content: "The zeppelin hangar doors jammed on Thursday."}
	if err := p.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	reg.Close()

	reg, err = palace.OpenRegistry(palace.Config{DataDir: dir, Embedder: hash, EmbedLater: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, err = reg.Open(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := p.Get(ctx, d.ID); got.Model != "" {
		t.Fatal("the drawer has a vector before maintenance")
	}
	if err := dreamer.Maintain(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitEmbedded(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Get(ctx, d.ID); err != nil || got.Model == "" {
		t.Fatalf("maintenance left the drawer without a vector: %q %v", got.Model, err)
	}
}

// Maintenance extracts a conversation that has gone quiet, which its
// client never flushed (session.FlushQuiet): its messages become an
// episode without another call.
func TestMaintainExtractsQuietConversations(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 5, 28, 9, 0, 0, 0, time.UTC)
	now := at
	reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir(), Embedder: embed.NewHash(64), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, err := reg.Create(ctx, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	msgs := []extract.Message{{Role: "user", SenderID: "ann", Text: "I moved to Lisbon last spring and I work at a bakery.", Timestamp: at}}
	if _, err := session.Of(p).Append(ctx, "chat", msgs, session.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := dreamer.Maintain(ctx, p); err != nil {
		t.Fatal(err)
	}
	if buf, _ := session.Of(p).Messages(ctx, "chat"); len(buf) != 1 {
		t.Fatalf("maintenance extracted a conversation still going on: %d buffered", len(buf))
	}
	now = at.Add(3 * time.Hour)
	if err := dreamer.Maintain(ctx, p); err != nil {
		t.Fatal(err)
	}
	if buf, _ := session.Of(p).Messages(ctx, "chat"); len(buf) != 0 {
		t.Errorf("maintenance left a quiet conversation buffered: %d messages", len(buf))
	}
	if n, _ := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindEpisode}}); n != 1 {
		t.Errorf("%d episodes after maintenance, want 1", n)
	}
}

// Once tombstones reach TombstoneRatio of the index, the index pass
// compacts it without them and builds its graph again over the living
// (palace.CompactIndex), and writes the snapshot.
func TestIndexPassDropsTombstones(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := palace.Config{DataDir: t.TempDir(), Embedder: embed.NewHash(64),
		Graph: index.GraphConfig{Min: 400, M: 8, EfConstruction: 48, EfSearch: 48}}
	p := openPalaceWith(t, cfg)
	batch := make([]*palace.Drawer, 1000)
	for i := range batch {
		batch[i] = &palace.Drawer{Content: fmt.Sprintf("lighthouse log %d: the keeper trimmed wick number %d", i, 7*i)}
	}
	if err := p.AddMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if _, err := p.IndexHealth(ctx); err != nil { // the index loaded, with its graph
		t.Fatal(err)
	}
	for _, d := range batch[:300] {
		if _, _, err := p.Forget(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
	}
	before, err := p.IndexHealth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.GraphNodes != 1000 || before.Tombstones != 300 {
		t.Fatalf("before: %+v, want a graph with 300 tombstones", before)
	}
	rep := dream(t, p, newClock(), "index")
	if pr := passReport(t, rep, "index"); pr.Index == nil || !pr.Index.Rebuilt || !pr.Index.Saved || pr.Index.Vectors != 700 {
		t.Fatalf("the index pass: %+v", pr.Index)
	}
	after, err := p.IndexHealth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Tombstones != 0 || after.Live != 700 || after.GraphNodes != 700 {
		t.Fatalf("after maintenance: %+v, want 700 live rows in the graph and no tombstones", after)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: batch[650].Content, K: 1, Mode: palace.ModeVector, NoAccess: true})
	if err != nil || len(hits) != 1 || hits[0].Drawer.ID != batch[650].ID {
		t.Fatalf("a living drawer not found first after the compaction: %v %v", hits, err)
	}
	snap, _, err := index.LoadFlatFile(filepath.Join(p.Dir(), "vectors.idx"), index.FlatConfig{Int8: true, Graph: cfg.Graph})
	if err != nil {
		t.Fatal(err)
	}
	if st := snap.Stats(); st.Rows != 700 || st.Graph != 700 {
		t.Fatalf("the snapshot holds %d rows, %d in its graph; want the 700 living", st.Rows, st.Graph)
	}
}
