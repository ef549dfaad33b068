package index_test

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/loci-mem/loci/palace/index"
)

func TestFlatSnapshotRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	a := index.NewAuto(index.AutoConfig{})
	vecs := map[uint64][]float32{}
	for k := uint64(1); k <= 300; k++ {
		v := make([]float32, 24)
		var n float32
		for i := range v {
			v[i] = float32(r.NormFloat64())
			n += v[i] * v[i]
		}
		vecs[k] = v
		a.Add(k, v)
	}
	for k := uint64(1); k <= 300; k += 3 {
		a.Remove(k)
		delete(vecs, k)
	}
	path := filepath.Join(t.TempDir(), "v.idx")
	if err := index.SaveFlatFile(path, a, index.SnapshotMeta{Model: "m-1", Seq: 42}); err != nil {
		t.Fatal(err)
	}
	b, meta, err := index.LoadFlatFile(path, index.AutoConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Model != "m-1" || meta.Seq != 42 || b.Len() != len(vecs) || b.Dim() != 24 {
		t.Fatalf("loaded %+v len %d dim %d, want m-1/42/%d/24", meta, b.Len(), b.Dim(), len(vecs))
	}
	for k, v := range vecs {
		res := b.SearchExact(v, 1, nil)
		if len(res) != 1 || res[0].Key != k {
			t.Fatalf("key %d: nearest is %+v", k, res)
		}
	}
	// Every single-byte corruption or truncation is detected.
	raw, _ := os.ReadFile(path)
	for _, cut := range []int{len(raw) - 1, len(raw) / 2, 10} {
		os.WriteFile(path, raw[:cut], 0o600)
		if _, _, err := index.LoadFlatFile(path, index.AutoConfig{}); !errors.Is(err, index.ErrCorrupt) {
			t.Fatalf("truncated to %d: err = %v, want ErrCorrupt", cut, err)
		}
	}
	bad := append([]byte(nil), raw...)
	bad[len(bad)/2] ^= 0x40
	os.WriteFile(path, bad, 0o600)
	if _, _, err := index.LoadFlatFile(path, index.AutoConfig{}); !errors.Is(err, index.ErrCorrupt) {
		t.Fatalf("flipped bit: err = %v, want ErrCorrupt", err)
	}
}
