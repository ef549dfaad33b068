package dreamer_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/facts"
)

const (
	deployA = "The deploy script lives in tools/deploy.sh and needs Go 1.22 installed on the build machine"
	deployB = "The deploy script lives in tools/deploy.sh, and it needs Go 1.22 installed on the build machine!"
)

func TestDedupLinksNearDuplicatesWithoutLosingText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	a := add(t, p, &palace.Drawer{Content: deployA, Tags: []string{"ops"}})
	clk.Advance(time.Minute)
	b := add(t, p, &palace.Drawer{Content: deployB, Tags: []string{"build"}})
	other := note(t, p, "Lunch on Fridays is at the Thai place around the corner")

	rep := dream(t, p, clk, "dedup")
	pr := passReport(t, rep, "dedup")
	if pr.Status != dreamer.PassOK || len(pr.Merges) != 1 {
		t.Fatalf("dedup report %+v, want one merge", pr)
	}
	m := pr.Merges[0]
	if m.Survivor != a.ID || m.Duplicate != b.ID {
		t.Fatalf("merge %+v: want the older drawer %s to survive", m, a.ID)
	}
	gotB := get(t, p, b.ID)
	if gotB.Status != palace.StatusSuperseded || gotB.SupersededBy != a.ID {
		t.Fatalf("duplicate: status %q by %q", gotB.Status, gotB.SupersededBy)
	}
	if gotB.Content != b.Content {
		t.Fatalf("duplicate text changed: %q", gotB.Content)
	}
	gotA := get(t, p, a.ID)
	if gotA.Content != a.Content || gotA.Status != palace.StatusActive {
		t.Fatalf("survivor changed: %+v", gotA)
	}
	from, _ := gotA.Meta[dreamer.MetaMergedFrom].([]any)
	if len(from) != 1 || from[0] != b.ID {
		t.Fatalf("survivor provenance %v, want [%s]", gotA.Meta[dreamer.MetaMergedFrom], b.ID)
	}
	if !contains(gotA.Tags, "build") || !contains(gotA.Tags, "ops") {
		t.Fatalf("survivor tags %v, want the duplicate's too", gotA.Tags)
	}
	res, err := p.Resolve(ctx, b.ID)
	if err != nil || res.ID != a.ID {
		t.Fatalf("Resolve(dup) = %v, %v", res, err)
	}
	ids := recallIDs(t, p, "deploy script Go build machine", 10)
	if contains(ids, b.ID) || !contains(ids, a.ID) {
		t.Fatalf("recall %v: want the survivor and never the duplicate", ids)
	}
	if get(t, p, other.ID).Status != palace.StatusActive {
		t.Fatal("an unrelated drawer changed")
	}
	// Running again finds nothing new.
	if pr := passReport(t, dream(t, p, clk, "dedup"), "dedup"); pr.Changed != 0 {
		t.Fatalf("second pass changed %d", pr.Changed)
	}
}

func TestDedupLeavesDifferentFactsAlone(t *testing.T) {
	t.Parallel()
	clk := newClock()
	p := openPalace(t, clk)
	pairs := [][2]string{
		{"The weekly planning meeting is at 3pm on Friday in room B", "The weekly planning meeting is at 4pm on Friday in room B"},
		{"I like running along the river in the morning before work", "I don't like running along the river in the morning before work"},
		{"We moved our whole team to Boston last spring after the merger", "We moved our whole team to Denver last spring after the merger"},
		{"The staging cluster was opened to the contractors last month", "The staging cluster was closed to the contractors last month"},
		{"Alice paid Bob back for the concert tickets and the dinner", "Bob paid Alice back for the concert tickets and the dinner"},
		{"I adopted two cats from the shelter down the road", "I adopted three cats from the shelter down the road"},
	}
	for _, pr := range pairs {
		note(t, p, pr[0])
		note(t, p, pr[1])
	}
	rep := dream(t, p, clk, "dedup")
	if pr := passReport(t, rep, "dedup"); pr.Changed != 0 {
		t.Fatalf("merged different facts: %+v", pr.Merges)
	}
}

func TestDedupRespectsScope(t *testing.T) {
	t.Parallel()
	clk := newClock()
	p := openPalace(t, clk)
	base := palace.Drawer{Content: deployA}
	variants := []palace.Drawer{
		{Room: "Backend"},
		{Room: "Frontend"},
		{UserID: "alice"},
		{AgentID: "bot"},
		{Kind: palace.KindFact, Meta: map[string]any{facts.MetaFactKind: "tooling"}},
		{Kind: palace.KindFact, Meta: map[string]any{facts.MetaFactKind: "project"}},
	}
	for _, v := range variants {
		d := base
		d.Room, d.UserID, d.AgentID, d.Kind, d.Meta = v.Room, v.UserID, v.AgentID, v.Kind, v.Meta
		add(t, p, &d)
	}
	// Turns: the same words in two sessions, or a week apart, are two events.
	add(t, p, &palace.Drawer{Kind: palace.KindTurn, Content: "Caroline: I went to the support group again yesterday evening", SessionID: "s1"})
	add(t, p, &palace.Drawer{Kind: palace.KindTurn, Content: "Caroline: I went to the support group again yesterday evening", SessionID: "s2"})
	add(t, p, &palace.Drawer{Kind: palace.KindTurn, Content: "Melanie: painting the lake at sunset calms me down", SessionID: "s3",
		Timestamp: clk.Now()})
	add(t, p, &palace.Drawer{Kind: palace.KindTurn, Content: "Melanie: painting the lake at sunset calms me down", SessionID: "s3",
		Timestamp: clk.Now().Add(7 * 24 * time.Hour)})
	rep := dream(t, p, clk, "dedup")
	if pr := passReport(t, rep, "dedup"); pr.Changed != 0 {
		t.Fatalf("merged across scopes: %+v", pr.Merges)
	}
	// The same turn twice in one session at one time is a duplicate.
	a := add(t, p, &palace.Drawer{Kind: palace.KindTurn, Content: "Jon: my dance studio opens its doors next month", SessionID: "s9"})
	b := add(t, p, &palace.Drawer{Kind: palace.KindTurn, Content: "Jon: My dance studio opens its doors next month!", SessionID: "s9"})
	// Engram facts of one kind follow the same rule.
	fm := map[string]any{facts.MetaFactKind: "tooling", palace.MetaEngramID: "mem-0007"}
	fa := add(t, p, &palace.Drawer{Kind: palace.KindFact, Content: "The web client is built with pnpm and vite", Meta: fm})
	fb := add(t, p, &palace.Drawer{Kind: palace.KindFact, Content: "the web client is built with pnpm and vite.", Meta: fm})
	pr := passReport(t, dream(t, p, clk, "dedup"), "dedup")
	want := map[string]string{b.ID: a.ID, fb.ID: fa.ID}
	if len(pr.Merges) != 2 {
		t.Fatalf("merges %+v, want %v", pr.Merges, want)
	}
	for _, m := range pr.Merges {
		if want[m.Duplicate] != m.Survivor {
			t.Fatalf("merge %+v, want %v", m, want)
		}
	}
}

func TestDedupPinnedAndPriority(t *testing.T) {
	t.Parallel()
	clk := newClock()
	p := openPalace(t, clk)
	old := note(t, p, deployA)
	pinned := add(t, p, &palace.Drawer{Content: deployB, Pinned: true})
	important := add(t, p, &palace.Drawer{Content: deployA + ".", Importance: 0.9})
	dream(t, p, clk, "dedup")
	if d := get(t, p, pinned.ID); d.Status != palace.StatusActive {
		t.Fatalf("pinned drawer became %s", d.Status)
	}
	for _, id := range []string{old.ID, important.ID} {
		if d := get(t, p, id); d.Status != palace.StatusSuperseded || d.SupersededBy != pinned.ID {
			t.Fatalf("%s: status %s by %q, want superseded by the pinned drawer", id, d.Status, d.SupersededBy)
		}
	}
}

func TestDedupUndoAndReviewQueueAreFinal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	a := note(t, p, deployA)
	b := note(t, p, deployB)
	rep := dream(t, p, clk, "dedup")
	if rep.Changes != 2 { // supersede + provenance
		t.Fatalf("changes %d, want 2", rep.Changes)
	}
	undo, err := dreamer.Undo(ctx, p, rep.RunID, dreamer.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if undo.Restored != 2 || len(undo.Skipped) != 0 {
		t.Fatalf("undo %+v", undo)
	}
	if d := get(t, p, b.ID); d.Status != palace.StatusActive || d.SupersededBy != "" {
		t.Fatalf("after undo: %s by %q", d.Status, d.SupersededBy)
	}
	if d := get(t, p, a.ID); d.Meta[dreamer.MetaMergedFrom] != nil {
		t.Fatalf("after undo the survivor keeps provenance %v", d.Meta)
	}
	if !contains(recallIDs(t, p, "deploy script build machine", 10), b.ID) {
		t.Fatal("restored drawer is not recalled")
	}
	if _, err := dreamer.Undo(ctx, p, rep.RunID, dreamer.RunOptions{}); !isConflict(err) {
		t.Fatalf("second undo: %v, want a conflict", err)
	}
	// The dreamer does not merge them again.
	if pr := passReport(t, dream(t, p, clk, "dedup"), "dedup"); pr.Changed != 0 {
		t.Fatalf("re-merged after undo: %+v", pr.Merges)
	}

	// Un-superseding by hand (the review queue) is just as final.
	c := note(t, p, "Remember that the VPN config lives in the shared drive under ops/vpn")
	d := note(t, p, "Remember that the VPN config lives in the shared drive under ops/vpn.")
	dream(t, p, clk, "dedup")
	if got := get(t, p, d.ID); got.Status != palace.StatusSuperseded {
		t.Fatalf("second pair not merged: %s", got.Status)
	}
	if _, err := p.SetStatus(ctx, d.ID, palace.StatusActive, ""); err != nil {
		t.Fatal(err)
	}
	dream(t, p, clk, "dedup")
	if got := get(t, p, d.ID); got.Status != palace.StatusActive {
		t.Fatalf("restored drawer superseded again (survivor %s)", c.ID)
	}
}

func TestDedupUndoSkipsDrawersChangedSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	note(t, p, deployA)
	b := note(t, p, deployB)
	rep := dream(t, p, clk, "dedup")
	// Someone forgets the duplicate after the run: undo must not revive it.
	if _, _, err := p.Forget(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	undo, err := dreamer.Undo(ctx, p, rep.RunID, dreamer.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if undo.Restored != 1 || len(undo.Skipped) != 1 || undo.Skipped[0].DrawerID != b.ID {
		t.Fatalf("undo %+v, want the forgotten drawer skipped", undo)
	}
	if d := get(t, p, b.ID); d.Status != palace.StatusDeleted {
		t.Fatalf("forgotten drawer is %s after undo", d.Status)
	}
}

func TestDedupDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	note(t, p, deployA)
	note(t, p, deployB)
	rep := dreamWith(t, p, clk, dreamer.RunOptions{Passes: []string{"dedup"}, DryRun: true})
	if pr := passReport(t, rep, "dedup"); pr.Changed != 1 || len(pr.Merges) != 1 {
		t.Fatalf("dry run report %+v, want one planned merge", pr)
	}
	if rep.RunID != "" {
		t.Fatalf("dry run recorded run %s", rep.RunID)
	}
	n, err := p.Count(ctx, palace.Filter{})
	if err != nil || n != 2 {
		t.Fatalf("active drawers %d (%v), want 2", n, err)
	}
	runs, _ := dreamlog.Of(p).Runs(ctx, 10)
	if len(runs) != 0 {
		t.Fatalf("dry run recorded %d runs", len(runs))
	}
}

// An embedder none was measured for (a model behind an engine) gets the
// default encoder's threshold carried to its own cosines of restatements:
// a stand-in for the hash embedder links a restatement at 0.89, which the
// default's 0.93 as it is would leave apart, and the report says so.
func TestDedupWithAnUnmeasuredEmbedder(t *testing.T) {
	t.Parallel()
	clk := newClock()
	p := openPalaceWith(t, palace.Config{DataDir: t.TempDir(), Now: clk.Now, Embedder: engineModel{embed.NewHash(0)}})
	a := note(t, p, "The nightly backup job copies the uploads bucket to cold storage")
	clk.Advance(time.Minute)
	b := note(t, p, "The nightly backup task copies the uploads bucket into cold storage")
	note(t, p, "Lunch on Fridays is at the Thai place around the corner")
	pr := passReport(t, dream(t, p, clk, "dedup"), "dedup")
	if pr.Status != dreamer.PassOK || len(pr.Merges) != 1 || pr.Merges[0].Survivor != a.ID || pr.Merges[0].Duplicate != b.ID {
		t.Fatalf("dedup report %+v, want %s linked to %s", pr, b.ID, a.ID)
	}
	if !strings.Contains(pr.Note, "0.817") || !strings.Contains(pr.Note, "carried") {
		t.Errorf("note %q, want the carried threshold (0.817)", pr.Note)
	}
}

// Without a measured threshold or the embedder's restatements (its engine
// does not answer), the pass is skipped and says what to set.
func TestDedupWithoutThresholdIsSkipped(t *testing.T) {
	t.Parallel()
	clk := newClock()
	model := &unreachable{Embedder: engineModel{embed.NewHash(0)}}
	p := openPalaceWith(t, palace.Config{DataDir: t.TempDir(), Now: clk.Now, Embedder: model})
	note(t, p, deployA)
	note(t, p, deployB)
	model.down.Store(true)
	pr := passReport(t, dream(t, p, clk, "dedup"), "dedup")
	if pr.Status != dreamer.PassSkipped || pr.Changed != 0 || !strings.Contains(pr.Note, "LOCI_DEDUP_THRESHOLD") {
		t.Fatalf("pass %+v, want skipped, naming LOCI_DEDUP_THRESHOLD", pr)
	}
}

// unreachable is an engine that stops answering once down is set.
type unreachable struct {
	embed.Embedder
	down atomic.Bool
}

func (u *unreachable) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if u.down.Load() {
		return nil, errors.New("connection refused")
	}
	return u.Embedder.Embed(ctx, texts)
}

func isConflict(err error) bool {
	return err != nil && palace.ErrorCode(err) == palace.CodeConflict
}
