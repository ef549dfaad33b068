package facts_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/palace/palacetest"
)

type factClock = palacetest.Clock

func mustFactPalace(t testing.TB, config string) (*palace.Palace, *factClock) {
	return palacetest.MustOpenWithSettings(t, config)
}

func mustStage(tb testing.TB, p *palace.Palace, text, kind string, conf float64) facts.StageResult {
	tb.Helper()
	res, err := facts.Of(p).Stage(context.Background(), facts.Input{Text: text, Kind: kind, Confidence: conf})
	if err != nil {
		tb.Fatalf("stage %q: %v", text, err)
	}
	return res
}

func TestStageFactIDsAndValidation(t *testing.T) {
	p, _ := mustFactPalace(t, "")
	ctx := context.Background()
	a := mustStage(t, p, "I prefer pnpm over npm", "tooling", 0.9)
	if got, want := a.Fact.ID, "mem-0001"; got != want {
		t.Fatalf("first id %s, want %s", got, want)
	}
	if a.Outcome != facts.OutcomeStaged || a.Fact.Status != palace.StatusPending || a.Fact.Kind != "tooling" || a.Fact.Confidence != 0.9 {
		t.Fatalf("staged fact: %+v", a)
	}
	b := mustStage(t, p, "My production Postgres runs on port 5433", "infra", 0.6)
	if b.Fact.ID != "mem-0002" {
		t.Fatalf("second id %s", b.Fact.ID)
	}
	// Forgetting never frees a number.
	if _, err := facts.Of(p).Forget(ctx, b.Fact.ID); err != nil {
		t.Fatal(err)
	}
	c := mustStage(t, p, "The team standup is at 9:30 every weekday", "", 0)
	if c.Fact.ID != "mem-0003" || c.Fact.Kind != "preference" || c.Fact.Confidence != 0 {
		t.Fatalf("third fact %+v (want mem-0003, default kind, confidence 0 kept)", c.Fact)
	}

	before, _ := p.Count(ctx, palace.Filter{Statuses: palace.AnyStatus})
	bad := []struct {
		in   facts.Input
		want string
	}{
		{facts.Input{Text: "   ", Confidence: 0.5}, "fact is empty"},
		{facts.Input{Text: "x", Kind: "hobby", Confidence: 0.5}, "valid kinds: preference, tooling, project, infra, identity, fiscal, people, constraint, location, health"},
		{facts.Input{Text: "x", Confidence: 1.5}, "confidence must be in [0,1]"},
		{facts.Input{Text: "x", Confidence: -0.1}, "confidence must be in [0,1]"},
		{facts.Input{Text: strings.Repeat("long ", 1000), Confidence: 0.5}, "the limit is 4096"},
	}
	for _, tc := range bad {
		_, err := facts.Of(p).Stage(ctx, tc.in)
		if !errors.Is(err, palace.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("StageFact(%.20q): err %v, want invalid containing %q", tc.in.Text, err, tc.want)
		}
	}
	after, _ := p.Count(ctx, palace.Filter{Statuses: palace.AnyStatus})
	if before != after {
		t.Fatalf("bad input changed the store: %d drawers, then %d", before, after)
	}
	// The next id continues after the refused ones: refusals allocate none.
	if d := mustStage(t, p, "I like tabs", "", 0.5); d.Fact.ID != "mem-0004" {
		t.Fatalf("id after refusals %s, want mem-0004", d.Fact.ID)
	}
}

func TestKindsAndTiers(t *testing.T) {
	want := map[string]int{"preference": 1, "tooling": 1, "project": 1, "infra": 1, "identity": 3,
		"fiscal": 3, "people": 3, "constraint": 3, "location": 3, "health": 3}
	if len(facts.Kinds) != 10 {
		t.Fatalf("%d kinds, want 10", len(facts.Kinds))
	}
	for _, k := range facts.Kinds {
		if want[k.Name] != k.Tier {
			t.Errorf("kind %s tier %d, want %d", k.Name, k.Tier, want[k.Name])
		}
	}
	if k, err := facts.CheckKind("Tooling"); err != nil || k != "tooling" {
		t.Errorf("CheckKind(Tooling) = %q, %v", k, err)
	}
}

func TestAutoPromoteTiers(t *testing.T) {
	p, _ := mustFactPalace(t, `{"autopromote": true}`)
	tier1 := mustStage(t, p, "I prefer dark mode in every editor", "preference", 0.8)
	if tier1.Outcome != facts.OutcomePromoted || tier1.Fact.Status != palace.StatusActive || tier1.Fact.ConfirmedAt.IsZero() {
		t.Fatalf("tier-1 fact not promoted: %+v", tier1)
	}
	for _, kind := range []string{"identity", "fiscal", "people", "constraint", "location", "health"} {
		r := mustStage(t, p, "A curated "+kind+" statement number "+kind, kind, 1)
		if r.Fact.Status != palace.StatusPending {
			t.Errorf("tier-3 kind %s auto-promoted", kind)
		}
	}
	// The environment wins over the file.
	t.Setenv("LOCI_AUTOPROMOTE", "false")
	r := mustStage(t, p, "I prefer light mode in terminals", "preference", 0.8)
	if r.Fact.Status != palace.StatusPending {
		t.Fatalf("LOCI_AUTOPROMOTE=false did not win over the file: %+v", r.Fact)
	}
}

func TestDuplicatesAreNotStagedTwice(t *testing.T) {
	p, clock := mustFactPalace(t, "")
	ctx := context.Background()
	a := mustStage(t, p, "I prefer pnpm over npm", "tooling", 0.6)
	dup := mustStage(t, p, "  i prefer PNPM over npm. ", "tooling", 0.9)
	if dup.Outcome != facts.OutcomeDuplicate || dup.Fact.ID != a.Fact.ID {
		t.Fatalf("restating a pending fact: %+v", dup)
	}
	// Word order matters: the opposite preference is a new fact.
	opp := mustStage(t, p, "I prefer npm over pnpm", "tooling", 0.6)
	if opp.Outcome != facts.OutcomeStaged || opp.Fact.ID == a.Fact.ID {
		t.Fatalf("opposite preference treated as duplicate: %+v", opp)
	}
	// A promoted fact stated again is re-confirmed.
	if _, err := facts.Of(p).Approve(ctx, a.Fact.ID); err != nil {
		t.Fatal(err)
	}
	clock.Advance(48 * time.Hour)
	re := mustStage(t, p, "I really prefer pnpm over npm", "tooling", 0.95)
	if re.Outcome != facts.OutcomeReconfirmed || re.Fact.ID != a.Fact.ID {
		t.Fatalf("restating a promoted fact: %+v", re)
	}
	if got, want := re.Fact.ConfirmedAt, clock.Now().Truncate(time.Second); !got.Equal(want) {
		t.Fatalf("confirmed_at %v, want %v", got, want)
	}
	if re.Fact.Confidence != 0.95 {
		t.Fatalf("confidence %v, want the higher 0.95", re.Fact.Confidence)
	}
	n, _ := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindFact}, Statuses: palace.AnyStatus})
	if n != 2 {
		t.Fatalf("%d fact drawers, want 2", n)
	}
}

func TestConflictFlaggedAndSupersedesOnApproval(t *testing.T) {
	p, _ := mustFactPalace(t, `{"autopromote": true}`)
	ctx := context.Background()
	old := mustStage(t, p, "My production Postgres runs on port 5433", "infra", 0.9)
	if old.Fact.Status != palace.StatusActive {
		t.Fatalf("setup: %+v", old.Fact)
	}
	cases := []struct{ a, b string }{
		{"My work email is ana@old.example", "My work email is ana@new.example"},
		{"The monthly hosting budget is $400", "The monthly hosting budget is $650"},
		{"We pin Go 1.22 in CI", "We pin Go 1.23 in CI"},
		{"The launch date is 2026-06-01", "The launch date is 2026-07-15"},
	}
	for _, c := range cases {
		first := mustStage(t, p, c.a, "project", 0.9)
		if first.Fact.Status != palace.StatusActive {
			t.Fatalf("setup %q: %+v", c.a, first)
		}
		second := mustStage(t, p, c.b, "project", 0.9)
		if second.Conflict == nil || second.Conflict.ID != first.Fact.ID || second.Fact.ConflictsWith != first.Fact.ID {
			t.Errorf("%q vs %q: conflict not flagged: %+v", c.a, c.b, second)
		}
		if second.Fact.Status != palace.StatusPending {
			t.Errorf("%q: a conflicting fact was auto-promoted", c.b)
		}
	}
	newer := mustStage(t, p, "My production Postgres runs on port 5432", "infra", 0.9)
	if newer.Fact.ConflictsWith != old.Fact.ID || newer.ConflictValue != "id" {
		t.Fatalf("port change not flagged: %+v", newer)
	}
	res, err := facts.Of(p).Approve(ctx, newer.Fact.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Superseded == nil || res.Superseded.ID != old.Fact.ID || res.Superseded.Status != palace.StatusSuperseded {
		t.Fatalf("approval did not supersede: %+v", res)
	}
	if res.Fact.Supersedes != old.Fact.ID {
		t.Fatalf("supersedes = %q", res.Fact.Supersedes)
	}
	hist, err := facts.Of(p).Get(ctx, old.Fact.ID)
	if err != nil || hist.SupersededBy != newer.Fact.ID {
		t.Fatalf("old fact kept in history with superseded_by: %+v %v", hist, err)
	}
	got, err := facts.Of(p).Recall(ctx, "postgres port", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != newer.Fact.ID {
		t.Fatalf("recall after supersede: %+v", got)
	}
	// A different subject with a different number is no conflict.
	other := mustStage(t, p, "The staging Redis listens on port 6380", "infra", 0.9)
	if other.Conflict != nil {
		t.Fatalf("unrelated fact flagged: %+v", other.Conflict)
	}
}

func TestRecallFacts(t *testing.T) {
	p, clock := mustFactPalace(t, `{"fact_horizon": "30d"}`)
	ctx := context.Background()
	approve := func(r facts.StageResult) {
		t.Helper()
		if _, err := facts.Of(p).Approve(ctx, r.Fact.ID); err != nil {
			t.Fatal(err)
		}
	}
	low := mustStage(t, p, "I prefer pnpm over npm", "tooling", 0.5)
	approve(low)
	clock.Advance(time.Hour)
	high := mustStage(t, p, "My production Postgres runs on port 5433", "infra", 0.95)
	approve(high)
	pending := mustStage(t, p, "I prefer pnpm workspaces for monorepos", "tooling", 0.9)
	rejected := mustStage(t, p, "Postgres backups run nightly", "infra", 0.9)
	if _, err := facts.Of(p).Reject(ctx, rejected.Fact.ID); err != nil {
		t.Fatal(err)
	}

	all, err := facts.Of(p).Recall(ctx, "", 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != high.Fact.ID || all[1].ID != low.Fact.ID {
		t.Fatalf("empty query: %+v (want promoted only, high confidence first)", all)
	}
	q, err := facts.Of(p).Recall(ctx, "pnpm", 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].ID != low.Fact.ID {
		t.Fatalf("query pnpm: %+v (pending %s must not appear, weak matches dropped)", q, pending.Fact.ID)
	}
	if none, _ := facts.Of(p).Recall(ctx, "kubernetes helm charts", 20); len(none) != 0 {
		t.Fatalf("unrelated query returned %+v", none)
	}
	if one, _ := facts.Of(p).Recall(ctx, "", 1); len(one) != 1 {
		t.Fatalf("limit 1 returned %d", len(one))
	}
	if _, err := facts.Of(p).Recall(ctx, "", 0); !errors.Is(err, palace.ErrInvalid) {
		t.Fatalf("limit 0: %v", err)
	}

	// Past the horizon facts go stale and leave recall; re-stating one
	// brings it back.
	clock.Advance(31 * 24 * time.Hour)
	if stale, _ := facts.Of(p).Recall(ctx, "", 20); len(stale) != 0 {
		t.Fatalf("stale facts recalled: %+v", stale)
	}
	if f, _ := facts.Of(p).Get(ctx, high.Fact.ID); f.Status != palace.StatusStale {
		t.Fatalf("status after horizon %s, want stale", f.Status)
	}
	re := mustStage(t, p, "My production Postgres runs on port 5433", "infra", 0.9)
	if re.Outcome != facts.OutcomeReconfirmed || re.Fact.Status != palace.StatusActive {
		t.Fatalf("re-stating a stale fact: %+v", re)
	}
	if back, _ := facts.Of(p).Recall(ctx, "", 20); len(back) != 1 || back[0].ID != high.Fact.ID {
		t.Fatalf("after re-confirmation: %+v", back)
	}
}

func TestSettings(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"180d", 180 * 24 * time.Hour}, {"2w", 14 * 24 * time.Hour}, {"36h", 36 * time.Hour}, {"off", 0}, {"0", 0}} {
		got, err := palace.ParseHorizon(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseHorizon(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "soon", "-3d", "12x"} {
		if _, err := palace.ParseHorizon(bad); err == nil {
			t.Errorf("ParseHorizon(%q) accepted", bad)
		}
	}
	dir := t.TempDir()
	t.Setenv("LOCI_AUTOPROMOTE", "")
	t.Setenv("LOCI_FACT_HORIZON", "")
	t.Setenv("LOCI_TOPK", "")
	s, err := palace.LoadSettings(dir)
	if err != nil || s.Loaded || s.TopK != palace.DefaultTopK || s.FactHorizon != palace.DefaultFactHorizon || s.AutoPromote {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	os.WriteFile(filepath.Join(dir, palace.ConfigFile), []byte(`{"autopromote":true,"fact_horizon":"90d","top_k":7,"other_face":{"x":1}}`), 0o600)
	s, err = palace.LoadSettings(dir)
	if err != nil || !s.Loaded || s.TopK != 7 || s.FactHorizon != 90*24*time.Hour || !s.AutoPromote {
		t.Fatalf("from file: %+v %v", s, err)
	}
	t.Setenv("LOCI_TOPK", "9")
	t.Setenv("LOCI_FACT_HORIZON", "off")
	if s, _ = palace.LoadSettings(dir); s.TopK != 9 || s.FactHorizon != 0 {
		t.Fatalf("env over file: %+v", s)
	}
	t.Setenv("LOCI_TOPK", "99")
	if _, err := palace.LoadSettings(dir); !errors.Is(err, palace.ErrInvalid) || !strings.Contains(err.Error(), "LOCI_TOPK") {
		t.Fatalf("LOCI_TOPK=99: %v", err)
	}
	t.Setenv("LOCI_TOPK", "")
	// Give the rewritten file a different size so the cache notices.
	os.WriteFile(filepath.Join(dir, palace.ConfigFile), []byte(`{"top_k": "many"}`), 0o600)
	if _, err := palace.LoadSettings(dir); !errors.Is(err, palace.ErrInvalid) || !strings.Contains(err.Error(), "config.json") {
		t.Fatalf("bad file: %v", err)
	}
}

func TestStageFactConcurrently(t *testing.T) {
	p, _ := mustFactPalace(t, "")
	ctx := context.Background()
	var wg sync.WaitGroup
	outcomes := make(chan string, 64)
	ids := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			// Every goroutine states the same fact, and one of its own.
			same, err := facts.Of(p).Stage(ctx, facts.Input{Text: "I prefer pnpm over npm", Kind: "tooling", Confidence: 0.6})
			if err != nil {
				t.Error(err)
				return
			}
			outcomes <- same.Outcome
			own, err := facts.Of(p).Stage(ctx, facts.Input{Text: "Service number " + string(rune('A'+g)) + " listens on port 80" + string(rune('0'+g)), Kind: "infra", Confidence: 0.6})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- own.Fact.ID
		}(g)
	}
	wg.Wait()
	close(outcomes)
	close(ids)
	staged := 0
	for o := range outcomes {
		if o == facts.OutcomeStaged {
			staged++
		}
	}
	if staged != 1 {
		t.Fatalf("the same fact was staged %d times by 8 goroutines, want once", staged)
	}
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("id %s handed out twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 8 {
		t.Fatalf("%d distinct ids, want 8", len(seen))
	}
}

// A fact in Chinese or Japanese, one word to the word splitter however
// long, is compared by its character pairs: the same statement with a
// word added is a duplicate, another statement is not.
func TestRestatesComparesCJKByCharacterPairs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"我们每周二部署新版本", "我们每周二都部署新版本。", true},
		{"我们每周二部署新版本", "我们每周三部署旧版本", false},
		{"会議は毎週月曜日の午前十時です", "会議は毎週月曜日の午前十時からです", true},
		{"会議は毎週月曜日の午前十時です", "昼食は毎日正午にとります", false},
	} {
		if got := facts.Restates(c.a, c.b); got != c.want {
			t.Errorf("Restates(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
