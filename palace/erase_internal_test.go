package palace

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/palacetest/ondisk"
	"github.com/loci-mem/loci/palace/store"
)

// Rescrub redacts what an older redactor stored as written: a drawer
// (active or forgotten; its text, tags and meta), a conversation message,
// an event's detail, the palace's description and a knowledge-graph
// triple. A dry run counts and changes nothing; the scrub leaves no file
// holding the secrets, keyword search no longer finds them, a memory
// without one is not touched, and a second scrub finds nothing to do.
func TestRescrubRedactsWhatOlderRulesMissed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newTestPalace(t)
	const weak = "marmalade77"
	token := "ghp_" + strings.Repeat("Zq7", 12) // fake, 36 characters
	secrets := []string{weak, token[4:]}
	raw := []*Drawer{
		{Content: "compose file: POSTGRES_PASSWORD=" + weak + " for the staging db"},
		{Content: "deploy with " + token, Tags: []string{"t-" + token}, Meta: map[string]any{"how": "DB_PASS=" + weak}},
		{Content: "forgotten: PGPASSWORD=" + weak + " psql", Status: StatusDeleted},
	}
	plain := &Drawer{Content: "the staging db runs postgres 16 on the small box"}
	for _, d := range append(raw, plain) {
		if err := p.Prepare(d); err != nil {
			t.Fatal(err)
		}
	}
	// As an older release stored them: the redactor of today not run.
	raw[0].Content = "compose file: POSTGRES_PASSWORD=" + weak + " for the staging db"
	raw[1].Content, raw[1].Tags, raw[1].Meta = "deploy with "+token, []string{"t-" + token}, map[string]any{"how": "DB_PASS=" + weak}
	raw[2].Content = "forgotten: PGPASSWORD=" + weak + " psql"
	ds := append(raw, plain)
	vecs := p.Embed(ctx, ds)
	err := p.Write(ctx, func(t *Tx) error {
		for i, d := range ds {
			if err := t.Insert(d, vecs[i], nil); err != nil {
				return err
			}
		}
		if _, err := t.Log("note", "", map[string]any{"said": "PGPASSWORD=" + weak}); err != nil {
			return err
		}
		if err := t.st.Meta().Set(ctx, metaDescription, "staging notes, "+token); err != nil {
			return err
		}
		return t.st.Sessions().Append(ctx, store.Buffered{SessionID: "s", Role: "user", At: t.now, AddedAt: t.now,
			Size: 30, Message: []byte(`{"role":"user","text":"my token is ` + token + `"}`)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kg.New(p.st).Assert(ctx, kg.Assertion{Subject: "staging", Predicate: "uses", Object: token}); err != nil {
		t.Fatal(err)
	}
	find := func(q string) int {
		t.Helper()
		hs, err := p.Search(ctx, SearchRequest{Query: q, Mode: ModeKeyword, K: 5, NoAccess: true})
		if err != nil {
			t.Fatal(err)
		}
		return len(hs)
	}
	if find(weak) == 0 {
		t.Fatal("the stored password is not found before the scrub")
	}
	if err := p.SaveIndex(ctx); err != nil {
		t.Fatal(err)
	}
	files := func() []string { return filesHolding(t, p.Dir(), secrets...) }
	if len(files()) == 0 {
		t.Fatal("no file holds the secrets before the scrub: the check below could not fail")
	}

	want := func(got *Rescrubbed, what string) {
		t.Helper()
		if got.Drawers != 4 || got.Changed != 3 {
			t.Errorf("%s: %d of %d drawers changed, want 3 of 4", what, got.Changed, got.Drawers)
		}
		for _, set := range []store.TextSet{store.TextMeta, store.TextEvents, store.TextMessages, store.TextTriples} {
			if got.Rows[set] == 0 {
				t.Errorf("%s: no row of %s changed", what, set)
			}
		}
	}
	dry, err := p.Rescrub(ctx, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want(dry, "dry run")
	if find(weak) == 0 || len(files()) == 0 {
		t.Fatal("the dry run changed what is stored")
	}
	var calls int
	out, err := p.Rescrub(ctx, false, func(done, total, changed int) {
		calls++
		if total != 4 || done > total {
			t.Errorf("progress %d of %d", done, total)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want(out, "scrub")
	if calls == 0 || !out.Reclaimed {
		t.Errorf("progress called %d times, reclaimed %v", calls, out.Reclaimed)
	}
	if n := find(weak); n != 0 {
		t.Errorf("keyword search still finds the password in %d drawers", n)
	}
	for i, d := range raw {
		got, err := p.Get(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got.Content+strings.Join(got.Tags, " "), "[REDACTED]") || got.Status != d.Status {
			t.Errorf("drawer %d after the scrub: %q %v %s", i, got.Content, got.Tags, got.Status)
		}
		if got.Redactions <= d.Redactions {
			t.Errorf("drawer %d: %d redactions recorded after the scrub, %d before", i, got.Redactions, d.Redactions)
		}
	}
	if got, err := p.Get(ctx, plain.ID); err != nil || got.Content != plain.Content || got.Seq != plain.Seq {
		t.Errorf("a drawer without a secret changed: %+v %v", got, err)
	}
	if again, err := p.Rescrub(ctx, false, nil); err != nil || again.Changed != 0 || again.RowsChanged() != 0 {
		t.Errorf("a second scrub: %+v %v", again, err)
	}
	if err := p.reg.Close(); err != nil {
		t.Fatal(err)
	}
	if held := files(); len(held) > 0 {
		t.Errorf("files still hold secrets after the scrub: %q", held)
	}
}

// filesHolding names the files under dir holding any of secrets (the
// file and the secret's first six bytes, never the secret).
func filesHolding(t *testing.T, dir string, secrets ...string) []string {
	t.Helper()
	held := ondisk.FilesHolding(t, dir, secrets...)
	for i, h := range held {
		name, secret, _ := strings.Cut(h, ": ")
		held[i] = name + ": " + secret[:min(6, len(secret))]
	}
	return held
}

// A scrub killed after it had redacted a drawer: another process whose
// index held the drawer's words drops them as it catches up, though the
// scrub never finished; run again in a third process, the scrub finds
// nothing to redact and still takes them off the disk (the log).
func TestRescrubKilledMidway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newTestPalace(t)
	const weak = "marmalade77"
	d := &Drawer{Content: "staging db: POSTGRES_PASSWORD=" + weak}
	if err := p.Prepare(d); err != nil {
		t.Fatal(err)
	}
	d.Content = "staging db: POSTGRES_PASSWORD=" + weak // as an older release stored it
	err := p.Write(ctx, func(t *Tx) error { return t.Insert(d, p.Embed(ctx, []*Drawer{d})[0], nil) })
	if err != nil {
		t.Fatal(err)
	}
	other := func() *Palace {
		t.Helper()
		reg, err := OpenRegistry(Config{DataDir: p.reg.cfg.DataDir, Embedder: p.emb})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { reg.Close() })
		o, err := reg.Open(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	p2 := other()
	if _, err := p2.kw.sync(ctx); err != nil { // its index reads the password
		t.Fatal(err)
	}
	if _, err := p.scrubDrawer(ctx, d.ID); err != nil { // then the scrub is killed
		t.Fatal(err)
	}
	if _, err := p2.kw.sync(ctx); err != nil {
		t.Fatal(err)
	}
	p2.kw.savedHW = -1 // a snapshot due, as a busy process's would be
	if err := p2.SaveIndex(ctx); err != nil {
		t.Fatal(err)
	}
	inKeywords := func() bool {
		return slices.ContainsFunc(filesHolding(t, p.Dir(), weak), func(f string) bool { return strings.HasPrefix(f, "keywords") })
	}
	if _, err := os.Stat(p2.kw.snapshotPath()); err != nil {
		t.Fatalf("the other process wrote no keyword snapshot: %v", err)
	}
	if inKeywords() {
		t.Error("the other process's keyword snapshot holds the password the scrub redacted")
	}
	if held := filesHolding(t, p.Dir(), weak); len(held) == 0 {
		t.Fatal("no file holds the password before the second scrub: the check below could not fail")
	}
	out, err := other().Rescrub(ctx, false, nil)
	if err != nil || out.Changed != 0 {
		t.Fatalf("the second scrub: %+v %v", out, err)
	}
	if held := filesHolding(t, p.Dir(), weak); len(held) > 0 {
		t.Errorf("files still hold the password after the second scrub: %q", held)
	}
}
