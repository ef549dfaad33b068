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

func TestIDMap(t *testing.T) {
	m := newIDMap(0)
	want := map[int64]int64{}
	set := func(id, v int64) { m.set(id, v); want[id] = v }
	del := func(id int64) { m.del(id); delete(want, id) }
	for id := int64(1); id <= 5000; id++ {
		set(id, id*10)
	}
	set(0, 7)       // zero is an id like any other
	set(1<<40, 1)   // far past the rest: the map
	set(200_000, 2) // past 2n+slack now: the map …
	for id := int64(5001); id <= 250_000; id++ {
		if id == 200_000 {
			continue
		}
		set(id, -id) // … and the slice grows past it
	}
	set(200_000, 3) // updated where it lives
	del(17)
	del(1 << 40)
	del(123_456_789) // absent: nothing changes
	set(17, 0)       // a value of zero is a value
	if m.len() != len(want) {
		t.Fatalf("len %d, want %d", m.len(), len(want))
	}
	for id, v := range want {
		if got, ok := m.get(id); !ok || got != v {
			t.Fatalf("get(%d) = %d, %v; want %d", id, got, ok, v)
		}
	}
	for _, id := range []int64{-1, 1 << 40, 250_001, 1 << 62} {
		if _, ok := m.get(id); ok {
			t.Fatalf("get(%d) found an id never set", id)
		}
	}
	if len(m.dense) > 2*m.len()+idMapSlack {
		t.Fatalf("slice of %d for %d ids", len(m.dense), m.len())
	}
}
