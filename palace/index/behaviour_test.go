package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/index"
)

// waitAuto waits for an Auto's background build, if idx is one.
func waitAuto(tb testing.TB, idx index.Index) {
	tb.Helper()
	if a, ok := idx.(*index.Auto); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := a.WaitBuild(ctx); err != nil {
			tb.Fatal(err)
		}
	}
}

func TestAddRemoveSemantics(t *testing.T) {
	vecs := unitVecs(10, 200, 8)
	for name, mk := range indexes() {
		t.Run(name, func(t *testing.T) {
			idx := mk()
			if got := idx.Dim(); got != 0 {
				t.Errorf("empty Dim = %d", got)
			}
			if res := idx.Search(vecs[0], 3, nil); len(res) != 0 {
				t.Errorf("empty Search = %v", res)
			}
			for i, v := range vecs {
				if !idx.Add(uint64(i), v) {
					t.Fatalf("Add(%d) = false", i)
				}
			}
			waitAuto(t, idx)
			if idx.Add(7, vecs[8]) {
				t.Error("Add of an existing key = true")
			}
			if idx.Add(1000, vecs[0][:4]) {
				t.Error("Add of a wrong-dimension vector = true")
			}
			if got, want := idx.Len(), len(vecs); got != want {
				t.Errorf("Len = %d, want %d", got, want)
			}
			if got := idx.Dim(); got != 8 {
				t.Errorf("Dim = %d", got)
			}
			if res := idx.Search(vecs[7], 1, nil); len(res) != 1 || res[0].Key != 7 {
				t.Fatalf("Search(vec 7) = %v", res)
			}
			idx.Remove(7)
			idx.Remove(7)    // twice is harmless
			idx.Remove(9999) // unknown is harmless
			if got, want := idx.Len(), len(vecs)-1; got != want {
				t.Errorf("Len after Remove = %d, want %d", got, want)
			}
			for _, r := range idx.Search(vecs[7], 50, nil) {
				if r.Key == 7 {
					t.Fatal("removed key returned")
				}
			}
			// A removed key can be added again, with a new vector.
			if !idx.Add(7, vecs[8]) {
				t.Fatal("re-Add of a removed key = false")
			}
			if res := idx.Search(vecs[8], 2, nil); len(res) != 2 || (res[0].Key != 7 && res[1].Key != 7) {
				t.Fatalf("Search after re-Add = %v", res)
			}
			if got, want := idx.Len(), len(vecs); got != want {
				t.Errorf("Len after re-Add = %d, want %d", got, want)
			}
		})
	}
}

func TestTombstonesNeverReturned(t *testing.T) {
	vecs := unitVecs(11, 600, 16)
	for name, mk := range indexes() {
		t.Run(name, func(t *testing.T) {
			idx := mk()
			for i, v := range vecs {
				idx.Add(uint64(i), v)
			}
			waitAuto(t, idx)
			for i := 0; i < len(vecs); i += 2 { // remove half: forces fallbacks too
				idx.Remove(uint64(i))
			}
			for _, q := range unitVecs(12, 30, 16) {
				res := idx.Search(q, 20, nil)
				if len(res) != 20 {
					t.Fatalf("got %d results, want 20", len(res))
				}
				for _, r := range res {
					if r.Key%2 == 0 {
						t.Fatalf("tombstoned key %d returned", r.Key)
					}
				}
				// A filter that leaves few keys still fills k exactly.
				res = idx.Search(q, 5, func(k uint64) bool { return k%50 == 1 })
				if len(res) != 5 {
					t.Fatalf("filtered search: %d results, want 5", len(res))
				}
				for _, r := range res {
					if r.Key%50 != 1 {
						t.Fatalf("disallowed key %d returned", r.Key)
					}
				}
			}
		})
	}
}

func TestRebuildDropsTombstones(t *testing.T) {
	vecs := unitVecs(13, 400, 16)
	h := index.NewHNSW(testHNSW)
	for i, v := range vecs {
		h.Add(uint64(i), v)
	}
	for i := range 100 {
		h.Remove(uint64(i))
	}
	if !h.NeedsRebuild() {
		t.Error("NeedsRebuild = false with 25% tombstones")
	}
	if err := h.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := h.Stats()
	if st.Tombstones != 0 || st.Live != 300 || h.NeedsRebuild() {
		t.Errorf("after Rebuild: %+v", st)
	}
	for _, q := range vecs[100:150] { // the new graph answers, in full
		if res := h.Search(q, 10, nil); len(res) != 10 {
			t.Fatalf("after Rebuild Search = %v", res)
		}
	}
	if st := h.Stats(); st.ExactFallbacks != 0 {
		t.Errorf("after Rebuild %d searches fell back to exact", st.ExactFallbacks)
	}
	for _, r := range h.Search(vecs[0], 300, nil) {
		if r.Key < 100 {
			t.Fatalf("removed key %d back after Rebuild", r.Key)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Rebuild(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Rebuild = %v", err)
	}
}

func TestRecoverFromPanic(t *testing.T) {
	vecs := unitVecs(14, 200, 8)
	var reported []error
	h := index.NewHNSW(index.HNSWConfig{Seed: 1, OnPanic: func(op string, err error) {
		reported = append(reported, err)
	}})
	for i, v := range vecs[:100] {
		h.Add(uint64(i), v)
	}
	index.SetTestHook(func(op string) {
		if op == "add" || op == "search" {
			panic("injected " + op)
		}
	})
	defer index.SetTestHook(nil)
	if res := h.Search(vecs[3], 1, nil); len(res) != 1 || res[0].Key != 3 {
		t.Fatalf("Search during a panicking graph = %v", res)
	}
	if !h.Add(100, vecs[100]) {
		t.Fatal("Add during a panicking graph = false")
	}
	st := h.Stats()
	if !st.Degraded || st.Panics < 2 || !h.NeedsRebuild() || len(reported) < 2 {
		t.Fatalf("stats after panics: %+v, %d reported", st, len(reported))
	}
	var pe *index.PanicError
	if !errors.As(reported[0], &pe) || pe.Op != "search" {
		t.Errorf("reported %v", reported[0])
	}
	// Degraded: exact answers, including the vector added after the panic.
	if res := h.Search(vecs[100], 1, nil); len(res) != 1 || res[0].Key != 100 {
		t.Fatalf("degraded Search = %v", res)
	}
	if err := h.SaveFile(filepath.Join(t.TempDir(), "x"), index.SnapshotMeta{}); !errors.Is(err, index.ErrDegraded) {
		t.Errorf("SaveFile while degraded = %v", err)
	}
	if err := h.Rebuild(context.Background()); err == nil {
		t.Error("Rebuild with a panicking graph succeeded")
	}
	index.SetTestHook(nil)
	if err := h.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := h.Stats(); st.Degraded || st.Live != 101 {
		t.Errorf("after Rebuild: %+v", st)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	vecs := unitVecs(15, 500, 24)
	h := index.NewHNSW(index.HNSWConfig{M: 12, EfSearch: 64, Seed: 1})
	for i, v := range vecs {
		h.Add(uint64(i)*3, v)
	}
	for i := 0; i < 50; i++ {
		h.Remove(uint64(i) * 3)
	}
	path := filepath.Join(t.TempDir(), "palace.hnsw")
	meta := index.SnapshotMeta{Model: "hash-384@1", Seq: 4242}
	if err := h.SaveFile(path, meta); err != nil {
		t.Fatal(err)
	}
	g, got, err := index.LoadHNSWFile(path, index.HNSWConfig{EfSearch: 40})
	if err != nil {
		t.Fatal(err)
	}
	if c := g.Config(); c.M != 12 || c.EfSearch != 40 {
		t.Errorf("loaded config %+v, want M 12 from the file and EfSearch 40", c)
	}
	g.SetEfSearch(64)
	if got != meta {
		t.Errorf("meta = %+v, want %+v", got, meta)
	}
	if g.Len() != h.Len() || g.Dim() != 24 || g.Stats().Tombstones != 50 {
		t.Errorf("loaded Len %d Dim %d stats %+v", g.Len(), g.Dim(), g.Stats())
	}
	for _, q := range vecs[50:80] {
		sameTop(t, g.SearchExact(q, 5, nil), h.SearchExact(q, 5, nil))
	}
	// The loaded graph navigates as well as the saved one: each finds
	// (nearly) the same share of stored vectors as their own neighbour.
	found := func(x *index.HNSW) (n int) {
		for i, q := range vecs[50:] {
			if res := x.Search(q, 1, nil); len(res) == 1 && res[0].Key == uint64(i+50)*3 {
				n++
			}
		}
		return n
	}
	if a, b := found(h), found(g); b < a-25 || b < 250 {
		t.Errorf("own vector found by the saved graph %d times, by the loaded one %d (of 450)", a, b)
	}
	for _, r := range g.Search(vecs[0], 100, nil) {
		if r.Key < 150 && r.Key%3 == 0 {
			t.Fatalf("tombstone %d returned after Load", r.Key)
		}
	}
	// The loaded index keeps working: Add, Remove, Rebuild.
	if !g.Add(1, vecs[0]) || g.Add(3*60, vecs[0]) {
		t.Error("Add after Load")
	}
	if err := g.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Empty index round trip.
	empty := filepath.Join(t.TempDir(), "empty")
	if err := index.NewHNSW(index.HNSWConfig{}).SaveFile(empty, index.SnapshotMeta{Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if e, m, err := index.LoadHNSWFile(empty, index.HNSWConfig{}); err != nil || e.Len() != 0 || m.Seq != 1 {
		t.Fatalf("empty round trip: %v %+v", err, m)
	}
}

func TestCorruptSnapshotDetected(t *testing.T) {
	h := index.NewHNSW(testHNSW)
	for i, v := range unitVecs(16, 300, 16) {
		h.Add(uint64(i), v)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "g")
	if err := h.SaveFile(path, index.SnapshotMeta{Model: "m", Seq: 9}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temp files left behind: %v", ents)
	}
	cases := map[string][]byte{
		"truncated":   good[:len(good)/2],
		"tail cut":    good[:len(good)-1],
		"empty":       {},
		"bit flip":    flip(good, len(good)/3),
		"header flip": flip(good, 3),
		"crc flip":    flip(good, len(good)-2),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := index.LoadHNSWFile(p, index.HNSWConfig{}); !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("Load = %v, want ErrCorrupt", err)
			}
		})
	}
	if _, _, err := index.LoadHNSWFile(filepath.Join(dir, "missing"), index.HNSWConfig{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x10
	return c
}

func TestConcurrentUse(t *testing.T) {
	vecs := unitVecs(17, 1000, 16)
	for name, mk := range indexes() {
		t.Run(name, func(t *testing.T) {
			idx := mk()
			for i, v := range vecs[:600] { // 400 more arrive concurrently
				idx.Add(uint64(i), v)
			}
			var wg sync.WaitGroup
			wg.Add(4)
			go func() { // writer
				defer wg.Done()
				for i := 600; i < len(vecs); i++ {
					idx.Add(uint64(i), vecs[i])
				}
			}()
			go func() { // remover
				defer wg.Done()
				for i := 0; i < 600; i += 3 {
					idx.Remove(uint64(i))
				}
			}()
			go func() { // rebuilder, for the graph kinds
				defer wg.Done()
				for range 3 {
					switch x := idx.(type) {
					case *index.HNSW:
						x.Rebuild(context.Background())
					case *index.Auto:
						x.Rebuild(context.Background())
					}
				}
			}()
			go func() { // reader
				defer wg.Done()
				for i := range 300 {
					for _, r := range idx.Search(vecs[i%len(vecs)], 5, nil) {
						if r.Key >= uint64(len(vecs)) {
							t.Errorf("unknown key %d", r.Key)
						}
					}
					idx.Len()
				}
			}()
			wg.Wait()
			waitAuto(t, idx)
			if got, want := idx.Len(), len(vecs)-200; got != want { // 200 = |{0,3,...,597}|
				t.Errorf("Len = %d, want %d", got, want)
			}
			for _, r := range idx.Search(vecs[3], 50, nil) {
				if r.Key < 600 && r.Key%3 == 0 {
					t.Fatalf("removed key %d returned", r.Key)
				}
			}
		})
	}
}

func TestAutoSwitch(t *testing.T) {
	vecs := unitVecs(18, 800, 16)
	a := index.NewAuto(index.AutoConfig{Threshold: 300, HNSW: testHNSW})
	defer a.Close()
	for i, v := range vecs[:299] {
		a.Add(uint64(i), v)
	}
	if got := a.Mode(); got != index.ModeExact {
		t.Fatalf("Mode below threshold = %v", got)
	}
	if err := a.SaveFile(filepath.Join(t.TempDir(), "x"), index.SnapshotMeta{}); !errors.Is(err, index.ErrExact) {
		t.Errorf("SaveFile while exact = %v", err)
	}
	// Crossing the threshold starts the build; changes made while it runs
	// must survive the switch.
	for i := 299; i < len(vecs); i++ {
		a.Add(uint64(i), vecs[i])
		if i%10 == 0 {
			a.Remove(uint64(i - 250))
		}
		if res := a.SearchExact(vecs[i], 1, nil); len(res) != 1 || res[0].Key != uint64(i) {
			t.Fatalf("Search during the switch (mode %v) = %v", a.Mode(), res)
		}
	}
	waitAuto(t, a)
	if got := a.Mode(); got != index.ModeHNSW {
		t.Fatalf("Mode after build = %v", got)
	}
	removed := 0
	for i := 299; i < len(vecs); i++ {
		if i%10 == 0 {
			removed++
		}
	}
	if got, want := a.Len(), len(vecs)-removed; got != want {
		t.Errorf("Len after switch = %d, want %d", got, want)
	}
	for i := 299; i < len(vecs); i++ {
		res := a.SearchExact(vecs[i-250], 1, nil)
		if i%10 == 0 {
			if len(res) > 0 && res[0].Key == uint64(i-250) {
				t.Fatalf("key %d removed during the build came back", i-250)
			}
		} else if len(res) != 1 || res[0].Key != uint64(i-250) {
			t.Fatalf("key %d lost in the switch: %v", i-250, res)
		}
	}
	path := filepath.Join(t.TempDir(), "auto")
	if err := a.SaveFile(path, index.SnapshotMeta{Seq: 3}); err != nil {
		t.Fatal(err)
	}
	b, meta, err := index.LoadAutoFile(path, index.AutoConfig{})
	if err != nil || meta.Seq != 3 || b.Mode() != index.ModeHNSW || b.Len() != a.Len() {
		t.Fatalf("LoadAutoFile: %v %+v %v %d", err, meta, b.Mode(), b.Len())
	}

	// Never switching, and Close during a build.
	n := index.NewAuto(index.AutoConfig{Threshold: -1})
	for i, v := range vecs {
		n.Add(uint64(i), v)
	}
	if n.Mode() != index.ModeExact {
		t.Error("Threshold -1 switched")
	}
	c := index.NewAuto(index.AutoConfig{Threshold: 10, HNSW: testHNSW})
	for i, v := range vecs {
		c.Add(uint64(i), v)
	}
	c.Close()
	if res := c.SearchExact(vecs[5], 1, nil); len(res) != 1 || res[0].Key != 5 || c.Len() != len(vecs) {
		t.Errorf("after Close: %v", res)
	}
}

func TestKernelsPureGoPath(t *testing.T) {
	old := index.SetAVX2(false)
	defer index.SetAVX2(old)
	vecs := unitVecs(19, 100, 33)
	ref := map[uint64][]float32{}
	f := index.NewFlat(index.FlatConfig{})
	for i, v := range vecs {
		f.Add(uint64(i), v)
		ref[uint64(i)] = v
	}
	sameTop(t, f.Search(vecs[0], 10, nil), bruteForce(ref, vecs[0], 10, index.Cosine, nil))
}
