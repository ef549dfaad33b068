package kg_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
)

func TestTripleJSON(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	tr, err := s.Assert(ctx, kg.Assertion{Subject: "auth-service", Predicate: "deployed_version", Object: "2.4.1",
		Confidence: ptr(0.95), Provenance: "deploy-log-2026-05-10"})
	if err != nil {
		t.Fatal(err)
	}

	// Seed 003's kg_query example, plus id.
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"subject":"auth-service","predicate":"deployed_version","object":"2.4.1",` +
		`"valid_from":"2026-05-10T14:32:00Z","valid_to":null,"confidence":0.95,"provenance":"deploy-log-2026-05-10"}`
	if got := string(b); got != want {
		t.Errorf("JSON =\n%s\nwant\n%s", got, want)
	}

	// A closed triple without provenance, with sub-second times.
	clock.Advance(1500 * time.Millisecond)
	mustAssert(t, s, "x", "p", "a")
	clock.Advance(time.Hour)
	mustAssert(t, s, "x", "p", "b")
	hist, _ := s.History(ctx, "x")
	b, err = json.Marshal(hist[0])
	if err != nil {
		t.Fatal(err)
	}
	want = `{"id":2,"subject":"x","predicate":"p","object":"a",` +
		`"valid_from":"2026-05-10T14:32:01.5Z","valid_to":"2026-05-10T15:32:01.5Z","confidence":1,"provenance":null}`
	if got := string(b); got != want {
		t.Errorf("JSON =\n%s\nwant\n%s", got, want)
	}

	// Round trip (CreatedAt is not part of the JSON).
	for _, orig := range []kg.Triple{tr, hist[0], hist[1]} {
		b, _ := json.Marshal(orig)
		var back kg.Triple
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		orig.CreatedAt = time.Time{}
		if back != orig {
			t.Errorf("round trip = %+v, want %+v", back, orig)
		}
	}
	var bad kg.Triple
	if err := json.Unmarshal([]byte(`{"valid_from":"yesterday"}`), &bad); err == nil {
		t.Errorf("Unmarshal accepted a bad valid_from")
	}
}

func TestRFC3339(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("CEST", 2*3600)
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 5, 10, 16, 32, 0, 0, loc), "2026-05-10T14:32:00Z"},
		{time.Date(2026, 5, 10, 14, 32, 0, 123000000, time.UTC), "2026-05-10T14:32:00.123Z"},
	}
	for _, tt := range tests {
		if got := kg.RFC3339(tt.in); got != tt.want {
			t.Errorf("RFC3339(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
