package kg_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
)

func TestAssertValidation(t *testing.T) {
	t.Parallel()
	ok := kg.Assertion{Subject: "auth-service", Predicate: "deployed_version", Object: "2.4.1"}
	with := func(f func(*kg.Assertion)) kg.Assertion {
		a := ok
		f(&a)
		return a
	}
	long := strings.Repeat("x", kg.MaxTermBytes+1)
	tests := []struct {
		name  string
		in    kg.Assertion
		field string
		msg   string // substring of the error message
	}{
		{"empty subject", with(func(a *kg.Assertion) { a.Subject = "" }), "subject", "subject must not be empty"},
		{"blank subject", with(func(a *kg.Assertion) { a.Subject = " \t\n" }), "subject", "subject must not be empty"},
		{"empty predicate", with(func(a *kg.Assertion) { a.Predicate = "" }), "predicate", "predicate must not be empty"},
		{"empty object", with(func(a *kg.Assertion) { a.Object = "  " }), "object", "object must not be empty"},
		{"long subject", with(func(a *kg.Assertion) { a.Subject = long }), "subject", "subject must be at most 1024 bytes, got 1025"},
		{"long predicate", with(func(a *kg.Assertion) { a.Predicate = long }), "predicate", "at most 1024 bytes"},
		{"long object", with(func(a *kg.Assertion) { a.Object = long }), "object", "at most 1024 bytes"},
		{"invalid utf8 subject", with(func(a *kg.Assertion) { a.Subject = "a\xffb" }), "subject", "subject must be valid UTF-8"},
		{"invalid utf8 object", with(func(a *kg.Assertion) { a.Object = "\xc3\x28" }), "object", "valid UTF-8"},
		{"nul predicate", with(func(a *kg.Assertion) { a.Predicate = "a\x00b" }), "predicate", "predicate must not contain NUL bytes"},
		{"confidence above 1", with(func(a *kg.Assertion) { a.Confidence = ptr(1.5) }), "confidence", "confidence must be in [0,1], got 1.5"},
		{"confidence below 0", with(func(a *kg.Assertion) { a.Confidence = ptr(-0.1) }), "confidence", "confidence must be in [0,1], got -0.1"},
		{"confidence NaN", with(func(a *kg.Assertion) { a.Confidence = ptr(math.NaN()) }), "confidence", "confidence must be a finite number, got NaN"},
		{"confidence +Inf", with(func(a *kg.Assertion) { a.Confidence = ptr(math.Inf(1)) }), "confidence", "finite"},
		{"provenance invalid utf8", with(func(a *kg.Assertion) { a.Provenance = "\xff" }), "provenance", "provenance must be valid UTF-8"},
		{"provenance nul", with(func(a *kg.Assertion) { a.Provenance = "log\x00" }), "provenance", "NUL"},
		{"provenance long", with(func(a *kg.Assertion) { a.Provenance = strings.Repeat("p", kg.MaxProvenanceBytes+1) }), "provenance", "at most 4096 bytes"},
		{"valid_from year 10000", with(func(a *kg.Assertion) { a.ValidFrom = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), "valid_from", "between year 1 and 9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, db := MustOpenStore(t)
			mustAssert(t, s, "auth-service", "deployed_version", "2.4.0")
			before := dump(t, db)

			_, err := s.Assert(context.Background(), tt.in)
			if !errors.Is(err, kg.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			var ve *kg.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err %T is not a *ValidationError", err)
			}
			if got, want := ve.Field, tt.field; got != want {
				t.Errorf("field = %q, want %q", got, want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q does not contain %q", err.Error(), tt.msg)
			}
			if after := dump(t, db); !slices.Equal(before, after) {
				t.Errorf("bad input changed the table:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

func TestAssertBoundaryValues(t *testing.T) {
	t.Parallel()
	s, _, _ := MustOpenStore(t)
	ctx := context.Background()
	full := strings.Repeat("é", kg.MaxTermBytes/2) // exactly 1024 bytes
	for i, c := range []float64{0, 0.5, 1} {
		tr, err := s.Assert(ctx, kg.Assertion{Subject: full, Predicate: full, Object: fmt.Sprint(i), Confidence: ptr(c)})
		if err != nil {
			t.Fatalf("confidence %v: %v", c, err)
		}
		if got, want := tr.Confidence, c; got != want {
			t.Errorf("confidence = %v, want %v", got, want)
		}
	}
	// Negative zero is accepted and stored as zero.
	tr, err := s.Assert(ctx, kg.Assertion{Subject: "z", Predicate: "p", Object: "o", Confidence: ptr(math.Copysign(0, -1))})
	if err != nil {
		t.Fatal(err)
	}
	if math.Signbit(tr.Confidence) {
		t.Errorf("confidence kept its negative sign")
	}
}

func TestAssertDefaultsAndNormalisation(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	tr, err := s.Assert(ctx, kg.Assertion{Subject: "  auth-service ", Predicate: "\tdeployed_version", Object: "2.4.1\n", Provenance: "  "})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [3]string{tr.Subject, tr.Predicate, tr.Object}, [3]string{"auth-service", "deployed_version", "2.4.1"}; got != want {
		t.Errorf("terms = %q, want %q", got, want)
	}
	if got, want := tr.Confidence, 1.0; got != want {
		t.Errorf("default confidence = %v, want %v", got, want)
	}
	if tr.Provenance != "" {
		t.Errorf("blank provenance stored as %q", tr.Provenance)
	}
	if !tr.ValidFrom.Equal(clock.Now()) || !tr.CreatedAt.Equal(clock.Now()) {
		t.Errorf("valid_from %v created_at %v, want both %v", tr.ValidFrom, tr.CreatedAt, clock.Now())
	}
	if !tr.Active() || tr.ID == 0 {
		t.Errorf("new triple: active=%v id=%d", tr.Active(), tr.ID)
	}
	got, err := s.Query(ctx, "auth-service ")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != tr {
		t.Errorf("Query = %+v, want [%+v]", got, tr)
	}
}

func TestAssertClosesPrevious(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	first := mustAssert(t, s, "auth-service", "deployed_version", "2.4.0")
	at := clock.Advance(time.Hour)
	second, err := s.Assert(ctx, kg.Assertion{Subject: "auth-service", Predicate: "deployed_version", Object: "2.4.1",
		Confidence: ptr(0.95), Provenance: "deploy-log-2026-05-10"})
	if err != nil {
		t.Fatal(err)
	}
	if !second.ValidFrom.Equal(at) {
		t.Errorf("new valid_from = %v, want %v", second.ValidFrom, at)
	}
	hist, err := s.History(ctx, "auth-service")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(hist), 2; got != want {
		t.Fatalf("history has %d triples, want %d", got, want)
	}
	if hist[0].ID != first.ID || hist[0].Active() || !hist[0].ValidTo.Equal(second.ValidFrom) {
		t.Errorf("previous triple = %+v, want closed at %v", hist[0], second.ValidFrom)
	}
	if hist[1] != second {
		t.Errorf("history[1] = %+v, want %+v", hist[1], second)
	}
	active, err := s.Query(ctx, "auth-service")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := objects(active), []string{"2.4.1"}; !slices.Equal(got, want) {
		t.Errorf("active objects = %q, want %q", got, want)
	}

	// Other predicates of the subject are untouched.
	mustAssert(t, s, "auth-service", "owner", "team-a")
	clock.Advance(time.Minute)
	mustAssert(t, s, "auth-service", "deployed_version", "2.5.0")
	active, _ = s.Query(ctx, "auth-service")
	if got, want := objects(active), []string{"2.5.0", "team-a"}; !slices.Equal(got, want) {
		t.Errorf("active objects = %q, want %q", got, want)
	}
}

func TestAssertIdenticalIsNoop(t *testing.T) {
	t.Parallel()
	s, clock, db := MustOpenStore(t)
	ctx := context.Background()
	first, err := s.Assert(ctx, kg.Assertion{Subject: "svc", Predicate: "lang", Object: "go", Confidence: ptr(0.8), Provenance: "readme"})
	if err != nil {
		t.Fatal(err)
	}
	before := dump(t, db)
	clock.Advance(time.Hour)
	again, err := s.Assert(ctx, kg.Assertion{Subject: "svc", Predicate: "lang", Object: " go ", Confidence: ptr(0.3), Provenance: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Errorf("re-assert returned %+v, want the existing %+v", again, first)
	}
	if after := dump(t, db); !slices.Equal(before, after) {
		t.Errorf("re-assert changed the table:\nbefore %q\nafter  %q", before, after)
	}

	// After a change, asserting the old object again is a real change.
	clock.Advance(time.Hour)
	mustAssert(t, s, "svc", "lang", "rust")
	clock.Advance(time.Hour)
	back := mustAssert(t, s, "svc", "lang", "go")
	if back.ID == first.ID {
		t.Errorf("asserting a closed object again reused triple %d", back.ID)
	}
	hist, _ := s.History(ctx, "svc")
	if got, want := objects(hist), []string{"go", "rust", "go"}; !slices.Equal(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}
}

func TestAssertExplicitValidFrom(t *testing.T) {
	t.Parallel()
	s, clock, db := MustOpenStore(t)
	ctx := context.Background()
	past := t0.Add(-48 * time.Hour)
	a, err := s.Assert(ctx, kg.Assertion{Subject: "s", Predicate: "p", Object: "a", ValidFrom: past.In(time.FixedZone("CEST", 2*3600))})
	if err != nil {
		t.Fatal(err)
	}
	if !a.ValidFrom.Equal(past) || a.ValidFrom.Location() != time.UTC {
		t.Errorf("valid_from = %v, want %v in UTC", a.ValidFrom, past)
	}
	if !a.CreatedAt.Equal(clock.Now()) {
		t.Errorf("created_at = %v, want %v", a.CreatedAt, clock.Now())
	}

	// An explicit valid_from before the active triple's is rejected.
	before := dump(t, db)
	_, err = s.Assert(ctx, kg.Assertion{Subject: "s", Predicate: "p", Object: "b", ValidFrom: past.Add(-time.Second)})
	var ve *kg.ValidationError
	if !errors.As(err, &ve) || ve.Field != "valid_from" {
		t.Fatalf("err = %v, want a valid_from ValidationError", err)
	}
	if after := dump(t, db); !slices.Equal(before, after) {
		t.Errorf("rejected assert changed the table")
	}

	// Equal to it is allowed: the old interval becomes empty.
	b, err := s.Assert(ctx, kg.Assertion{Subject: "s", Predicate: "p", Object: "b", ValidFrom: past})
	if err != nil {
		t.Fatal(err)
	}
	hist, _ := s.History(ctx, "s")
	if got, want := objects(hist), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("history = %q, want %q", got, want)
	}
	if !hist[0].ValidTo.Equal(b.ValidFrom) {
		t.Errorf("a closed at %v, want %v", hist[0].ValidTo, b.ValidFrom)
	}
}

func TestAssertClockSkewClamps(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	a := mustAssert(t, s, "s", "p", "a")
	clock.Set(t0.Add(-time.Hour)) // the clock steps backwards
	b := mustAssert(t, s, "s", "p", "b")
	if !b.ValidFrom.Equal(a.ValidFrom) {
		t.Errorf("b valid_from = %v, want clamped to %v", b.ValidFrom, a.ValidFrom)
	}
	hist, _ := s.History(ctx, "s")
	if len(hist) != 2 || !hist[0].ValidTo.Equal(a.ValidFrom) || !hist[1].Active() {
		t.Errorf("history = %+v", hist)
	}
	if r, err := s.Retract(ctx, "s", "p"); err != nil || !r.ValidTo.Equal(b.ValidFrom) {
		t.Errorf("Retract = %+v, %v; want closed at %v", r, err, b.ValidFrom)
	}
}

func TestRetract(t *testing.T) {
	t.Parallel()
	s, clock, db := MustOpenStore(t)
	ctx := context.Background()
	a := mustAssert(t, s, "svc", "status", "up")
	mustAssert(t, s, "svc", "owner", "ana")
	at := clock.Advance(time.Hour)

	r, err := s.Retract(ctx, " svc", "status ")
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != a.ID || !r.ValidTo.Equal(at) || r.Object != "up" {
		t.Errorf("Retract = %+v, want triple %d closed at %v", r, a.ID, at)
	}
	active, _ := s.Query(ctx, "svc")
	if got, want := objects(active), []string{"ana"}; !slices.Equal(got, want) {
		t.Errorf("active = %q, want %q", got, want)
	}
	hist, _ := s.History(ctx, "svc")
	if got, want := len(hist), 2; got != want {
		t.Errorf("history has %d triples, want %d", got, want)
	}

	before := dump(t, db)
	if _, err := s.Retract(ctx, "svc", "status"); !errors.Is(err, kg.ErrNotFound) {
		t.Errorf("second Retract err = %v, want ErrNotFound", err)
	}
	if _, err := s.Retract(ctx, "nobody", "status"); !errors.Is(err, kg.ErrNotFound) {
		t.Errorf("Retract of unknown subject err = %v, want ErrNotFound", err)
	}
	if _, err := s.Retract(ctx, "", "status"); !errors.Is(err, kg.ErrInvalid) {
		t.Errorf("Retract with empty subject err = %v, want ErrInvalid", err)
	}
	if after := dump(t, db); !slices.Equal(before, after) {
		t.Errorf("failed retracts changed the table")
	}

	// A retracted pair can be asserted again.
	clock.Advance(time.Hour)
	mustAssert(t, s, "svc", "status", "up")
	active, _ = s.Query(ctx, "svc")
	if got, want := objects(active), []string{"ana", "up"}; !slices.Equal(got, want) {
		t.Errorf("active = %q, want %q", got, want)
	}
}

func TestAssertCancelledContext(t *testing.T) {
	t.Parallel()
	s, _, db := MustOpenStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Assert(ctx, kg.Assertion{Subject: "s", Predicate: "p", Object: "o"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if rows := dump(t, db); len(rows) != 0 {
		t.Errorf("cancelled assert wrote %q", rows)
	}
}
