package archive_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/archive"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/palace/palacetest"
)

// seedExportPalace fills a palace with drawers of several kinds and
// statuses, facts with a conflict and a supersession, and kg history.
func seedExportPalace(t *testing.T) *palace.Palace {
	t.Helper()
	p, clock := palacetest.MustOpenWithSettings(t, `{"autopromote": true}`)
	ctx := context.Background()
	if err := p.SetDescription(ctx, "export test palace"); err != nil {
		t.Fatal(err)
	}
	note := &palace.Drawer{Content: "We deploy with fly.io\nsecond line", Room: "Backend", Tags: []string{"deploy", "ops"},
		Importance: 0.8, Meta: map[string]any{"custom": "x", "n": 3.0}}
	if err := p.Add(ctx, note); err != nil {
		t.Fatal(err)
	}
	gone := &palace.Drawer{Content: "an old note", Room: "Planning"}
	if err := p.Add(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Forget(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	old := mustStage(t, p, "My production Postgres runs on port 5433", "infra", 0.9)
	newer := mustStage(t, p, "My production Postgres runs on port 5432", "infra", 0.9)
	if _, err := facts.Of(p).Approve(ctx, newer.Fact.ID); err != nil {
		t.Fatal(err)
	}
	mustStage(t, p, "I am allergic to shellfish", "health", 0)
	_ = old
	if _, err := p.KG().Assert(ctx, kg.Assertion{Subject: "api", Predicate: "runs_on", Object: "fly"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if _, err := p.KG().Assert(ctx, kg.Assertion{Subject: "api", Predicate: "runs_on", Object: "k8s", Provenance: "ops chat"}); err != nil {
		t.Fatal(err)
	}
	return p
}

func dumpPalace(t *testing.T, p *palace.Palace) (map[string]palace.Drawer, []kg.Triple) {
	t.Helper()
	ctx := context.Background()
	ds, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Statuses: palace.AnyStatus}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]palace.Drawer{}
	for _, d := range ds {
		c := *d
		c.Seq = 0 // change-log positions are the importing palace's own
		out[d.ID] = c
	}
	ts, err := p.KG().History(ctx, "api")
	if err != nil {
		t.Fatal(err)
	}
	return out, ts
}

func TestExportImportRoundTrip(t *testing.T) {
	src := seedExportPalace(t)
	ctx := context.Background()
	var buf bytes.Buffer
	st, err := archive.ExportJSONL(ctx, src, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if st.Drawers != 5 || st.Triples != 2 || st.FactIDs != 3 || st.Bytes != int64(buf.Len()) {
		t.Fatalf("export stats %+v (bytes %d)", st, buf.Len())
	}
	dst, _ := palacetest.MustOpenWithSettings(t, "")
	ist, err := archive.ImportJSONL(ctx, dst, bytes.NewReader(buf.Bytes()), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ist.Drawers != 5 || ist.Triples != 2 || ist.Renumbered != 0 || ist.Reembedded != 0 {
		t.Fatalf("import stats %+v", ist)
	}
	want, wantKG := dumpPalace(t, src)
	got, gotKG := dumpPalace(t, dst)
	if len(got) != len(want) {
		t.Fatalf("%d drawers after import, want %d", len(got), len(want))
	}
	for id, w := range want {
		g := got[id]
		if g.Content != w.Content || g.Status != w.Status || g.Room != w.Room || g.Kind != w.Kind ||
			!g.CreatedAt.Equal(w.CreatedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) || g.Importance != w.Importance ||
			g.Confidence != w.Confidence || g.SupersededBy != w.SupersededBy || strings.Join(g.Tags, ",") != strings.Join(w.Tags, ",") ||
			metaDigest(g.Meta) != metaDigest(w.Meta) || g.Model != w.Model {
			t.Errorf("drawer %s differs:\n got %+v\nwant %+v", id, g, w)
		}
	}
	if len(gotKG) != 2 || gotKG[0].Object != wantKG[0].Object || !gotKG[0].ValidTo.Equal(wantKG[0].ValidTo) ||
		gotKG[1].Provenance != "ops chat" || !gotKG[1].Active() {
		t.Fatalf("kg history after import: %+v want %+v", gotKG, wantKG)
	}
	// The next engram id continues after the exported ones.
	if next := mustStage(t, dst, "I like tea", "preference", 0.5); next.Fact.ID != "mem-0004" {
		t.Fatalf("next id after import %s, want mem-0004", next.Fact.ID)
	}
	// Search works on imported drawers (FTS and vectors).
	hits, err := dst.Search(ctx, palace.SearchRequest{Query: "deploy fly.io", K: 3})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Drawer.Content, "fly.io") {
		t.Fatalf("search after import: %+v %v", hits, err)
	}
	// Importing again skips everything; fail mode refuses.
	again, err := archive.ImportJSONL(ctx, dst, bytes.NewReader(buf.Bytes()), archive.ImportOptions{})
	if err != nil || again.Drawers != 0 || again.Skipped != 5 || again.TriplesSkipped != 2 {
		t.Fatalf("re-import: %+v %v", again, err)
	}
	if _, err := archive.ImportJSONL(ctx, dst, bytes.NewReader(buf.Bytes()), archive.ImportOptions{OnConflict: "fail"}); !errors.Is(err, palace.ErrConflict) {
		t.Fatalf("re-import with fail: %v", err)
	}
}

func metaDigest(m map[string]any) string {
	var b strings.Builder
	for _, k := range []string{"custom", "n", palace.MetaEngramID, facts.MetaFactKind, facts.MetaConflictsWith, facts.MetaSupersedes, facts.MetaConfirmedAt} {
		if v, ok := m[k]; ok {
			b.WriteString(k)
			b.WriteString("=")
			b.WriteString(fmt.Sprint(v))
			b.WriteString(";")
		}
	}
	return b.String()
}

func TestImportRenumbersTakenFactIDs(t *testing.T) {
	src := seedExportPalace(t)
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := archive.ExportJSONL(ctx, src, &buf); err != nil {
		t.Fatal(err)
	}
	dst, _ := palacetest.MustOpenWithSettings(t, "")
	mine := mustStage(t, dst, "I like green tea", "preference", 0.5) // takes mem-0001
	ist, err := archive.ImportJSONL(ctx, dst, &buf, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ist.Renumbered != 1 {
		t.Fatalf("renumbered %d, want 1", ist.Renumbered)
	}
	if f, err := facts.Of(dst).Get(ctx, "mem-0001"); err != nil || f.DrawerID != mine.Fact.DrawerID {
		t.Fatalf("local mem-0001 changed: %+v %v", f, err)
	}
	// mem-0001 of the file (the superseded port fact) became mem-0004, and
	// the approved fact's supersedes reference follows it.
	newer, err := facts.Of(dst).Get(ctx, "mem-0002")
	if err != nil || newer.Supersedes != "mem-0004" {
		t.Fatalf("reference not renumbered: %+v %v", newer, err)
	}
}

func TestImportRejectsBadFilesAndChangesNothing(t *testing.T) {
	src := seedExportPalace(t)
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := archive.ExportJSONL(ctx, src, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	join := func(ls []string) string { return strings.Join(ls, "\n") + "\n" }
	cases := map[string]string{
		"empty":          "",
		"truncated":      join(lines[:len(lines)-3]),
		"no header":      join(lines[1:]),
		"not json":       join(append([]string{lines[0], "{oops"}, lines[1:]...)),
		"unknown record": join(append([]string{lines[0], `{"type":"mystery"}`}, lines[1:]...)),
		"bad drawer":     join(append([]string{lines[0], `{"type":"drawer","drawer":{"id":"x","content":"   "}}`}, lines[1:]...)),
		"bad triple":     join(append([]string{lines[0], `{"type":"triple","subject":"a","predicate":"b","object":"c","valid_from":"yesterday","confidence":1}`}, lines[1:]...)),
		"foreign":        `{"type":"header","format":"other","version":1}` + "\n",
	}
	dst, _ := palacetest.MustOpenWithSettings(t, "")
	mustStage(t, dst, "I like green tea", "preference", 0.5)
	before, _ := dst.Count(ctx, palace.Filter{Statuses: palace.AnyStatus})
	for name, body := range cases {
		_, err := archive.ImportJSONL(ctx, dst, strings.NewReader(body), archive.ImportOptions{})
		if !errors.Is(err, palace.ErrInvalid) {
			t.Errorf("%s: err %v, want invalid", name, err)
		}
	}
	if _, err := archive.ImportJSONL(ctx, dst, &buf, archive.ImportOptions{OnConflict: "merge"}); !errors.Is(err, palace.ErrInvalid) {
		t.Errorf("bad on-conflict: %v", err)
	}
	after, _ := dst.Count(ctx, palace.Filter{Statuses: palace.AnyStatus})
	if after != before {
		t.Fatalf("failed imports changed the store: %d -> %d drawers", before, after)
	}
	if ts, _ := dst.KG().History(ctx, "api"); len(ts) != 0 {
		t.Fatalf("failed imports wrote triples: %+v", ts)
	}
}

func TestImportRedactsSecrets(t *testing.T) {
	dst, _ := palacetest.MustOpenWithSettings(t, "")
	ctx := context.Background()
	secret := "AK" + "IA" + "FAKE" + "TEST" + "00000000"
	body := `{"type":"header","format":"loci-palace","version":1,"palace":"x","embedder":"none","dim":0}
{"type":"drawer","drawer":{"id":"d1","kind":"note","content":"key ` + secret + ` here","status":"active"}}
{"type":"footer","drawers":1,"triples":0,"fact_ids":0}
`
	st, err := archive.ImportJSONL(ctx, dst, strings.NewReader(body), archive.ImportOptions{})
	if err != nil || st.Redactions != 1 || st.Reembedded != 1 {
		t.Fatalf("import: %+v %v", st, err)
	}
	d, err := dst.Get(ctx, "d1")
	if err != nil || strings.Contains(d.Content, secret) || d.Redactions != 1 {
		t.Fatalf("imported drawer: %+v %v", d, err)
	}
}

func TestExportMarkdown(t *testing.T) {
	src := seedExportPalace(t)
	var buf bytes.Buffer
	st, err := archive.ExportMarkdown(context.Background(), src, &buf)
	if err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"# Palace facts", "> export test palace", "## Facts", "### infra",
		"My production Postgres runs on port 5432 _(mem-0002", "## Waiting for review", "[health] I am allergic to shellfish",
		"### Backend", "We deploy with fly.io\n  second line", "## Knowledge graph", "api — runs_on → k8s"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "an old note") || strings.Contains(md, "port 5433") {
		t.Errorf("markdown shows forgotten or superseded memories:\n%s", md)
	}
	if st.Drawers != 1 || st.Triples != 1 {
		t.Errorf("markdown stats %+v", st)
	}
}

func mustStage(tb testing.TB, p *palace.Palace, text, kind string, conf float64) facts.StageResult {
	tb.Helper()
	res, err := facts.Of(p).Stage(context.Background(), facts.Input{Text: text, Kind: kind, Confidence: conf})
	if err != nil {
		tb.Fatalf("stage %q: %v", text, err)
	}
	return res
}
