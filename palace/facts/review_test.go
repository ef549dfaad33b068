package facts_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

func mustStatus(tb testing.TB, p *palace.Palace, id, want string) {
	tb.Helper()
	f, err := facts.Of(p).Get(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	if f.Status != want {
		tb.Fatalf("%s is %s, want %s", id, f.Status, want)
	}
}

func TestReviewTransitions(t *testing.T) {
	p, _ := mustFactPalace(t, "")
	ctx := context.Background()
	a := mustStage(t, p, "I prefer pnpm over npm", "tooling", 0.6).Fact.ID

	// pending -> rejected, undo -> pending
	rej, err := facts.Of(p).Reject(ctx, a)
	if err != nil || rej.UndoToken == "" || rej.Fact.Status != palace.StatusRejected {
		t.Fatalf("reject: %+v %v", rej, err)
	}
	if _, err := facts.Of(p).Reject(ctx, a); !errors.Is(err, palace.ErrConflict) {
		t.Fatalf("second reject: %v, want conflict", err)
	}
	undo, _, err := facts.Of(p).Undo(ctx, rej.UndoToken)
	if err != nil || undo.Fact.Status != palace.StatusPending {
		t.Fatalf("undo reject: %+v %v", undo, err)
	}
	if _, _, err := facts.Of(p).Undo(ctx, rej.UndoToken); !errors.Is(err, palace.ErrConflict) {
		t.Fatalf("undo twice: %v, want conflict", err)
	}

	// pending -> active; approving again re-confirms
	ap, err := facts.Of(p).Approve(ctx, a)
	if err != nil || ap.Fact.Status != palace.StatusActive || ap.Fact.ConfirmedAt.IsZero() {
		t.Fatalf("approve: %+v %v", ap, err)
	}
	if again, err := facts.Of(p).Approve(ctx, a); err != nil || !again.Reconfirmed {
		t.Fatalf("approve active: %+v %v", again, err)
	}
	if _, err := facts.Of(p).Reject(ctx, a); !errors.Is(err, palace.ErrConflict) {
		t.Fatalf("reject active: %v, want conflict", err)
	}

	// active -> deleted, undo -> active (and back in recall)
	fg, err := facts.Of(p).Forget(ctx, a)
	if err != nil || fg.UndoToken == "" || fg.Fact.Status != palace.StatusDeleted {
		t.Fatalf("forget: %+v %v", fg, err)
	}
	if got, _ := facts.Of(p).Recall(ctx, "", 10); len(got) != 0 {
		t.Fatalf("forgotten fact recalled: %+v", got)
	}
	if _, err := facts.Of(p).Forget(ctx, a); !errors.Is(err, palace.ErrNotFound) {
		t.Fatalf("forget twice: %v, want not found", err)
	}
	if _, err := facts.Of(p).Approve(ctx, a); !errors.Is(err, palace.ErrConflict) {
		t.Fatalf("approve deleted: %v, want conflict", err)
	}
	if _, _, err := facts.Of(p).Undo(ctx, fg.UndoToken); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, p, a, palace.StatusActive)
	if got, _ := facts.Of(p).Recall(ctx, "", 10); len(got) != 1 {
		t.Fatalf("restored fact not recalled: %+v", got)
	}

	// A token goes stale once the status moved on.
	b := mustStage(t, p, "I deploy on Fridays only after noon", "constraint", 0.7).Fact.ID
	rb, err := facts.Of(p).Reject(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := facts.Of(p).Approve(ctx, b); err != nil { // rejected -> active
		t.Fatal(err)
	}
	if _, _, err := facts.Of(p).Undo(ctx, rb.UndoToken); !errors.Is(err, palace.ErrConflict) {
		t.Fatalf("stale token: %v, want conflict", err)
	}
	mustStatus(t, p, b, palace.StatusActive)

	// Unknown ids and tokens.
	for _, id := range []string{"mem-9999", "0190c0de-0000-7000-8000-000000000000"} {
		if _, err := facts.Of(p).Approve(ctx, id); !errors.Is(err, palace.ErrNotFound) {
			t.Errorf("approve %s: %v, want not found", id, err)
		}
	}
	if _, err := facts.Of(p).Approve(ctx, "mem-x1"); !errors.Is(err, palace.ErrInvalid) {
		t.Errorf("approve mem-x1: %v, want invalid", err)
	}
	if _, _, err := facts.Of(p).Undo(ctx, "undo-nope"); !errors.Is(err, palace.ErrNotFound) {
		t.Errorf("unknown token: %v", err)
	}
}

func TestForgetDrawerAnyKindWithUndo(t *testing.T) {
	p, _ := mustFactPalace(t, "")
	ctx := context.Background()
	d := &palace.Drawer{Content: "the deploy script lives in ops/deploy.sh"}
	if err := p.Add(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := facts.Of(p).Get(ctx, d.ID); !errors.Is(err, palace.ErrNotFound) {
		t.Fatalf("a note is not a fact: %v", err)
	}
	nd, token, err := p.Forget(ctx, d.ID)
	if err != nil || nd.Status != palace.StatusDeleted || token == "" {
		t.Fatalf("forget note: %+v %q %v", nd, token, err)
	}
	_, back, err := facts.Of(p).Undo(ctx, token)
	if err != nil || back.Status != palace.StatusActive {
		t.Fatalf("undo forget note: %+v %v", back, err)
	}
}

func TestListFactsAndHistory(t *testing.T) {
	p, _ := mustFactPalace(t, "")
	ctx := context.Background()
	a := mustStage(t, p, "I prefer pnpm over npm", "tooling", 0.6).Fact.ID
	mustStage(t, p, "I am allergic to shellfish", "health", 0.9)
	mustStage(t, p, "My manager is Priya", "people", 0.8)
	if _, err := facts.Of(p).Approve(ctx, a); err != nil {
		t.Fatal(err)
	}
	pending, total, err := facts.Of(p).List(ctx, facts.Query{})
	if err != nil || total != 2 || len(pending) != 2 || pending[0].ID != "mem-0002" {
		t.Fatalf("pending queue: %+v total %d %v", pending, total, err)
	}
	health, _, err := facts.Of(p).List(ctx, facts.Query{Statuses: palace.AnyStatus, Kinds: []string{"health"}})
	if err != nil || len(health) != 1 || health[0].Tier != 3 {
		t.Fatalf("health facts: %+v %v", health, err)
	}
	if _, _, err := facts.Of(p).List(ctx, facts.Query{Kinds: []string{"hobby"}}); !errors.Is(err, palace.ErrInvalid) {
		t.Fatalf("unknown kind filter: %v", err)
	}
	hist, err := facts.Of(p).History(ctx, a)
	if err != nil || len(hist) != 2 || hist[0].Type != palace.EventAdded || hist[1].Type != palace.EventStatus {
		t.Fatalf("history: %+v %v", hist, err)
	}
}
