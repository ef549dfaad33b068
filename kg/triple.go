package kg

import (
	"encoding/json"
	"fmt"
	"time"
)

// Triple is one subject–predicate–object fact with its validity interval
// [ValidFrom, ValidTo). A zero ValidTo means the triple is active.
type Triple struct {
	ID         int64
	Subject    string
	Predicate  string
	Object     string
	ValidFrom  time.Time // UTC
	ValidTo    time.Time // UTC; zero while active
	Confidence float64   // in [0, 1]
	Provenance string    // free-form source; "" means none (JSON null)
	CreatedAt  time.Time // UTC; when this row was written
}

// Active reports whether the triple is currently in force (valid_to NULL).
func (t Triple) Active() bool { return t.ValidTo.IsZero() }

// ValidAt reports whether at lies in [ValidFrom, ValidTo).
func (t Triple) ValidAt(at time.Time) bool {
	return !at.Before(t.ValidFrom) && (t.Active() || at.Before(t.ValidTo))
}

// tripleJSON is seed 003's triple object plus id. Times are RFC 3339 UTC
// (RFC3339Nano, which prints whole seconds as "2026-05-10T14:32:00Z").
type tripleJSON struct {
	ID         int64   `json:"id"`
	Subject    string  `json:"subject"`
	Predicate  string  `json:"predicate"`
	Object     string  `json:"object"`
	ValidFrom  string  `json:"valid_from"`
	ValidTo    *string `json:"valid_to"`
	Confidence float64 `json:"confidence"`
	Provenance *string `json:"provenance"`
}

// MarshalJSON renders seed 003's triple fields (subject, predicate, object,
// valid_from, valid_to or null, confidence, provenance or null) plus id.
func (t Triple) MarshalJSON() ([]byte, error) {
	j := tripleJSON{
		ID:         t.ID,
		Subject:    t.Subject,
		Predicate:  t.Predicate,
		Object:     t.Object,
		ValidFrom:  RFC3339(t.ValidFrom),
		Confidence: t.Confidence,
	}
	if !t.ValidTo.IsZero() {
		v := RFC3339(t.ValidTo)
		j.ValidTo = &v
	}
	if t.Provenance != "" {
		p := t.Provenance
		j.Provenance = &p
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, so clients of the faces can
// decode triples. CreatedAt is not part of the JSON and stays zero.
func (t *Triple) UnmarshalJSON(b []byte) error {
	var j tripleJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	from, err := time.Parse(time.RFC3339Nano, j.ValidFrom)
	if err != nil {
		return fmt.Errorf("valid_from: %w", err)
	}
	var to time.Time
	if j.ValidTo != nil {
		if to, err = time.Parse(time.RFC3339Nano, *j.ValidTo); err != nil {
			return fmt.Errorf("valid_to: %w", err)
		}
		to = to.UTC()
	}
	*t = Triple{
		ID:         j.ID,
		Subject:    j.Subject,
		Predicate:  j.Predicate,
		Object:     j.Object,
		ValidFrom:  from.UTC(),
		ValidTo:    to,
		Confidence: j.Confidence,
	}
	if j.Provenance != nil {
		t.Provenance = *j.Provenance
	}
	return nil
}

// RFC3339 renders t the way kg's JSON does: RFC 3339 in UTC, with
// fractional seconds only when present.
func RFC3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// storeLayout is the stored form of every time: fixed width (years
// 0001–9999, nine fractional digits, always "Z"), so that string order is
// time order in SQL.
const storeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(storeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}
