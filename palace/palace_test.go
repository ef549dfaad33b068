package palace_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

// MustOpenRegistry opens a registry in a temporary data dir.
func MustOpenRegistry(tb testing.TB) *palace.Registry {
	tb.Helper()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { reg.Close() })
	return reg
}

// MustOpenPalace creates a palace named "test" in a fresh registry.
func MustOpenPalace(tb testing.TB) *palace.Palace {
	tb.Helper()
	p, err := MustOpenRegistry(tb).Create(context.Background(), "test", "a test palace")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func mustAdd(tb testing.TB, p *palace.Palace, d *palace.Drawer) *palace.Drawer {
	tb.Helper()
	if err := p.Add(context.Background(), d); err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestValidateName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"a", "my-project", "Client_Acme.v2", "_x", "0day"} {
		if err := palace.ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/b", "a\\b", "-x", ".hidden", "a b", "a\x00b", "a\nb", "ünï", strings.Repeat("x", 201)} {
		err := palace.ValidateName(bad)
		if !errors.Is(err, palace.ErrInvalid) {
			t.Errorf("ValidateName(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	// A name holding a credential is refused without being echoed.
	secret := "gh" + "p_" + strings.Repeat("Zq7", 12)
	if err := palace.ValidateName("proj-" + secret); !errors.Is(err, palace.ErrInvalid) || strings.Contains(err.Error(), "Zq7") {
		t.Errorf("ValidateName(a token) = %v, want ErrInvalid without the token", err)
	}
}

func TestCreateOpenList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg := MustOpenRegistry(t)
	if _, err := reg.Open(ctx, "nope"); !errors.Is(err, palace.ErrNotFound) {
		t.Fatalf("Open(missing) = %v, want ErrNotFound", err)
	}
	p, err := reg.Create(ctx, "alpha", "first")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Create(ctx, "alpha", ""); !errors.Is(err, palace.ErrConflict) {
		t.Fatalf("second Create = %v, want ErrConflict", err)
	}
	if _, err := reg.OpenOrCreate(ctx, "beta"); err != nil {
		t.Fatal(err)
	}
	names, err := reg.List()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(names, ","), "alpha,beta"; got != want {
		t.Fatalf("List = %s, want %s", got, want)
	}
	in, err := p.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if in.ID != "alpha" || in.Name != "alpha" || in.Description != "first" || in.DrawerCount != 0 {
		t.Fatalf("Info = %+v", in)
	}
	if got, want := in.DataDir, filepath.Join(reg.DataDir(), "palaces", "alpha"); got != want {
		t.Fatalf("DataDir = %s, want %s", got, want)
	}
}

func TestAddGetForget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	d := mustAdd(t, p, &palace.Drawer{Content: "  The API gateway validates JWT tokens using RS256. ", Room: "backend", Tags: []string{"auth", "jwt", "auth", " "}})
	if d.ID == "" || d.Seq == 0 {
		t.Fatalf("Add did not assign id/seq: %+v", d)
	}
	got, err := p.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "The API gateway validates JWT tokens using RS256." || got.Room != "Backend" ||
		strings.Join(got.Tags, ",") != "auth,jwt" || got.Status != palace.StatusActive || got.Importance != 0.5 {
		t.Fatalf("stored drawer = %+v", got)
	}
	if got.Model == "" {
		t.Fatalf("drawer has no vector model recorded")
	}
	custom := mustAdd(t, p, &palace.Drawer{Content: "x marks", Room: "Spaceship"})
	if custom.Room != "Custom(Spaceship)" {
		t.Fatalf("custom room = %q", custom.Room)
	}
	if _, _, err := p.Forget(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Forget(ctx, d.ID); !errors.Is(err, palace.ErrNotFound) {
		t.Fatalf("second Forget = %v, want ErrNotFound", err)
	}
	if _, _, err := p.Forget(ctx, "no-such-id"); !errors.Is(err, palace.ErrNotFound) {
		t.Fatalf("Forget(unknown) = %v, want ErrNotFound", err)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "JWT validation"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Drawer.ID == d.ID {
			t.Fatal("forgotten drawer was recalled")
		}
	}
}

func TestAddRejectsBadInputAndStoresNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	bad := []*palace.Drawer{
		{Content: ""},
		{Content: "   \n\t"},
		{Content: "bad \xff utf8"},
		{Content: "nul \x00 byte"},
		{Content: "x", Importance: 1.5},
		{Content: "x", Importance: -0.2},
		{Content: "x", Confidence: 2},
		{Content: "x", Status: "weird"},
		{Content: "x", Tags: []string{strings.Repeat("t", 200)}},
		{Content: strings.Repeat("a", palace.MaxContentBytes+1)},
	}
	for i, d := range bad {
		if err := p.Add(ctx, d); !errors.Is(err, palace.ErrInvalid) {
			t.Errorf("case %d: Add = %v, want ErrInvalid", i, err)
		}
	}
	// A batch with one bad item stores none of it.
	err := p.AddMany(ctx, []*palace.Drawer{{Content: "good one"}, {Content: ""}})
	if !errors.Is(err, palace.ErrInvalid) {
		t.Fatalf("AddMany = %v, want ErrInvalid", err)
	}
	if n, _ := p.Count(ctx, palace.Filter{Statuses: palace.AnyStatus}); n != 0 {
		t.Fatalf("%d drawers stored after rejected writes", n)
	}
}

func TestRedactedBeforeStoring(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	secret := "emk_" + strings.Repeat("a1B2", 8)
	d := mustAdd(t, p, &palace.Drawer{Content: "my key is " + secret + " keep it safe"})
	got, err := p.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.Content, secret) || got.Redactions == 0 {
		t.Fatalf("secret stored: %q (redactions %d)", got.Content, got.Redactions)
	}
	if !strings.Contains(got.Content, "emk_a1B2_REDACTED") {
		t.Fatalf("content = %q, want the seed's mask", got.Content)
	}
}

func TestListOrderAndFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	mustAdd(t, p, &palace.Drawer{Content: "low", Importance: 0.1, Room: "Testing", Tags: []string{"a"}})
	mustAdd(t, p, &palace.Drawer{Content: "high", Importance: 0.9, Room: "Testing"})
	mustAdd(t, p, &palace.Drawer{Content: "mid", Importance: 0.5, Room: "Backend", Tags: []string{"a"}})
	ds, total, err := p.List(ctx, palace.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || ds[0].Content != "high" || ds[1].Content != "mid" || ds[2].Content != "low" {
		t.Fatalf("List order wrong: total %d, %v", total, contents(ds))
	}
	ds, _, _ = p.List(ctx, palace.ListOptions{Filter: palace.Filter{Room: "testing"}})
	if got := contents(ds); got != "high,low" {
		t.Fatalf("room filter = %s", got)
	}
	ds, _, _ = p.List(ctx, palace.ListOptions{Filter: palace.Filter{Tags: []string{"a"}}})
	if got := contents(ds); got != "mid,low" {
		t.Fatalf("tag filter = %s", got)
	}
	ds, _, _ = p.List(ctx, palace.ListOptions{Limit: 1})
	if got := contents(ds); got != "high" {
		t.Fatalf("limit = %s", got)
	}
}

func contents(ds []*palace.Drawer) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Content)
	}
	return strings.Join(s, ",")
}

func TestSearchHybrid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	texts := []string{
		"The API gateway validates JWT tokens using RS256.",
		"Deployments go through ArgoCD with a manual approval step.",
		"Alice's favourite coffee shop is Blue Bottle in SOMA.",
		"We chose PostgreSQL 16 for the billing service; port 5433 in production.",
		"The frontend uses React with Vite and Vitest.",
	}
	for _, s := range texts {
		mustAdd(t, p, &palace.Drawer{Content: s})
	}
	cases := []struct{ query, want string }{
		{"How does token validation work?", "JWT"},
		{"which database does billing use", "PostgreSQL"},
		{"Alice's coffee", "Blue Bottle"},               // apostrophe must not break MATCH
		{"state-of-the-art front-end tooling", "React"}, // hyphens
		{`"quoted" AND OR NOT NEAR( * ^ : -`, ""},       // FTS5 syntax is plain text
		{"deployment approval", "ArgoCD"},
	}
	for _, c := range cases {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: c.query, K: 3})
		if err != nil {
			t.Fatalf("Search(%q): %v", c.query, err)
		}
		if c.want == "" {
			continue
		}
		if len(hits) == 0 || !strings.Contains(hits[0].Drawer.Content, c.want) {
			t.Errorf("Search(%q) top = %v, want %q", c.query, hitContents(hits), c.want)
		}
		if hits[0].Score <= 0 || hits[0].Score > 1.0000001 {
			t.Errorf("score %v out of (0,1]", hits[0].Score)
		}
	}
	// Keyword-only finds by term; vector-only still ranks.
	kw, err := p.Search(ctx, palace.SearchRequest{Query: "ArgoCD", Mode: palace.ModeKeyword})
	if err != nil || len(kw) != 1 {
		t.Fatalf("keyword search = %v, %v", hitContents(kw), err)
	}
	vec, err := p.Search(ctx, palace.SearchRequest{Query: "ArgoCD", Mode: palace.ModeVector, K: 2})
	if err != nil || len(vec) != 2 {
		t.Fatalf("vector search = %v, %v", hitContents(vec), err)
	}
	if _, err := p.Search(ctx, palace.SearchRequest{Query: "  "}); !errors.Is(err, palace.ErrInvalid) {
		t.Fatalf("empty query = %v, want ErrInvalid", err)
	}
	if _, err := p.Search(ctx, palace.SearchRequest{Query: "x", K: -1}); !errors.Is(err, palace.ErrInvalid) {
		t.Fatalf("negative k = %v, want ErrInvalid", err)
	}
}

func hitContents(hs []palace.Hit) []string {
	var s []string
	for _, h := range hs {
		s = append(s, h.Drawer.Content)
	}
	return s
}

func TestImportanceOnlyBreaksTies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	relevant := mustAdd(t, p, &palace.Drawer{Content: "kubernetes ingress uses nginx", Importance: 0.1})
	for i := 0; i < 5; i++ {
		mustAdd(t, p, &palace.Drawer{Content: "unrelated very important note number " + string(rune('a'+i)), Importance: 1})
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "which ingress controller in kubernetes", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if hits[0].Drawer.ID != relevant.ID {
		t.Fatalf("important but irrelevant drawers buried the match: %v", hitContents(hits))
	}
}

func TestSearchFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	t0 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	mustAdd(t, p, &palace.Drawer{Content: "caroline went to the LGBTQ support group", Kind: palace.KindTurn, SessionID: "s1", Timestamp: t0, SenderIDs: []string{"caroline"}})
	mustAdd(t, p, &palace.Drawer{Content: "melanie painted a sunrise at the support group", Kind: palace.KindTurn, SessionID: "s2", Timestamp: t0.AddDate(0, 1, 0), SenderIDs: []string{"melanie"}})
	mustAdd(t, p, &palace.Drawer{Content: "support group note", Kind: palace.KindNote})
	check := func(name string, f palace.Filter, want int) {
		t.Helper()
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "support group", K: 10, Filter: f})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(hits) != want {
			t.Errorf("%s: %d hits %v, want %d", name, len(hits), hitContents(hits), want)
		}
	}
	check("all", palace.Filter{}, 3)
	check("kind", palace.Filter{Kinds: []string{palace.KindTurn}}, 2)
	check("session", palace.Filter{SessionID: "s2"}, 1)
	check("since", palace.Filter{Since: t0.Add(time.Hour)}, 2) // the note was stored now
	check("sender", palace.Filter{Where: &palace.Pred{Field: "sender_id", Op: "eq", Value: "caroline"}}, 1)
	check("or", palace.Filter{Where: &palace.Pred{Or: []palace.Pred{
		{Field: "session_id", Op: "eq", Value: "s1"},
		{Field: "kind", Op: "eq", Value: palace.KindNote},
	}}}, 2)
	if _, err := p.Search(ctx, palace.SearchRequest{Query: "x", Filter: palace.Filter{Where: &palace.Pred{Field: "nope", Op: "eq", Value: 1}}}); !errors.Is(err, palace.ErrInvalid) {
		t.Fatalf("unknown field = %v, want ErrInvalid", err)
	}
}

func TestRecallLayers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	mustAdd(t, p, &palace.Drawer{Content: "This palace belongs to the payments team.", Tags: []string{palace.TagIdentity}})
	mustAdd(t, p, &palace.Drawer{Content: "Refunds are processed nightly by a cron job.", Importance: 0.9})
	mustAdd(t, p, &palace.Drawer{Content: "Stripe webhooks are verified with the signing secret."})
	hits, err := p.Recall(ctx, palace.RecallRequest{Query: "how are stripe webhooks verified", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || hits[0].Layer != palace.LayerIdentity || hits[1].Layer != palace.LayerSearch ||
		!strings.Contains(hits[1].Drawer.Content, "Stripe") {
		for _, h := range hits {
			t.Logf("layer %d %q", h.Layer, h.Drawer.Content)
		}
		t.Fatal("unexpected layered recall")
	}
	deep, err := p.Recall(ctx, palace.RecallRequest{Query: "stripe webhooks", K: 2, Deep: true})
	if err != nil || len(deep) != 2 || deep[0].Layer != palace.LayerDeep {
		t.Fatalf("deep recall = %+v, %v", deep, err)
	}
}

func TestUpdateStatusReentersRecall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	d := mustAdd(t, p, &palace.Drawer{Content: "the staging cluster lives in eu-west-1"})
	search := func() int {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "staging cluster region", Mode: palace.ModeVector})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if search() != 1 {
		t.Fatal("not found before")
	}
	if _, err := p.SetStatus(ctx, d.ID, palace.StatusPending, ""); err != nil {
		t.Fatal(err)
	}
	if search() != 0 {
		t.Fatal("pending drawer recalled")
	}
	if _, err := p.SetStatus(ctx, d.ID, palace.StatusActive, ""); err != nil {
		t.Fatal(err)
	}
	if search() != 1 {
		t.Fatal("re-activated drawer not recalled")
	}
}

// openShared opens (creating) palace name in dir through a registry of
// its own, as another process would.
func openShared(t *testing.T, dir, name string) *palace.Palace {
	t.Helper()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	p, err := reg.OpenOrCreate(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTwoRegistriesSeeEachOther(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openShared(t, dir, "shared"), openShared(t, dir, "shared")
	var wg sync.WaitGroup
	for w, p := range []*palace.Palace{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				// Each text its own: the same note twice is one memory, listed once.
				if err := p.Add(ctx, &palace.Drawer{Content: fmt.Sprintf("writer %c note %d about topic zebra", 'A'+w, i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, p := range []*palace.Palace{a, b} {
		n, err := p.Count(ctx, palace.Filter{})
		if err != nil || n != 80 {
			t.Fatalf("count = %d, %v; want 80", n, err)
		}
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "zebra", K: 100, Mode: palace.ModeVector})
		if err != nil || len(hits) != 80 {
			t.Fatalf("vector hits = %d, %v; want 80 (index catch-up)", len(hits), err)
		}
	}
}

func TestProjectName(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := mkdirs(filepath.Join(root, "repo", ".git"), filepath.Join(root, "repo", "sub", "deep")); err != nil {
		t.Fatal(err)
	}
	a, err := palace.ProjectName(filepath.Join(root, "repo"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := palace.ProjectName(filepath.Join(root, "repo", "sub", "deep"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !strings.HasPrefix(a, "repo-") || palace.ValidateName(a) != nil {
		t.Fatalf("ProjectName = %q and %q", a, b)
	}
	if _, err := palace.ProjectName(t.TempDir()); err == nil {
		t.Fatal("ProjectName outside a repository succeeded")
	}
}

// TestKeywordSearchSkipsInactive: when most keyword matches are forgotten,
// the fast FTS-first path must fall back and still find every active one.
func TestKeywordSearchSkipsInactive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := MustOpenPalace(t)
	var ids []string
	for i := 0; i < 300; i++ {
		d := mustAdd(t, p, &palace.Drawer{Content: fmt.Sprintf("zebra crossing report %d", i)})
		ids = append(ids, d.ID)
	}
	// The newest 280 go: FTS ties rank newest first, so every candidate of
	// the fast path is inactive and the joined query must take over.
	for _, id := range ids[20:] {
		if _, _, err := p.Forget(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "zebra crossing", K: 10, Mode: palace.ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 10 {
		t.Fatalf("got %d hits, want 10 of the 20 active drawers", len(hits))
	}
	for _, h := range hits {
		if h.Drawer.Status != palace.StatusActive {
			t.Fatalf("inactive drawer returned: %+v", h.Drawer)
		}
	}
}
