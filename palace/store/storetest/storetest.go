// Package storetest is the conformance suite of palace/store: one set of
// tests that every backend passes unchanged (store/sqlite and
// store/postgres each run it from a test of their own). It checks what
// the core relies on — each method's result, order and errors, that a
// rolled-back transaction leaves nothing, that a snapshot holds still
// while others write, and that writers on two handles of one palace (two
// processes, or two nodes) never interleave — against the backend's real
// engine.
package storetest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
)

// Open returns a new, empty backend for one test. The suite closes the
// stores it opens; the caller closes the backend (t.Cleanup).
type Open func(t *testing.T) store.Backend

// Run runs the whole suite against the backends open returns.
func Run(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, store.Backend)
	}{
		{"Palaces", testPalaces},
		{"Drawers", testDrawers},
		{"Filters", testFilters},
		{"Vectors", testVectors},
		{"ManyKeyVectors", testManyKeyVectors},
		{"ManyPassageVectors", testManyPassageVectors},
		{"LogAndMeta", testLogAndMeta},
		{"Facts", testFacts},
		{"Sessions", testSessions},
		{"Dream", testDream},
		{"Triples", testTriples},
		{"Transactions", testTransactions},
		{"Writers", testWriters},
		{"Tokens", testTokens},
		{"Texts", testTexts},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

var ctx = context.Background()

// t0 is the suite's epoch: every time is t0 plus whole milliseconds, the
// precision a backend keeps.
var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func create(t *testing.T, b store.Backend, name string) store.Store {
	t.Helper()
	s, err := b.Create(ctx, name)
	if err != nil {
		t.Fatalf("create %q: %v", name, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	must(t, store.Write(ctx, s, fn))
}

// drawer is a drawer with the fields the suite varies; seq is its change.
func drawer(id string, seq int64) *store.Drawer {
	return &store.Drawer{
		ID: id, Seq: seq, Kind: store.KindNote, Content: "text of " + id, Room: "General",
		Tags: []string{}, SenderIDs: []string{}, Importance: 0.5, Confidence: 1, Status: store.StatusActive,
		Timestamp: at(int(seq)), CreatedAt: at(int(seq)), UpdatedAt: at(int(seq)),
	}
}

// vec encodes floats as a stored vector blob.
func vec(fs ...float32) []byte {
	b := make([]byte, 4*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func insert(t *testing.T, s store.Store, ds ...*store.Drawer) {
	t.Helper()
	write(t, s, func(tx store.Tx) error {
		for _, d := range ds {
			if err := tx.Drawers().Insert(ctx, d, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

func ids(ds []*store.Drawer) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func testPalaces(t *testing.T, b store.Backend) {
	names, err := b.Names(ctx)
	must(t, err)
	equal(t, "names of a new backend", names, []string{})
	if ok, err := b.Exists(ctx, "alpha"); ok || err != nil {
		t.Fatalf("exists before create: %v %v", ok, err)
	}
	if _, err := b.Open(ctx, "alpha"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("open of a missing palace: %v, want ErrNotFound", err)
	}
	create(t, b, "beta")
	create(t, b, "alpha")
	if _, err := b.Create(ctx, "alpha"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second create: %v, want ErrConflict", err)
	}
	names, err = b.Names(ctx)
	must(t, err)
	equal(t, "names", names, []string{"alpha", "beta"})
	if ok, err := b.Exists(ctx, "alpha"); !ok || err != nil {
		t.Fatalf("exists after create: %v %v", ok, err)
	}
	if b.CacheDir("alpha") == "" || b.CacheDir("alpha") == b.CacheDir("beta") {
		t.Fatalf("cache dirs %q and %q", b.CacheDir("alpha"), b.CacheDir("beta"))
	}
	if b.Kind() == "" || b.Location() == "" {
		t.Fatalf("kind %q, location %q", b.Kind(), b.Location())
	}
	s, err := b.Open(ctx, "beta")
	must(t, err)
	defer s.Close()
	in, err := s.Check(ctx)
	must(t, err)
	if in.Engine != "ok" || in.Migrations == 0 {
		t.Fatalf("check: %+v", in)
	}
	// Palaces are isolated: a drawer in one is not in the other.
	a, err := b.Open(ctx, "alpha")
	must(t, err)
	defer a.Close()
	insert(t, a, drawer("d1", 1))
	if _, err := s.Drawers().Get(ctx, "d1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a drawer of alpha read through beta: %v", err)
	}
}

func testDrawers(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	d1 := drawer("d1", 1)
	d1.Tags, d1.SenderIDs, d1.Meta = []string{"x", "identity"}, []string{"ann"}, map[string]any{"n": 3.0, "s": "v"}
	d1.Keywords, d1.UserID, d1.AgentID, d1.SessionID, d1.ParentID = "kw", "u1", "a1", "s1", "p0"
	d1.Pinned, d1.Redactions, d1.AccessCount, d1.LastAccess, d1.Model, d1.VecKey = true, 2, 4, at(9), "m", 1
	d2, d3 := drawer("d2", 2), drawer("d3", 3)
	d2.Importance, d3.Importance = 0.9, 0.1
	d3.Room, d3.Kind = "Ops", store.KindTurn
	insert(t, s, d1, d2, d3)
	if d1.RID == 0 || d2.RID == 0 || d1.RID == d2.RID {
		t.Fatalf("row ids %d %d", d1.RID, d2.RID)
	}
	got, err := s.Drawers().Get(ctx, "d1")
	must(t, err)
	equal(t, "drawer read back", got, d1)
	if _, err := s.Drawers().Get(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get of a missing drawer: %v", err)
	}
	err = store.Write(ctx, s, func(tx store.Tx) error { return tx.Drawers().Insert(ctx, drawer("d1", 9), nil) })
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("insert of an existing id: %v, want ErrConflict", err)
	}

	r := s.Drawers()
	byRID, err := r.ByRID(ctx, []int64{d2.RID, d3.RID, 999999})
	must(t, err)
	if len(byRID) != 2 || byRID[d2.RID].ID != "d2" {
		t.Fatalf("ByRID: %v", byRID)
	}
	for order, want := range map[string][]string{
		"":                       {"d2", "d1", "d3"},
		store.OrderNewest:        {"d3", "d2", "d1"},
		store.OrderOldest:        {"d1", "d2", "d3"},
		store.OrderSeq:           {"d1", "d2", "d3"},
		store.OrderUpdatedOldest: {"d1", "d2", "d3"},
	} {
		ds, total, err := r.List(ctx, store.ListQuery{Order: order, Limit: 10})
		must(t, err)
		equal(t, "list by "+order, ids(ds), want)
		equal(t, "total", total, 3)
	}
	ds, total, err := r.List(ctx, store.ListQuery{Order: store.OrderOldest, Limit: 1, Offset: 1})
	must(t, err)
	equal(t, "a page", ids(ds), []string{"d2"})
	equal(t, "total of a page", total, 3)
	if _, _, err := r.List(ctx, store.ListQuery{Order: "sideways"}); !isInvalid(err) {
		t.Fatalf("unknown order: %v", err)
	}

	// Update rewrites every field; the vector stays unless given.
	write(t, s, func(tx store.Tx) error {
		return tx.Drawers().SetVector(ctx, d2.RID, 4, "m", 4, store.Vector{Blob: vec(1, 0)})
	})
	d2.Content, d2.Status, d2.Seq, d2.Tags, d2.UpdatedAt = "new text", store.StatusStale, 5, []string{"t"}, at(50)
	d2.VecKey, d2.Model = 4, "m"
	write(t, s, func(tx store.Tx) error { return tx.Drawers().Update(ctx, d2, nil) })
	got, err = r.Get(ctx, "d2")
	must(t, err)
	equal(t, "updated drawer", got, d2)
	vs, err := r.Vectors(ctx, "m", []string{"d2", "d3"})
	must(t, err)
	equal(t, "vector kept by Update", vs, map[string][]byte{"d2": vec(1, 0)})

	// Bookkeeping writes.
	write(t, s, func(tx store.Tx) error {
		if err := tx.Drawers().SetWeights(ctx, d3.RID, 0.3, 0.7); err != nil {
			return err
		}
		return tx.Drawers().AddAccess(ctx, map[int64]store.Access{d1.RID: {Hits: 2, Last: at(5)}, d3.RID: {Hits: 1, Last: at(60)}})
	})
	got, _ = r.Get(ctx, "d1")
	if got.AccessCount != 6 || !got.LastAccess.Equal(at(9)) {
		t.Fatalf("access kept the later time: %d %v", got.AccessCount, got.LastAccess)
	}
	got, _ = r.Get(ctx, "d3")
	if got.Importance != 0.3 || got.Confidence != 0.7 || got.AccessCount != 1 || !got.LastAccess.Equal(at(60)) {
		t.Fatalf("weights and access: %+v", got)
	}
	var rid int64
	var changed bool
	write(t, s, func(tx store.Tx) (err error) {
		rid, changed, err = tx.Drawers().DecayImportance(ctx, "d3", 3, 0.3, 0.2)
		return err
	})
	if !changed || rid != d3.RID {
		t.Fatalf("decay: %d %v", rid, changed)
	}
	write(t, s, func(tx store.Tx) (err error) {
		_, changed, err = tx.Drawers().DecayImportance(ctx, "d3", 3, 0.3, 0.1) // was is stale now
		return err
	})
	if changed {
		t.Fatal("decay applied over a changed importance")
	}

	// Lookups.
	ex, err := r.Existing(ctx, []string{"d1", "zz", "d3"})
	must(t, err)
	equal(t, "existing", ex, map[string]bool{"d1": true, "d3": true})
	seq, err := r.SeqOf(ctx, d2.RID)
	must(t, err)
	equal(t, "seq of d2", seq, int64(5))
	if _, err := r.SeqOf(ctx, 987654); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("seq of a missing row: %v", err)
	}
	max, err := r.MaxSeq(ctx)
	must(t, err)
	equal(t, "max seq", max, int64(5))
	n, err := r.CountChangedAfter(ctx, 2)
	must(t, err)
	equal(t, "changed after 2", n, int64(2))
	c, err := r.Counts(ctx)
	must(t, err)
	equal(t, "counts by status", c.ByStatus, map[string]int64{"active": 2, "stale": 1})
	equal(t, "counts by kind", c.ByKind, map[string]int64{"note": 1, "turn": 1})
	equal(t, "counts by room", c.ByRoom, map[string]int64{"General": 1, "Ops": 1})
	tags, err := r.TopTags(ctx, 10)
	must(t, err)
	equal(t, "top tags", tags, []store.TagCount{{Tag: "identity", Count: 1}, {Tag: "x", Count: 1}})
	buckets, err := r.TimeBuckets(ctx, time.Hour)
	must(t, err)
	equal(t, "time buckets", buckets, map[int64]int64{t0.UnixMilli(): 2})
	idn, err := r.Identity(ctx, store.Filter{}, 5)
	must(t, err)
	equal(t, "identity drawers", ids(idn), []string{"d1"})

	// Previous: the latest drawer of the session at or before a time.
	e1, e2 := drawer("e1", 6), drawer("e2", 7)
	e1.SessionID, e2.SessionID, e1.Kind, e2.Kind = "s9", "s9", store.KindTurn, store.KindTurn
	insert(t, s, e1, e2)
	prev, ok, err := r.Previous(ctx, "s9", []string{store.KindTurn}, at(6))
	must(t, err)
	if !ok || prev.ID != "e1" {
		t.Fatalf("previous at 6: %v %v", ok, prev)
	}
	if _, ok, _ := r.Previous(ctx, "s9", []string{store.KindTurn}, at(1)); ok {
		t.Fatal("previous before the session began")
	}
	e3 := drawer("e3", 8)
	e3.SessionID, e3.Kind, e3.Status = "s9", store.KindTurn, store.StatusDeleted
	insert(t, s, e3)
	prevD, nextD, err := r.Adjacent(ctx, e1, []string{store.KindTurn})
	must(t, err)
	if prevD != nil || nextD == nil || nextD.ID != "e2" {
		t.Fatalf("adjacent to e1: %v, %v; want none and e2", prevD, nextD)
	}
	prevD, nextD, err = r.Adjacent(ctx, e2, []string{store.KindTurn})
	must(t, err)
	if prevD == nil || prevD.ID != "e1" || nextD != nil { // e3 is deleted
		t.Fatalf("adjacent to e2: %v, %v; want e1 and none", prevD, nextD)
	}
	if p, n, err := r.Adjacent(ctx, e2, []string{store.KindNote}); err != nil || p != nil || n != nil {
		t.Fatalf("adjacent notes of a session of turns: %v, %v, %v", p, n, err)
	}
	// Without a session, texts of one connection are neighbours.
	c1, c2, c3 := drawer("c1", 9), drawer("c2", 10), drawer("c3", 11)
	c1.Connection, c2.Connection, c3.Connection = "mcp:x", "mcp:x", "mcp:y"
	insert(t, s, c1, c2, c3)
	if got, err := r.Get(ctx, "c2"); err != nil || got.Connection != "mcp:x" {
		t.Fatalf("connection read back: %v, %v", got, err)
	}
	prevD, nextD, err = r.Adjacent(ctx, c2, []string{store.KindNote})
	must(t, err)
	if prevD == nil || prevD.ID != "c1" || nextD != nil {
		t.Fatalf("adjacent to c2 in its connection: %v, %v; want c1 and none", prevD, nextD)
	}

	// Undo tokens are used once.
	write(t, s, func(tx store.Tx) error {
		return tx.Drawers().PutUndo(ctx, store.Undo{Token: "u-1", Action: "forget", DrawerID: "d1",
			PrevStatus: "active", NewStatus: "deleted", Seq: 1, CreatedAt: at(1)})
	})
	u, err := r.Undo(ctx, "u-1")
	must(t, err)
	if u.DrawerID != "d1" || !u.UsedAt.IsZero() {
		t.Fatalf("undo token: %+v", u)
	}
	for i, want := range []bool{true, false} {
		write(t, s, func(tx store.Tx) error {
			ok, err := tx.Drawers().UseUndo(ctx, "u-1", at(2))
			if ok != want {
				return fmt.Errorf("use %d: %v, want %v", i, ok, want)
			}
			return err
		})
	}
	if _, err := r.Undo(ctx, "u-2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown undo token: %v", err)
	}
}

func isInvalid(err error) bool {
	var ie *store.InvalidError
	return errors.As(err, &ie)
}

func testFilters(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	var ds []*store.Drawer
	for i := 1; i <= 6; i++ {
		d := drawer(fmt.Sprintf("f%d", i), int64(i))
		d.Importance = float64(i) / 10
		d.Meta = map[string]any{"n": float64(i), "who": []string{"ann", "bob"}[i%2]}
		ds = append(ds, d)
	}
	ds[0].Tags, ds[1].Tags, ds[2].Tags = []string{"red", "blue"}, []string{"red"}, []string{"blue"}
	ds[0].Room, ds[3].Room = "Ops", "Ops"
	ds[1].Kind, ds[4].Kind = store.KindTurn, store.KindFact
	ds[2].UserID, ds[2].SenderIDs = "u7", []string{"ann", "cy"}
	ds[4].SenderIDs = []string{"Cy", "Élodie"}
	ds[1].SenderIDs = []string{"ΣΟΦΊΑ", "НАТАША"}
	ds[3].Content = "The Quick brown fox"
	ds[5].Status = store.StatusPending
	insert(t, s, ds...)
	r := s.Drawers()
	for _, c := range []struct {
		name string
		f    store.Filter
		want []string
	}{
		{"active only", store.Filter{}, []string{"f1", "f2", "f3", "f4", "f5"}},
		{"every status", store.Filter{Statuses: store.AnyStatus}, []string{"f1", "f2", "f3", "f4", "f5", "f6"}},
		{"pending", store.Filter{Statuses: []string{"pending"}}, []string{"f6"}},
		{"kinds", store.Filter{Kinds: []string{store.KindTurn, store.KindFact}}, []string{"f2", "f5"}},
		{"room", store.Filter{Room: "Ops"}, []string{"f1", "f4"}},
		{"all tags", store.Filter{Tags: []string{"red", "blue"}}, []string{"f1"}},
		{"user", store.Filter{UserID: "u7"}, []string{"f3"}},
		{"ids", store.Filter{IDs: []string{"f2", "f6", "zz"}}, []string{"f2"}},
		{"time window", store.Filter{Since: at(2), Until: at(4)}, []string{"f2", "f3"}},
		{"tag in", where("tag", "in", []any{"blue"}), []string{"f1", "f3"}},
		{"tag nin", where("tag", "nin", []any{"red"}), []string{"f3", "f4", "f5"}},
		{"tag ne", where("tag", "ne", "red"), []string{"f3", "f4", "f5"}},
		{"sender", where("sender_id", "eq", "cy"), []string{"f3"}},
		{"sender folded", folded("sender_id", "eq", "CY"), []string{"f3", "f5"}},
		{"sender folded, an accented capital", folded("sender_id", "eq", "élodie"), []string{"f5"}},
		{"sender folded, capitals", folded("sender_id", "eq", "ÉLODIE"), []string{"f5"}},
		{"sender folded, Greek", folded("sender_id", "eq", "σοφία"), []string{"f2"}},
		{"sender folded, Cyrillic", folded("sender_id", "in", []any{"наташа"}), []string{"f2"}},
		{"sender folded, Greek not as it is spelt", folded("sender_id", "eq", "σοφια"), []string{}},
		{"sender folded in", folded("sender_id", "in", []any{"nobody", "cY"}), []string{"f3", "f5"}},
		{"sender folded ne", folded("sender_id", "ne", "CY"), []string{"f1", "f2", "f4"}},
		{"importance gte", where("importance", "gte", 0.4), []string{"f4", "f5"}},
		{"content contains (case-sensitive)", where("content", "contains", "Quick"), []string{"f4"}},
		{"content contains, other case", where("content", "contains", "quick"), []string{}},
		{"timestamp lt", where("timestamp", "lt", at(3)), []string{"f1", "f2"}},
		{"meta number gt", where("meta.n", "gt", 3), []string{"f4", "f5"}},
		{"meta number eq", where("meta.n", "eq", 2), []string{"f2"}},
		{"meta string in", where("meta.who", "in", []any{"ann"}), []string{"f2", "f4"}},
		{"meta string contains", where("meta.who", "contains", "o"), []string{"f1", "f3", "f5"}},
		{"meta missing key", where("meta.nope", "eq", "x"), []string{}},
		{"or of ands", store.Filter{Where: &store.Pred{Or: []store.Pred{
			{And: []store.Pred{{Field: "room", Op: "eq", Value: "Ops"}, {Field: "importance", Op: "lt", Value: 0.2}}},
			{Field: "kind", Op: "eq", Value: store.KindFact},
		}}}, []string{"f1", "f5"}},
	} {
		got, _, err := r.List(ctx, store.ListQuery{Filter: c.f, Order: store.OrderOldest, Limit: 100})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		equal(t, c.name, ids(got), c.want)
		n, err := r.Count(ctx, c.f)
		must(t, err)
		if int(n) != len(c.want) {
			t.Errorf("%s: count %d, want %d", c.name, n, len(c.want))
		}
		var keyed []int64
		must(t, r.Keys(ctx, c.f, func(rid, _ int64) { keyed = append(keyed, rid) }))
		if len(keyed) != len(c.want) {
			t.Errorf("%s: keys of %d drawers, want %d", c.name, len(keyed), len(c.want))
		}
	}
	for _, bad := range []store.Filter{
		{Statuses: []string{"sleeping"}},
		where("colour", "eq", "red"),
		where("room", "like", "O%"),
		where("meta.a'b", "eq", 1),
		where("tag", "in", []any{}),
		where("timestamp", "gt", "yesterday"),
		where("importance", "gt", math.NaN()),
		folded("room", "eq", "ops"),
		folded("sender_id", "in", []any{"cy", 7}),
	} {
		if _, err := r.Count(ctx, bad); !isInvalid(err) {
			t.Errorf("filter %+v: %v, want an InvalidError", bad.Where, err)
		}
	}
}

func where(field, op string, v any) store.Filter {
	return store.Filter{Where: &store.Pred{Field: field, Op: op, Value: v}}
}

// folded is where with letters compared in either case (Pred.Fold).
func folded(field, op string, v any) store.Filter {
	return store.Filter{Where: &store.Pred{Field: field, Op: op, Value: v, Fold: true}}
}

// keyVectors is what KeyVectors gives each ref (nil: nothing), copied
// during the call as its contract asks; it fails the test if two calls
// overlap or a ref is given twice.
func keyVectors(t *testing.T, r store.DrawerReader, refs []store.VecRef, size int) ([][]byte, error) {
	t.Helper()
	out := make([][]byte, len(refs))
	var busy atomic.Bool
	var bad string
	err := r.KeyVectors(ctx, refs, size, func(i int, vec []byte) {
		if !busy.CompareAndSwap(false, true) {
			bad = "two calls at once"
		}
		if out[i] != nil {
			bad = fmt.Sprintf("ref %d given twice", i)
		}
		out[i] = bytes.Clone(vec)
		time.Sleep(10 * time.Microsecond) // long enough for another reader to overlap
		busy.Store(false)
	})
	if bad != "" {
		t.Fatalf("KeyVectors: %s", bad)
	}
	return out, err
}

// testManyKeyVectors reads more whole-text vectors than one query takes
// (two readers share them), each key asked for once or twice, some
// missing, and every answer in the place of its ref.
func testManyKeyVectors(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	const n = 1100
	write(t, s, func(tx store.Tx) error {
		for i := 1; i <= n; i++ {
			d := drawer(fmt.Sprintf("d%d", i), int64(i))
			d.VecKey, d.Model = int64(i), "m"
			if err := tx.Drawers().Insert(ctx, d, &store.Vector{Blob: vec(float32(i), -float32(i))}); err != nil {
				return err
			}
		}
		return nil
	})
	var refs []store.VecRef
	var want [][]byte
	for i := n + 40; i >= 1; i -= 3 { // from missing keys down, every third
		refs = append(refs, store.VecRef{Key: int64(i)})
		if i <= n {
			want = append(want, vec(float32(i), -float32(i)))
		} else {
			want = append(want, nil)
		}
	}
	refs = append(refs, refs[:10]...)
	want = append(want, want[:10]...)
	got, err := keyVectors(t, s.Drawers(), refs, 8)
	must(t, err)
	equal(t, "key vectors", got, want)
	write(t, s, func(tx store.Tx) error { // and on one connection, in a transaction
		got, err := keyVectors(t, tx.Drawers(), refs, 8)
		equal(t, "key vectors in a transaction", got, want)
		return err
	})
	for _, size := range []int{4, 12} { // no vector of another length is returned
		got, err := keyVectors(t, s.Drawers(), refs, size)
		must(t, err)
		for i, g := range got {
			if g != nil {
				t.Fatalf("size %d: ref %d gave a vector of %d bytes", size, i, len(g))
			}
		}
	}
}

// testManyPassageVectors reads the passages of a drawer with more than
// one query reads whole (160 KB of them, sqlstore's bound is 64 KB)
// beside a drawer with few, in one call: each ref of a passage it has
// gets that passage, one past its last gets nothing.
func testManyPassageVectors(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	const n = 20000
	many, few := drawer("many", 1), drawer("few", 2)
	many.VecKey, many.Model, few.VecKey, few.Model = 1, "m", 2, "m"
	passage := func(i int) []byte { return vec(float32(i), -float32(i)) }
	var all []byte
	for i := 1; i <= n; i++ {
		all = append(all, passage(i)...)
	}
	write(t, s, func(tx store.Tx) error {
		if err := tx.Drawers().Insert(ctx, many, &store.Vector{Blob: vec(1, 1), Passages: all, Count: n}); err != nil {
			return err
		}
		return tx.Drawers().Insert(ctx, few, &store.Vector{Blob: vec(2, 2), Passages: append(passage(-1), passage(-2)...), Count: 2})
	})
	got, err := keyVectors(t, s.Drawers(), []store.VecRef{{Key: 1, Passage: 17000}, {Key: 2, Passage: 2}, {Key: 1, Passage: 1},
		{Key: 1, Passage: n + 1}, {Key: 1, Passage: n}, {Key: 2, Passage: 3}, {Key: 1}}, 8)
	must(t, err)
	equal(t, "passage vectors", got, [][]byte{passage(17000), passage(-2), passage(1), nil, passage(n), nil, vec(1, 1)})
	// The last passage asked for is the drawer's last.
	got, err = keyVectors(t, s.Drawers(), []store.VecRef{{Key: 1, Passage: n}, {Key: 1, Passage: 2}}, 8)
	must(t, err)
	equal(t, "first and last passage vectors", got, [][]byte{passage(n), passage(2)})
}

func testVectors(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	short, long, none := drawer("short", 1), drawer("long", 2), drawer("none", 3)
	short.VecKey, short.Model, long.VecKey, long.Model = 1, "m", 2, "m"
	none.SessionID, long.Connection = "s1", "c1"
	write(t, s, func(tx store.Tx) error {
		if err := tx.Drawers().Insert(ctx, short, &store.Vector{Blob: vec(1, 2)}); err != nil {
			return err
		}
		if err := tx.Drawers().Insert(ctx, long, &store.Vector{Blob: vec(3, 4), Passages: vec(5, 6, 7, 8, 9, 10), Count: 3}); err != nil {
			return err
		}
		return tx.Drawers().Insert(ctx, none, nil)
	})
	r := s.Drawers()
	got, err := keyVectors(t, r, []store.VecRef{{Key: 1}, {Key: 2, Passage: 2}, {Key: 2, Passage: 4}, {Key: 99},
		{Key: 2}, {Key: 1}, {Key: 2, Passage: 3}, {Key: 2, Passage: 1}, {Key: 99, Passage: 1}}, 8)
	must(t, err)
	equal(t, "key vectors", got, [][]byte{vec(1, 2), vec(7, 8), nil, nil, vec(3, 4), vec(1, 2), vec(9, 10), vec(5, 6), nil})
	res, err := r.ResolveKeys(ctx, []int64{1, 2, 3})
	must(t, err)
	equal(t, "resolved keys", res, map[int64]int64{1: short.RID, 2: long.RID})
	active := map[int64]int{}
	must(t, r.ActiveKeys(ctx, func(k, _ int64, passages int) { active[k] = passages }))
	equal(t, "active keys", active, map[int64]int{1: 0, 2: 3})
	// Vectored: drawers with a vector and passages or a long text.
	vectored := func(minChars int, after int64, limit int) map[string]int {
		t.Helper()
		todo, err := r.Vectored(ctx, minChars, after, limit)
		must(t, err)
		out := map[string]int{}
		for _, v := range todo {
			out[v.ID] = v.Passages
		}
		return out
	}
	equal(t, "vectored, long texts", vectored(len(short.Content)-1, 0, 10), map[string]int{"short": 0, "long": 3})
	equal(t, "vectored, longer texts", vectored(len(short.Content)+len(long.Content), 0, 10), map[string]int{"long": 3})
	equal(t, "vectored, first page", vectored(0, 0, 1), map[string]int{"short": 0})
	equal(t, "vectored, next page", vectored(0, short.RID, 10), map[string]int{"long": 3})
	n, err := r.CountNeedingVector(ctx, "m", 2)
	must(t, err)
	equal(t, "needing a vector", n, int64(1))
	todo, err := r.NeedingVector(ctx, "m", 2, true, 0, 10)
	must(t, err)
	if len(todo) != 1 || todo[0].ID != "none" || todo[0].Content != none.Content {
		t.Fatalf("needing vector: %+v", todo)
	}

	// A new vector moves the drawer to a new seq; Changes replays it.
	write(t, s, func(tx store.Tx) error {
		return tx.Drawers().SetVector(ctx, none.RID, 4, "m", 4, store.Vector{Blob: vec(0, 1)})
	})
	var changes []store.Change
	must(t, r.Changes(ctx, 1, store.ChangeFields{Vector: true, Text: true}, func(c store.Change) error {
		changes = append(changes, c)
		return nil
	}))
	if len(changes) != 2 || changes[0].RID != long.RID || changes[1].RID != none.RID {
		t.Fatalf("changes after 1: %+v", changes)
	}
	if !bytes.Equal(changes[0].Passages, vec(5, 6, 7, 8, 9, 10)) || changes[0].PassageCount != 3 ||
		!bytes.Equal(changes[1].Vector, vec(0, 1)) || changes[1].VecKey != 4 || changes[1].Content != none.Content ||
		!changes[1].Timestamp.Equal(none.Timestamp) || changes[1].SessionID != "s1" || changes[0].SessionID != "" ||
		changes[0].Connection != "c1" || changes[1].Connection != "" {
		t.Fatalf("change contents: %+v", changes)
	}
	changes = nil
	must(t, r.Changes(ctx, 0, store.ChangeFields{}, func(c store.Change) error { changes = append(changes, c); return nil }))
	if len(changes) != 3 || changes[0].Vector != nil || changes[0].Content != "" || !changes[0].Timestamp.IsZero() {
		t.Fatalf("changes without large columns: %+v", changes)
	}

	// Scan pages in row order, with vectors when asked.
	var seen []string
	last, n2, err := r.Scan(ctx, store.ScanQuery{Limit: 2, Vectors: true}, func(d *store.Drawer, v *store.Vector) error {
		seen = append(seen, d.ID)
		if d.ID == "long" && (v == nil || !bytes.Equal(v.Blob, vec(3, 4)) || !bytes.Equal(v.Passages, vec(5, 6, 7, 8, 9, 10))) {
			return fmt.Errorf("scan vector of long: %+v", v)
		}
		return nil
	})
	must(t, err)
	if n2 != 2 || last != long.RID {
		t.Fatalf("first page: %d rows to %d", n2, last)
	}
	_, n2, err = r.Scan(ctx, store.ScanQuery{AfterID: last, Limit: 2}, func(d *store.Drawer, v *store.Vector) error {
		seen = append(seen, d.ID)
		if v != nil {
			return errors.New("a vector nobody asked for")
		}
		return nil
	})
	must(t, err)
	equal(t, "scanned", seen, []string{"short", "long", "none"})
	equal(t, "second page", n2, 1)
}

func testLogAndMeta(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	var seqs []int64
	write(t, s, func(tx store.Tx) error {
		for i, e := range []store.Event{
			{At: at(1), Type: "drawer.add", DrawerID: "d1", Detail: []byte(`{"source":"cli"}`)},
			{At: at(2), Type: "drawer.add", DrawerID: "d2", Detail: []byte(`{"source":"mcp"}`)},
			{At: at(3), Type: "drawer.update", DrawerID: "d1"},
			{At: at(4), Type: "dream.decay", DrawerID: "d1", Detail: []byte(`{"source":"dreamer","auto":true}`)},
		} {
			seq, err := tx.Log().Append(ctx, e)
			if err != nil {
				return err
			}
			if i > 0 && seq <= seqs[i-1] {
				return fmt.Errorf("seq %d after %d", seq, seqs[i-1])
			}
			seqs = append(seqs, seq)
		}
		return nil
	})
	l := s.Log()
	last, err := l.LastSeq(ctx)
	must(t, err)
	equal(t, "last seq", last, seqs[3])
	evs, err := l.After(ctx, seqs[0], 2)
	must(t, err)
	if len(evs) != 2 || evs[0].Seq != seqs[1] || evs[0].DrawerID != "d2" || !evs[0].At.Equal(at(2)) ||
		string(evs[0].Detail) != `{"source":"mcp"}` || string(evs[1].Detail) != `{}` {
		t.Fatalf("after: %+v", evs)
	}
	evs, err = l.ForDrawer(ctx, "d1")
	must(t, err)
	equal(t, "events of d1", len(evs), 3)
	n, err := l.CountForDrawerAfter(ctx, "d1", "drawer.update", seqs[0])
	must(t, err)
	equal(t, "updates of d1", n, 1)
	e, ok, err := l.LastActivity(ctx, []string{"dream."}, nil)
	must(t, err)
	if !ok || e.Seq != seqs[2] {
		t.Fatalf("last activity skipping dream.*: %+v %v", e, ok)
	}
	e, ok, err = l.LastActivity(ctx, nil, []string{"auto"})
	must(t, err)
	if !ok || e.Seq != seqs[2] {
		t.Fatalf("last activity skipping auto: %+v %v", e, ok)
	}
	by, err := l.CountByDetail(ctx, "drawer.add", "source")
	must(t, err)
	equal(t, "adds by source", by, map[string]int64{"cli": 1, "mcp": 1})

	write(t, s, func(tx store.Tx) error {
		if err := tx.Meta().Set(ctx, "name", "p"); err != nil {
			return err
		}
		if err := tx.Meta().Set(ctx, "name", "P"); err != nil {
			return err
		}
		if err := tx.Meta().SetDefault(ctx, "name", "ignored"); err != nil {
			return err
		}
		return tx.Meta().SetDefault(ctx, "desc", "d")
	})
	v, ok, err := s.Meta().Get(ctx, "name")
	must(t, err)
	if !ok || v != "P" {
		t.Fatalf("meta name: %q %v", v, ok)
	}
	if _, ok, _ := s.Meta().Get(ctx, "nope"); ok {
		t.Fatal("an unset meta key was found")
	}
	all, err := s.Meta().All(ctx)
	must(t, err)
	equal(t, "meta", all, map[string]string{"name": "P", "desc": "d"})
}

func testFacts(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	var got []int64
	write(t, s, func(tx store.Tx) error {
		for _, id := range []string{"a", "b"} {
			n, err := tx.Facts().Allocate(ctx, id)
			if err != nil {
				return err
			}
			got = append(got, n)
		}
		if err := tx.Facts().Assign(ctx, 10, "c"); err != nil {
			return err
		}
		n, err := tx.Facts().Allocate(ctx, "d")
		got = append(got, n)
		return err
	})
	equal(t, "numbers", got, []int64{1, 2, 11})
	err := store.Write(ctx, s, func(tx store.Tx) error { return tx.Facts().Assign(ctx, 10, "e") })
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("assign of a taken number: %v", err)
	}
	// A number is never handed out twice, even after a rollback or a
	// counter raised past it.
	tx, err := s.Begin(ctx)
	must(t, err)
	_, err = tx.Facts().Allocate(ctx, "f")
	must(t, err)
	must(t, tx.Rollback())
	write(t, s, func(tx store.Tx) error { return tx.Facts().RaiseCounter(ctx, 20) })
	write(t, s, func(tx store.Tx) error { return tx.Facts().RaiseCounter(ctx, 5) })
	var n int64
	write(t, s, func(tx store.Tx) (err error) { n, err = tx.Facts().Allocate(ctx, "g"); return err })
	equal(t, "after raising to 20", n, int64(21))
	last, err := s.Facts().LastNumber(ctx)
	must(t, err)
	equal(t, "last number", last, int64(21))
	id, ok, err := s.Facts().DrawerOf(ctx, 10)
	must(t, err)
	if !ok || id != "c" {
		t.Fatalf("drawer of 10: %q %v", id, ok)
	}
	nums, err := s.Facts().Numbers(ctx)
	must(t, err)
	equal(t, "numbers", nums, []store.FactNumber{{N: 1, DrawerID: "a"}, {N: 2, DrawerID: "b"}, {N: 10, DrawerID: "c"}, {N: 11, DrawerID: "d"}, {N: 21, DrawerID: "g"}})
}

func testSessions(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	write(t, s, func(tx store.Tx) error {
		for i, m := range []struct {
			session string
			stretch int64
		}{{"s1", 0}, {"s1", 0}, {"s1", 1}, {"s2", 0}} {
			if err := tx.Sessions().Append(ctx, store.Buffered{SessionID: m.session, Stretch: m.stretch, Role: "user",
				At: at(i), Size: 5, Message: []byte(fmt.Sprintf(`{"n":%d}`, i)), Agent: i == 1, AddedAt: at(i)}); err != nil {
				return err
			}
		}
		return tx.Sessions().SetOpenStretch(ctx, "s1", 1, at(9))
	})
	r := s.Sessions()
	msgs, err := r.Messages(ctx, "s1")
	must(t, err)
	if len(msgs) != 3 || string(msgs[2].Message) != `{"n":2}` || !msgs[1].Agent || msgs[0].Agent || !msgs[1].At.Equal(at(1)) {
		t.Fatalf("messages: %+v", msgs)
	}
	st, err := r.Stretch(ctx, "s1", 0)
	must(t, err)
	equal(t, "stretch 0", len(st), 2)
	open, err := r.OpenStretch(ctx, "s1")
	must(t, err)
	equal(t, "open stretch", open, int64(1))
	closed, err := r.ClosedStretches(ctx, "s1")
	must(t, err)
	equal(t, "closed stretches", closed, []int64{0})
	counts, err := r.Counts(ctx)
	must(t, err)
	equal(t, "counts", counts, map[string]int{"s1": 3, "s2": 1})
	for _, c := range []struct {
		before time.Time
		want   []string
	}{{at(0), nil}, {at(3), []string{"s1"}}, {at(4), []string{"s1", "s2"}}} {
		quiet, err := r.Quiet(ctx, c.before)
		must(t, err)
		equal(t, fmt.Sprintf("quiet before %v", c.before), quiet, c.want)
	}
	write(t, s, func(tx store.Tx) error {
		n, err := tx.Sessions().DeleteStretch(ctx, "s1", 0)
		if err != nil || n != 2 {
			return fmt.Errorf("deleted %d: %v", n, err)
		}
		if err := tx.Sessions().SetOpenStretch(ctx, "s2", 0, at(9)); err != nil {
			return err
		}
		for _, sid := range []string{"s1", "s2", "s2"} {
			if err := tx.Sessions().NoteFailure(ctx, sid, "boom "+sid); err != nil {
				return err
			}
		}
		return nil
	})
	fails, err := r.Failures(ctx)
	must(t, err)
	equal(t, "failures", fails, []store.SessionFailure{{SessionID: "s1", Attempts: 1, LastError: "boom s1"}, {SessionID: "s2", Attempts: 2, LastError: "boom s2"}})
	write(t, s, func(tx store.Tx) error { return tx.Sessions().ClearFailures(ctx, "s1") })
	fails, err = r.Failures(ctx)
	must(t, err)
	equal(t, "failures after a success", fails, []store.SessionFailure{{SessionID: "s2", Attempts: 2, LastError: "boom s2"}})
	c, err := r.Count(ctx, "s1")
	must(t, err)
	equal(t, "left in s1", c, 1)

	// Extraction leases: one holder at a time, renewed by its holder,
	// taken over once it has run out, released only by its holder.
	for i, l := range []struct {
		session, holder string
		at, until       int
		want            bool
	}{
		{"s1", "a", 10, 20, true},
		{"s1", "b", 15, 25, false}, // a's runs past 15
		{"s1", "a", 15, 30, true},  // renewed
		{"s1", "b", 29, 40, false},
		{"s2", "b", 29, 40, true},       // another session
		{"s1", "b", 30, 40, true},       // a's ran out at 30
		{"never", "a", 30, 40, false},   // nothing buffered, ever
		{"release s1", "b", 0, 0, true}, // by its holder
		{"s1", "a", 31, 50, true},
		{"release s2", "a", 0, 0, true}, // not a's: nothing happens
		{"s2", "a", 31, 50, false},
	} {
		var got bool
		write(t, s, func(tx store.Tx) (err error) {
			if sid, ok := strings.CutPrefix(l.session, "release "); ok {
				got = true
				return tx.Sessions().Release(ctx, sid, l.holder)
			}
			got, err = tx.Sessions().Lease(ctx, l.session, l.holder, at(l.at), at(l.until))
			return err
		})
		if got != l.want {
			t.Errorf("lease %d (%s by %s at %d): %v, want %v", i, l.session, l.holder, l.at, got, l.want)
		}
	}
	var a, b2 int64
	write(t, s, func(tx store.Tx) (err error) {
		if a, err = tx.Sessions().Reserve(ctx, "ep", 3); err != nil {
			return err
		}
		b2, err = tx.Sessions().Reserve(ctx, "ep", 2)
		return err
	})
	if a != 3 || b2 != 5 {
		t.Fatalf("reserve: %d then %d", a, b2)
	}
	for i, want := range []bool{true, false} {
		var fresh bool
		write(t, s, func(tx store.Tx) (err error) {
			fresh, err = tx.Sessions().Claim(ctx, "k1", at(i), time.Hour)
			return err
		})
		if fresh != want {
			t.Fatalf("claim %d: %v", i, fresh)
		}
	}
	var fresh bool
	write(t, s, func(tx store.Tx) (err error) {
		fresh, err = tx.Sessions().Claim(ctx, "k1", at(120), time.Hour)
		return err
	})
	if !fresh {
		t.Fatal("a key past its lifetime was not claimable again")
	}
}

func testDream(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	d := drawer("d1", 1)
	insert(t, s, d)
	write(t, s, func(tx store.Tx) error {
		w := tx.Dream()
		if err := w.PutLease(ctx, store.Lease{Owner: "a", AcquiredAt: at(0), ExpiresAt: at(1)}); err != nil {
			return err
		}
		if ok, err := w.RenewLease(ctx, "b", at(5)); ok || err != nil {
			return fmt.Errorf("renew by a non-holder: %v %v", ok, err)
		}
		if ok, err := w.RenewLease(ctx, "a", at(5)); !ok || err != nil {
			return fmt.Errorf("renew by the holder: %v %v", ok, err)
		}
		for i, id := range []string{"r1", "r2"} {
			if err := w.InsertRun(ctx, store.DreamRun{ID: id, Owner: "a", Trigger: "test", Passes: []string{"decay"},
				Status: "running", StartedAt: at(i)}); err != nil {
				return err
			}
		}
		if err := w.InsertChange(ctx, store.DreamChange{RunID: "r1", Pass: "stale", Op: "stale", DrawerID: "d1",
			Before: map[string]any{"status": "active"}, After: map[string]any{"status": "stale"}, At: at(2)}); err != nil {
			return err
		}
		if err := w.FinishRun(ctx, "r1", "done", at(3), []byte(`{"ok":true}`)); err != nil {
			return err
		}
		if err := w.PutDecay(ctx, d.RID, store.DecayBase{Base: 0.5, Applied: 0.4}); err != nil {
			return err
		}
		if err := w.SetDecayApplied(ctx, d.RID, 0.3); err != nil {
			return err
		}
		return w.ReplaceClosets(ctx, []store.Closet{{Room: "General", Keywords: []string{"a"}, Summary: "s", Drawers: 1, RefreshedAt: at(4), Seq: 1}})
	})
	r := s.Dream()
	l, ok, err := r.Lease(ctx)
	must(t, err)
	if !ok || l.Owner != "a" || !l.ExpiresAt.Equal(at(5)) {
		t.Fatalf("lease: %+v %v", l, ok)
	}
	runs, err := r.Runs(ctx, 10)
	must(t, err)
	if len(runs) != 2 || runs[0].ID != "r2" || runs[1].Changes != 1 || runs[1].Status != "done" ||
		string(runs[1].Report) != `{"ok":true}` || !runs[1].FinishedAt.Equal(at(3)) {
		t.Fatalf("runs: %+v", runs)
	}
	if _, err := r.Run(ctx, "r9"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown run: %v", err)
	}
	changes, err := r.Changes(ctx, "r1")
	must(t, err)
	if len(changes) != 1 || changes[0].After["status"] != "stale" {
		t.Fatalf("changes: %+v", changes)
	}
	// The change set d1 stale, and d1 is active: it was reverted.
	rev, err := r.Reverted(ctx, "stale")
	must(t, err)
	equal(t, "reverted", rev, map[string]bool{"d1": true})
	bases, err := r.DecayBases(ctx)
	must(t, err)
	equal(t, "decay", bases, map[string]store.DecayBase{"d1": {Base: 0.5, Applied: 0.3}})
	cl, err := r.Closets(ctx)
	must(t, err)
	if len(cl) != 1 || cl[0].Keywords[0] != "a" || !cl[0].RefreshedAt.Equal(at(4)) {
		t.Fatalf("closets: %+v", cl)
	}
	write(t, s, func(tx store.Tx) error {
		w := tx.Dream()
		if n, err := w.CloseAbandoned(ctx, "b", "abandoned", at(6)); n != 1 || err != nil {
			return fmt.Errorf("close abandoned: %d %v", n, err)
		}
		if err := w.MarkRunUndone(ctx, "r1", at(7)); err != nil {
			return err
		}
		if err := w.MarkChangeUndone(ctx, changes[0].ID); err != nil {
			return err
		}
		return w.ReleaseLease(ctx, "a")
	})
	if _, ok, _ := r.Lease(ctx); ok {
		t.Fatal("lease held after release")
	}
	run, err := r.Run(ctx, "r2")
	must(t, err)
	if run.Status != "abandoned" {
		t.Fatalf("abandoned run: %+v", run)
	}
	changes, _ = r.Changes(ctx, "r1")
	if !changes[0].Undone {
		t.Fatal("change not marked undone")
	}
}

func testTriples(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	clock := t0
	g := kg.New(s, kg.WithNow(func() time.Time { clock = clock.Add(time.Minute); return clock }))
	for _, a := range []kg.Assertion{
		{Subject: "ann", Predicate: "lives_in", Object: "Oslo"},
		{Subject: "ann", Predicate: "lives_in", Object: "Rome"},
		{Subject: "ann", Predicate: "likes", Object: "tea"},
		{Subject: "bob", Predicate: "lives_in", Object: "Rome"},
		{Subject: "ann", Predicate: "lives_in", Object: "Oslo"},
	} {
		if _, err := g.Assert(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	active, err := g.Query(ctx, "ann")
	must(t, err)
	if len(active) != 2 || active[0].Predicate != "likes" || active[1].Object != "Oslo" {
		t.Fatalf("active of ann: %+v", active)
	}
	hist, err := g.History(ctx, "ann")
	must(t, err)
	equal(t, "history of ann", len(hist), 4)
	was, err := g.AsOf(ctx, "ann", t0.Add(150*time.Second))
	must(t, err)
	if len(was) != 1 || was[0].Object != "Rome" {
		t.Fatalf("ann at 2.5 min: %+v", was)
	}
	rome, err := g.QueryObject(ctx, "Rome")
	must(t, err)
	if len(rome) != 1 || rome[0].Subject != "bob" {
		t.Fatalf("who lives in Rome: %+v", rome)
	}
	subs, err := g.Subjects(ctx, "a", 10)
	must(t, err)
	equal(t, "subjects", subs, []kg.SubjectSummary{{Subject: "ann", Active: 2, Total: 4}})
	st, err := g.Stats(ctx)
	must(t, err)
	equal(t, "stats", st, kg.Stats{Active: 3, Total: 5, Subjects: 2})
	churn, err := g.Churn(ctx, time.Time{}, 2)
	must(t, err)
	if len(churn) != 1 || churn[0].Subject != "ann" || churn[0].Changes != 2 || churn[0].Active != "Oslo" {
		t.Fatalf("churn: %+v", churn)
	}
	if n, err := g.DuplicateCount(ctx); n != 0 || err != nil {
		t.Fatalf("duplicates: %d %v", n, err)
	}
}

func testTransactions(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	tx, err := s.Begin(ctx)
	must(t, err)
	must(t, tx.Drawers().Insert(ctx, drawer("gone", 1), nil))
	if _, err := tx.Log().Append(ctx, store.Event{At: at(1), Type: "drawer.add", DrawerID: "gone"}); err != nil {
		t.Fatal(err)
	}
	// Reads inside the transaction see its writes.
	if _, err := tx.Drawers().Get(ctx, "gone"); err != nil {
		t.Fatalf("a transaction does not see its own insert: %v", err)
	}
	must(t, tx.Rollback())
	must(t, tx.Rollback()) // a second rollback is a no-op
	if _, err := s.Drawers().Get(ctx, "gone"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a rolled-back insert is visible: %v", err)
	}
	if n, _ := s.Log().LastSeq(ctx); n != 0 {
		t.Fatalf("a rolled-back event is visible: seq %d", n)
	}

	// A snapshot holds still while another handle commits.
	insert(t, s, drawer("a", 1))
	other, err := b.Open(ctx, "p")
	must(t, err)
	defer other.Close()
	err = s.Snapshot(ctx, func(r store.Reader) error {
		before, err := r.Drawers().Count(ctx, store.Filter{})
		if err != nil {
			return err
		}
		insert(t, other, drawer("b", 2))
		after, err := r.Drawers().Count(ctx, store.Filter{})
		if err != nil {
			return err
		}
		if before != 1 || after != 1 {
			return fmt.Errorf("snapshot counted %d then %d drawers", before, after)
		}
		return nil
	})
	must(t, err)
	if n, _ := s.Drawers().Count(ctx, store.Filter{}); n != 2 {
		t.Fatalf("after the snapshot: %d drawers", n)
	}
}

// testWriters runs writers on two handles of one palace, as two
// processes or two nodes would: each transaction reads the log's last seq
// and appends the next event; serialised writers never produce a gap
// between what one read and what it wrote. Then both handles assert the
// same subject and predicate at once: exactly one triple stays active.
func testWriters(t *testing.T, b store.Backend) {
	s := create(t, b, "p")
	other, err := b.Open(ctx, "p")
	must(t, err)
	defer other.Close()
	const each = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for _, h := range []store.Store{s, other} {
		wg.Add(1)
		go func(h store.Store) {
			defer wg.Done()
			for range each {
				errs <- store.Write(ctx, h, func(tx store.Tx) error {
					last, err := tx.Log().LastSeq(ctx)
					if err != nil {
						return err
					}
					seq, err := tx.Log().Append(ctx, store.Event{At: at(1), Type: "tick"})
					if err != nil {
						return err
					}
					if seq <= last {
						return fmt.Errorf("appended seq %d after reading %d", seq, last)
					}
					return tx.Meta().Set(ctx, "last", fmt.Sprint(last))
				})
			}
		}(h)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	evs, err := s.Log().After(ctx, 0, 1000)
	must(t, err)
	if len(evs) != 2*each {
		t.Fatalf("%d events, want %d", len(evs), 2*each)
	}
	seqs := make([]int64, len(evs))
	for i, e := range evs {
		seqs[i] = e.Seq
	}
	if !sort.SliceIsSorted(seqs, func(i, j int) bool { return seqs[i] < seqs[j] }) {
		t.Fatal("events out of order")
	}

	var objects sync.Map
	for round := range 10 {
		var wg sync.WaitGroup
		for i, h := range []store.Store{s, other} {
			wg.Add(1)
			go func(h store.Store, obj string) {
				defer wg.Done()
				if _, err := kg.New(h).Assert(ctx, kg.Assertion{Subject: "team", Predicate: "lead", Object: obj}); err != nil {
					objects.Store(obj, err)
				}
			}(h, fmt.Sprintf("p%d-%d", round, i))
		}
		wg.Wait()
	}
	objects.Range(func(k, v any) bool { t.Errorf("assert %v: %v", k, v); return true })
	active, err := kg.New(other).Query(ctx, "team")
	must(t, err)
	if len(active) != 1 {
		t.Fatalf("%d active triples of (team, lead), want 1: %+v", len(active), active)
	}
	hist, err := kg.New(s).History(ctx, "team")
	must(t, err)
	equal(t, "assertions recorded", len(hist), 20)
}

func testTokens(t *testing.T, b store.Backend) {
	ts, err := b.Tokens(ctx)
	must(t, err)
	list, err := ts.Tokens(ctx)
	must(t, err)
	equal(t, "tokens of a new backend", list, []store.Token{})
	a := store.Token{ID: "tk_a", User: "ann", Scope: "write", Palaces: []string{"team", "docs"}, Hash: []byte{1, 2, 3}, CreatedAt: at(1)}
	z := store.Token{ID: "tk_z", User: "zed", Scope: "admin", Palaces: []string{"*"}, Hash: []byte{9}, CreatedAt: at(2)}
	must(t, ts.PutToken(ctx, z))
	must(t, ts.PutToken(ctx, a))
	if err := ts.PutToken(ctx, a); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second token with one id: %v", err)
	}
	got, err := ts.Token(ctx, "tk_a")
	must(t, err)
	equal(t, "token read back", got, a)
	if _, err := ts.Token(ctx, "tk_x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
	must(t, ts.TouchToken(ctx, "tk_z", at(5)))
	must(t, ts.RevokeToken(ctx, "tk_a", at(6)))
	must(t, ts.RevokeToken(ctx, "tk_a", at(7))) // revoked once: the first time stands
	if err := ts.RevokeToken(ctx, "tk_x", at(6)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke of an unknown token: %v", err)
	}
	list, err = ts.Tokens(ctx)
	must(t, err)
	if len(list) != 2 || list[0].ID != "tk_a" || !list[0].RevokedAt.Equal(at(6)) || !list[1].LastUsed.Equal(at(5)) || !list[1].RevokedAt.IsZero() {
		t.Fatalf("tokens: %+v", list)
	}
}
