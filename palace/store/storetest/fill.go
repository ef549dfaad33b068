package storetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlstore"
)

// Fill writes a little of everything a palace keeps into s — drawers of
// several statuses with vectors and passages, the change log, triples,
// fact numbers, undo tokens, session buffers and counters, request keys,
// and the dreamer's journal — for tests that move palaces between stores.
func Fill(t *testing.T, s store.Store) {
	t.Helper()
	var rids []int64
	write(t, s, func(tx store.Tx) error {
		if err := tx.Meta().Set(ctx, "description", "a palace with one of everything"); err != nil {
			return err
		}
		for i := 1; i <= 5; i++ {
			seq, err := tx.Log().Append(ctx, store.Event{At: at(i), Type: "drawer.add", DrawerID: fmt.Sprintf("m%d", i),
				Detail: []byte(fmt.Sprintf(`{"source":"test","n":%d}`, i))})
			if err != nil {
				return err
			}
			d := drawer(fmt.Sprintf("m%d", i), seq)
			d.Tags, d.Meta, d.VecKey, d.Model = []string{"t", fmt.Sprint(i)}, map[string]any{"i": float64(i)}, seq, "m"
			v := &store.Vector{Blob: vec(float32(i), 1)}
			if i == 5 {
				d.Content = strings.Repeat("a long text ", 50)
				v.Passages, v.Count = vec(1, 2, 3, 4), 2
			}
			if i == 4 {
				d.Status = store.StatusDeleted
			}
			if err := tx.Drawers().Insert(ctx, d, v); err != nil {
				return err
			}
			rids = append(rids, d.RID)
		}
		for _, id := range []string{"m1", "m2"} {
			if _, err := tx.Facts().Allocate(ctx, id); err != nil {
				return err
			}
		}
		if err := tx.Facts().RaiseCounter(ctx, 9); err != nil {
			return err
		}
		if err := tx.Drawers().PutUndo(ctx, store.Undo{Token: "undo-1", Action: "forget", DrawerID: "m4",
			PrevStatus: "active", NewStatus: "deleted", Seq: 4, CreatedAt: at(4)}); err != nil {
			return err
		}
		if err := tx.Sessions().Append(ctx, store.Buffered{SessionID: "s1", Role: "user", At: at(6), Size: 2,
			Message: []byte(`{"text":"hi"}`), AddedAt: at(6)}); err != nil {
			return err
		}
		if err := tx.Sessions().SetOpenStretch(ctx, "s1", 0, at(6)); err != nil {
			return err
		}
		if _, err := tx.Sessions().Reserve(ctx, "ep_20260501", 3); err != nil {
			return err
		}
		if _, err := tx.Sessions().Claim(ctx, "req-1", time.Now(), time.Hour); err != nil {
			return err
		}
		w := tx.Dream()
		if err := w.PutLease(ctx, store.Lease{Owner: "node-a", AcquiredAt: at(7), ExpiresAt: at(8)}); err != nil {
			return err
		}
		if err := w.InsertRun(ctx, store.DreamRun{ID: "run-1", Owner: "node-a", Trigger: "test", Passes: []string{"decay"},
			Status: "running", StartedAt: at(7)}); err != nil {
			return err
		}
		if err := w.InsertChange(ctx, store.DreamChange{RunID: "run-1", Pass: "decay", Op: "decay", DrawerID: "m1",
			Before: map[string]any{"importance": 0.5}, After: map[string]any{"importance": 0.4}, At: at(7)}); err != nil {
			return err
		}
		if err := w.FinishRun(ctx, "run-1", "done", at(8), []byte(`{"decayed":1}`)); err != nil {
			return err
		}
		if err := w.PutDecay(ctx, rids[0], store.DecayBase{Base: 0.5, Applied: 0.4}); err != nil {
			return err
		}
		return w.ReplaceClosets(ctx, []store.Closet{{Room: "General", Keywords: []string{"long"}, Summary: "s", Drawers: 4, RefreshedAt: at(8), Seq: 5}})
	})
	g := kg.New(s, kg.WithNow(func() time.Time { return at(9) }))
	for _, o := range []string{"Oslo", "Rome"} {
		if _, err := g.Assert(ctx, kg.Assertion{Subject: "ann", Predicate: "lives_in", Object: o}); err != nil {
			t.Fatal(err)
		}
	}
}

// Dump returns every row of every table of s, each as text, sorted: two
// palaces with equal dumps hold the same rows. s must be a store of a SQL
// backend (sqlstore.Tables).
func Dump(t *testing.T, s store.Store) map[string][]string {
	t.Helper()
	tabs, ok := s.(sqlstore.Tables)
	if !ok {
		t.Fatalf("%T is not a SQL store", s)
	}
	out := map[string][]string{}
	err := tabs.ReadTables(context.Background(), func(q sqlstore.Querier, d sqlstore.Dialect) error {
		tables, err := d.Tables(ctx, q) // the engine's own list, not Copy's
		if err != nil {
			return err
		}
		for _, table := range tables {
			rows, err := q.QueryContext(ctx, `SELECT * FROM `+table)
			if err != nil {
				return err
			}
			cols, _ := rows.Columns()
			for rows.Next() {
				vals, err := sqlstore.ScanRow(rows, len(cols))
				if err != nil {
					rows.Close()
					return err
				}
				fields := make([]string, len(cols))
				for i, v := range vals {
					if b, ok := v.([]byte); ok {
						v = fmt.Sprintf("%x", b)
					}
					fields[i] = cols[i] + "=" + fmt.Sprint(v)
				}
				sort.Strings(fields) // column order differs between engines
				out[table] = append(out[table], strings.Join(fields, " "))
			}
			rows.Close()
			sort.Strings(out[table])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
