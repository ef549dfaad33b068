package kg_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
)

func TestQueryOrderAndEmpty(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	mustAssert(t, s, "svc", "zeta", "1")
	clock.Advance(time.Second)
	mustAssert(t, s, "svc", "alpha", "2")
	mustAssert(t, s, "svc", "mid", "3")
	mustAssert(t, s, "other", "alpha", "x")

	got, err := s.Query(ctx, "svc")
	if err != nil {
		t.Fatal(err)
	}
	var preds []string
	for _, tr := range got {
		preds = append(preds, tr.Predicate)
	}
	if want := []string{"alpha", "mid", "zeta"}; !slices.Equal(preds, want) {
		t.Errorf("predicates = %q, want %q", preds, want)
	}

	none, err := s.Query(ctx, "nobody")
	if err != nil {
		t.Fatal(err)
	}
	if none == nil || len(none) != 0 {
		t.Errorf("Query(unknown) = %#v, want an empty non-nil slice", none)
	}
	if _, err := s.Query(ctx, " "); !errors.Is(err, kg.ErrInvalid) {
		t.Errorf("Query(blank) err = %v, want ErrInvalid", err)
	}
}

func TestAsOf(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	mustAssert(t, s, "svc", "version", "1") // [t0, t0+1h)
	mustAssert(t, s, "svc", "owner", "ana") // [t0, ...)
	clock.Advance(time.Hour)
	mustAssert(t, s, "svc", "version", "2") // [t0+1h, t0+2h)
	clock.Advance(time.Hour)
	mustAssert(t, s, "svc", "version", "3") // [t0+2h, t0+3h)
	clock.Advance(time.Hour)
	if _, err := s.Retract(ctx, "svc", "version"); err != nil { // closed at t0+3h
		t.Fatal(err)
	}

	tests := []struct {
		at   time.Time
		want []string // objects ordered by predicate
	}{
		{t0.Add(-time.Nanosecond), nil},
		{t0, []string{"ana", "1"}},
		{t0.Add(time.Hour - time.Nanosecond), []string{"ana", "1"}},
		{t0.Add(time.Hour), []string{"ana", "2"}}, // half-open: the new triple only
		{t0.Add(150 * time.Minute), []string{"ana", "3"}},
		{t0.Add(3 * time.Hour), []string{"ana"}},
		{t0.Add(1000 * time.Hour), []string{"ana"}},
	}
	for _, tt := range tests {
		t.Run(tt.at.Format(time.RFC3339Nano), func(t *testing.T) {
			got, err := s.AsOf(ctx, "svc", tt.at.In(time.FixedZone("X", -7*3600)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(objects(got), tt.want) {
				t.Errorf("AsOf = %q, want %q", objects(got), tt.want)
			}
			for _, tr := range got {
				if !tr.ValidAt(tt.at) {
					t.Errorf("%+v is not ValidAt %v", tr, tt.at)
				}
			}
		})
	}
	if _, err := s.AsOf(ctx, "svc", time.Time{}); !errors.Is(err, kg.ErrInvalid) {
		t.Errorf("AsOf(zero) err = %v, want ErrInvalid", err)
	}
}

func TestHistory(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	var want []string
	for i := range 5 {
		obj := fmt.Sprint("v", i)
		mustAssert(t, s, "svc", "version", obj)
		want = append(want, obj)
		if i == 2 {
			mustAssert(t, s, "svc", "owner", "ana")
			want = append(want, "ana")
		}
		clock.Advance(time.Minute)
	}
	hist, err := s.History(ctx, "svc")
	if err != nil {
		t.Fatal(err)
	}
	if got := objects(hist); !slices.Equal(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}
	var active int
	for i, tr := range hist {
		if tr.Active() {
			active++
		}
		if i > 0 && tr.ValidFrom.Before(hist[i-1].ValidFrom) {
			t.Errorf("history out of order at %d", i)
		}
	}
	if got, want := active, 2; got != want {
		t.Errorf("%d active triples in history, want %d", got, want)
	}
}

func TestQueryObject(t *testing.T) {
	t.Parallel()
	s, clock, _ := MustOpenStore(t)
	ctx := context.Background()
	mustAssert(t, s, "bob", "works_at", "acme")
	mustAssert(t, s, "ana", "works_at", "acme")
	mustAssert(t, s, "ana", "customer_of", "acme")
	mustAssert(t, s, "carl", "works_at", "acme")
	clock.Advance(time.Hour)
	mustAssert(t, s, "carl", "works_at", "globex") // no longer points at acme

	got, err := s.QueryObject(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, tr := range got {
		pairs = append(pairs, tr.Subject+"."+tr.Predicate)
	}
	if want := []string{"ana.customer_of", "ana.works_at", "bob.works_at"}; !slices.Equal(pairs, want) {
		t.Errorf("QueryObject = %q, want %q", pairs, want)
	}
	if _, err := s.QueryObject(ctx, ""); !errors.Is(err, kg.ErrInvalid) {
		t.Errorf("QueryObject(empty) err = %v, want ErrInvalid", err)
	}
}

func TestSubjects(t *testing.T) {
	t.Parallel()
	s, _, _ := MustOpenStore(t)
	ctx := context.Background()
	mustAssert(t, s, "auth-service", "version", "1")
	mustAssert(t, s, "auth-service", "version", "2")
	mustAssert(t, s, "auth-service", "owner", "ana")
	mustAssert(t, s, "auth-worker", "owner", "bob")
	mustAssert(t, s, "Auth-upper", "owner", "bob")
	mustAssert(t, s, "billing", "owner", "carl")
	mustAssert(t, s, "retired", "owner", "dan")
	if _, err := s.Retract(ctx, "retired", "owner"); err != nil {
		t.Fatal(err)
	}
	mustAssert(t, s, "日本", "capital", "東京")
	mustAssert(t, s, "日本語", "script", "kana")

	tests := []struct {
		prefix string
		limit  int
		want   []kg.SubjectSummary
	}{
		{"auth", 0, []kg.SubjectSummary{{"auth-service", 2, 3}, {"auth-worker", 1, 1}}},
		{"auth-s", 10, []kg.SubjectSummary{{"auth-service", 2, 3}}},
		{"", 3, []kg.SubjectSummary{{"Auth-upper", 1, 1}, {"auth-service", 2, 3}, {"auth-worker", 1, 1}}},
		{"re", 0, []kg.SubjectSummary{{"retired", 0, 1}}},
		{"日本", 0, []kg.SubjectSummary{{"日本", 1, 1}, {"日本語", 1, 1}}},
		{"zzz", 0, []kg.SubjectSummary{}},
		{"%", 0, []kg.SubjectSummary{}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q/%d", tt.prefix, tt.limit), func(t *testing.T) {
			got, err := s.Subjects(ctx, tt.prefix, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Subjects = %+v, want %+v", got, tt.want)
			}
		})
	}
	all, err := s.Subjects(ctx, "", -1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(all), 7; got != want {
		t.Errorf("Subjects(all) has %d rows, want %d", got, want)
	}
	if _, err := s.Subjects(ctx, "\xff", 0); !errors.Is(err, kg.ErrInvalid) {
		t.Errorf("Subjects(invalid prefix) err = %v, want ErrInvalid", err)
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	s, _, _ := MustOpenStore(t)
	ctx := context.Background()
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st != (kg.Stats{}) {
		t.Errorf("empty Stats = %+v", st)
	}
	mustAssert(t, s, "a", "p", "1")
	mustAssert(t, s, "a", "p", "2")
	mustAssert(t, s, "a", "q", "1")
	mustAssert(t, s, "b", "p", "1")
	mustAssert(t, s, "c", "p", "1")
	if _, err := s.Retract(ctx, "c", "p"); err != nil {
		t.Fatal(err)
	}
	st, err = s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (kg.Stats{Active: 3, Total: 5, Subjects: 2}); st != want {
		t.Errorf("Stats = %+v, want %+v", st, want)
	}
}
