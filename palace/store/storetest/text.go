package storetest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
)

// testTexts: Rewrite reaches the text of every set, a few rows at a time,
// and changes nothing fn leaves alone; EraseDrawer blanks a drawer's
// history and nothing else's.
func testTexts(t *testing.T, b store.Backend) {
	const mark, gone = "hunter2-MARK", "[gone]"
	s := create(t, b, "texts")
	Fill(t, s)
	write(t, s, func(tx store.Tx) error {
		must(t, tx.Meta().Set(ctx, "description", "notes; the password is "+mark))
		for i := 0; i < 5; i++ {
			if _, err := tx.Log().Append(ctx, store.Event{At: at(10 + i), Type: "kg.asserted",
				Detail: []byte(fmt.Sprintf(`{"subject":"%s %d"}`, mark, i))}); err != nil {
				return err
			}
			if err := tx.Sessions().Append(ctx, store.Buffered{SessionID: "s2", Role: "user", At: at(10 + i), Size: 9,
				Message: []byte(fmt.Sprintf(`{"text":"my key is %s %d"}`, mark, i)), AddedAt: at(10 + i)}); err != nil {
				return err
			}
		}
		must(t, tx.Sessions().SetOpenStretch(ctx, "s2", 0, at(10)))
		must(t, tx.Sessions().NoteFailure(ctx, "s2", "extraction failed on "+mark))
		w := tx.Dream()
		must(t, w.InsertRun(ctx, store.DreamRun{ID: "run-2", Owner: "node-a", Trigger: "test", Passes: []string{"merge"},
			Status: "running", StartedAt: at(11)}))
		must(t, w.InsertChange(ctx, store.DreamChange{RunID: "run-2", Pass: "merge", Op: "update", DrawerID: "m2",
			Before: map[string]any{"content": mark}, After: map[string]any{"content": "merged"}, At: at(11)}))
		must(t, w.FinishRun(ctx, "run-2", "done", at(12), []byte(`{"note":"`+mark+`"}`)))
		return w.ReplaceClosets(ctx, []store.Closet{
			{Room: "General", Keywords: []string{"long"}, Summary: "s", Drawers: 4, RefreshedAt: at(8), Seq: 5},
			{Room: "Ops", Keywords: []string{mark}, Summary: "about " + mark, Drawers: 1, RefreshedAt: at(12), Seq: 6}})
	})
	g := kg.New(s, kg.WithNow(func() time.Time { return at(13) }))
	if _, err := g.Assert(ctx, kg.Assertion{Subject: "ann", Predicate: "uses_password", Object: mark, Provenance: "chat " + mark}); err != nil {
		t.Fatal(err)
	}

	before := Dump(t, s)
	var rows int
	for _, set := range store.TextSets {
		after, n, seen := "", 0, map[string]bool{}
		for {
			var last string
			var changed int
			write(t, s, func(tx store.Tx) error {
				var err error
				last, changed, err = tx.Text().Rewrite(ctx, set, after, 2, func(text string, isJSON bool) (string, bool) {
					if isJSON && text != "" && !json.Valid([]byte(text)) {
						t.Errorf("%s: a JSON column holds %q", set, text)
					}
					return strings.ReplaceAll(text, mark, gone), strings.Contains(text, mark)
				})
				return err
			})
			n += changed
			if last == "" {
				break
			}
			if seen[last] {
				t.Fatalf("%s: the cursor came back to %q", set, last)
			}
			seen[last], after = true, last
		}
		if n == 0 {
			t.Errorf("%s: no row changed, though each set holds the mark", set)
		}
		rows += n
	}
	got := Dump(t, s)
	for table, rs := range before {
		want := make([]string, len(rs))
		for i, r := range rs {
			want[i] = strings.ReplaceAll(r, mark, gone)
		}
		if !reflect.DeepEqual(got[table], want) {
			t.Errorf("%s after the rewrite:\n got %q\nwant %q", table, got[table], want)
		}
	}
	for table, rs := range got {
		for _, r := range rs {
			if strings.Contains(r, mark) {
				t.Errorf("%s still holds the mark: %s", table, r)
			}
		}
	}
	x, err := s.Begin(ctx)
	must(t, err)
	if _, _, err := x.Text().Rewrite(ctx, "nowhere", "", 10, nil); err == nil {
		t.Error("an unknown text set was rewritten")
	}
	must(t, x.Rollback())

	// EraseDrawer: m1's events and dream change, and the General closet;
	// m4's undo token; nothing of m2 or m3.
	before = Dump(t, s)
	var n int64
	write(t, s, func(tx store.Tx) error {
		var err error
		n, err = tx.Text().EraseDrawer(ctx, "m1", "General")
		return err
	})
	if n < 3 {
		t.Errorf("EraseDrawer(m1) changed %d rows, want its event, its dream change and the closet", n)
	}
	write(t, s, func(tx store.Tx) error {
		var err error
		n, err = tx.Text().EraseDrawer(ctx, "m4", "Nowhere")
		return err
	})
	if n != 2 {
		t.Errorf("EraseDrawer(m4) changed %d rows, want its event and its undo token", n)
	}
	got = Dump(t, s)
	for table, rs := range got {
		for _, r := range rs {
			if strings.Contains(r, "drawer_id=m1") && (strings.Contains(r, "importance") || strings.Contains(r, `"n":1`)) {
				t.Errorf("%s keeps m1's history: %s", table, r)
			}
		}
	}
	if len(got["review_undo"]) != 0 || len(got["closets"]) != 1 {
		t.Errorf("undo tokens %q and closets %q after the erasures", got["review_undo"], got["closets"])
	}
	for _, r := range before["events"] {
		if strings.Contains(r, "drawer_id=m2") || strings.Contains(r, "drawer_id=m3") {
			if !slices.Contains(got["events"], r) {
				t.Errorf("an event of another drawer changed: %s", r)
			}
		}
	}
	if rows == 0 {
		t.Fatal("nothing was rewritten")
	}
	if _, err := s.Reclaim(ctx); err != nil {
		t.Errorf("Reclaim: %v", err)
	}
}
