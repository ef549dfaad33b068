package palace

import (
	"math/rand"
	"testing"
)

func TestIDSet(t *testing.T) {
	t.Parallel()
	var s idSet
	want := map[uint64]bool{}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		id := uint64(r.Intn(200000))
		if i%50 == 0 {
			id = idSetBits + uint64(r.Intn(1000)) // beyond the bitset
		}
		s.add(id)
		s.add(id) // twice: counted once
		want[id] = true
	}
	if s.len() != len(want) {
		t.Fatalf("len %d, want %d", s.len(), len(want))
	}
	for id := uint64(0); id < 210000; id++ {
		if s.has(id) != want[id] {
			t.Fatalf("has(%d) = %v", id, s.has(id))
		}
	}
	for id := uint64(idSetBits); id < idSetBits+1000; id++ {
		if s.has(id) != want[id] {
			t.Fatalf("has(%d) = %v", id, s.has(id))
		}
	}
	var empty idSet
	if empty.has(0) || empty.has(idSetBits+1) || empty.len() != 0 {
		t.Fatal("empty set has members")
	}
}
