package palace

import (
	"context"
	"math/rand"
	"testing"
)

// The rerank re-scores a long text's passages from the store only within
// farPassageBytes of their start; passages past it keep the score of their
// int8 codes, and none is dropped.
func TestRerankLeavesFarPassagesToTheirCodes(t *testing.T) {
	ctx := context.Background()
	p := newTestPalace(t)
	noErr(t, p.Add(ctx, &Drawer{Content: drawnWords(rand.New(rand.NewSource(4)), 4000)}))
	idx, err := p.vec.sync(ctx)
	noErr(t, err)
	q := p.queryVector(ctx, "copper lantern by the river")
	size := 4 * len(q)
	if idx.Len()-1 <= farPassageBytes/size {
		t.Fatalf("%d vectors: none past %d bytes of passages", idx.Len(), farPassageBytes)
	}
	res := idx.SearchExact(q, idx.Len(), nil)
	coded := map[uint64]float32{}
	for _, x := range res {
		coded[x.Key] = x.Score
	}
	out, err := p.rerank(ctx, q, res, len(res))
	noErr(t, err)
	if len(out) != len(res) {
		t.Fatalf("%d of %d candidates kept", len(out), len(res))
	}
	near, rescored := 0, 0
	for _, x := range out {
		_, passage := splitKey(int64(x.Key))
		if (passage-1)*size >= farPassageBytes {
			if x.Score != coded[x.Key] {
				t.Fatalf("passage %d, past %d bytes, re-scored: %v, its codes' %v", passage, farPassageBytes, x.Score, coded[x.Key])
			}
			continue
		}
		near++
		if x.Score != coded[x.Key] {
			rescored++
		}
	}
	if rescored < near/2 {
		t.Fatalf("%d of %d near candidates re-scored", rescored, near)
	}
}
