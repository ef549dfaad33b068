package palace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Facts are durable statements about the user (seed 004's Engram memories
// and seed 000's mem_save_fact). Each is a drawer of KindFact whose status
// walks the review queue:
//
//	pending  --approve-->  active  --horizon passes-->  stale
//	pending  --reject--->  rejected
//	active   --a conflicting fact is approved-->  superseded (SupersededBy = its drawer)
//	any      --forget--->  deleted
//
// Reject and forget hand out undo tokens. Fact-specific fields live in the
// drawer's meta under the Meta* keys below; the dreamer's staleness pass
// reads exactly these.

// Meta keys of fact drawers.
const (
	MetaEngramID      = "engram_id"      // "mem-0042", allocated per palace, never reused
	MetaFactKind      = "fact_kind"      // one of FactKinds
	MetaConfirmedAt   = "confirmed_at"   // RFC 3339 UTC: promotion or latest re-confirmation
	MetaConflictsWith = "conflicts_with" // engram id of the promoted fact this one contradicts
	MetaSupersedes    = "supersedes"     // engram id of the fact this one replaced on approval
	MetaFactSource    = "source"         // where the fact came from (face, transcript line)
)

// FactKind is one of seed 004's ten kinds of fact and its risk tier: tier 1
// may be promoted automatically when configured, tier 3 always waits for a
// person.
type FactKind struct {
	Name        string `json:"kind"`
	Description string `json:"description"`
	Tier        int    `json:"tier"`
}

// FactKinds lists the kinds in seed 004's order.
var FactKinds = []FactKind{
	{"preference", "Personal style and tool choices", 1},
	{"tooling", "Language, framework, and build-tool decisions", 1},
	{"project", "Project names, goals, and architectural choices", 1},
	{"infra", "Infrastructure topology, ports, hostnames", 1},
	{"identity", "Name, handles, pronouns, biographical facts", 3},
	{"fiscal", "Billing, pricing, budget, financial preferences", 3},
	{"people", "Contacts, teammates, relationships", 3},
	{"constraint", "Hard requirements and non-negotiable rules", 3},
	{"location", "Physical or geographic context", 3},
	{"health", "Medical, dietary, or wellness information", 3},
}

// DefaultFactKind is the kind of a fact staged without one.
const DefaultFactKind = "preference"

// DefaultFactConfidence is the confidence of a fact staged without one.
const DefaultFactConfidence = 0.6

// MaxFactBytes bounds one fact: a fact is a sentence, not a document.
const MaxFactBytes = 4096

// FactKindNames returns the ten kind names in order.
func FactKindNames() []string {
	out := make([]string, len(FactKinds))
	for i, k := range FactKinds {
		out[i] = k.Name
	}
	return out
}

// LookupFactKind finds a kind by name (case-insensitively).
func LookupFactKind(name string) (FactKind, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, k := range FactKinds {
		if k.Name == name {
			return k, true
		}
	}
	return FactKind{}, false
}

// CheckFactKind returns the canonical kind name, DefaultFactKind for "",
// or a CodeInvalid error that lists the valid kinds.
func CheckFactKind(name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return DefaultFactKind, nil
	}
	k, ok := LookupFactKind(name)
	if !ok {
		return "", Invalidf("unknown kind %q; valid kinds: %s", truncate(name, 40), strings.Join(FactKindNames(), ", "))
	}
	return k.Name, nil
}

// Fact is the review-queue view of a fact drawer.
type Fact struct {
	ID            string    `json:"id"` // engram id, e.g. mem-0042
	Fact          string    `json:"fact"`
	Kind          string    `json:"kind"`
	Confidence    float64   `json:"confidence"`
	Status        string    `json:"status"`
	Tier          int       `json:"tier"`
	DrawerID      string    `json:"drawer_id"`
	ConfirmedAt   time.Time `json:"confirmed_at,omitzero"`
	ConflictsWith string    `json:"conflicts_with,omitempty"`
	Supersedes    string    `json:"supersedes,omitempty"`
	SupersededBy  string    `json:"superseded_by,omitempty"` // engram id when known, else drawer id
	Source        string    `json:"source,omitempty"`
	Redactions    int       `json:"redactions,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// FormatFactID renders the engram id of number n: mem-0042.
func FormatFactID(n int64) string { return fmt.Sprintf("mem-%04d", n) }

// ParseFactID reads an engram id ("mem-0042", "MEM-42") and returns its
// number.
func ParseFactID(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 5 || !strings.EqualFold(s[:4], "mem-") {
		return 0, false
	}
	n, err := strconv.ParseInt(s[4:], 10, 64)
	if err != nil || n <= 0 || strings.ContainsAny(s[4:], "+-") {
		return 0, false
	}
	return n, true
}

// storedConfidence maps a fact's confidence to the drawer column. The
// drawer layer reads 0 as "unset" (and stores 1), so an explicit 0 is kept
// as a value that rounds back to 0.
func storedConfidence(c float64) float64 {
	if c == 0 {
		return 1e-9
	}
	return c
}

func factConfidence(c float64) float64 { return math.Round(c*1e6) / 1e6 }

// FactFromDrawer reads a fact drawer's review-queue view. SupersededBy is
// the drawer id of the successor; the palace's fact lookups replace it with
// the successor's engram id.
func FactFromDrawer(d *Drawer) Fact {
	f := Fact{
		ID:           metaString(d.Meta, MetaEngramID),
		Fact:         d.Content,
		Kind:         metaString(d.Meta, MetaFactKind),
		Confidence:   factConfidence(d.Confidence),
		Status:       d.Status,
		DrawerID:     d.ID,
		SupersededBy: d.SupersededBy,
		Source:       metaString(d.Meta, MetaFactSource),
		Redactions:   d.Redactions,
		CreatedAt:    d.CreatedAt,
		UpdatedAt:    d.UpdatedAt,
	}
	if f.ID == "" {
		f.ID = d.ID
	}
	if f.Kind == "" {
		f.Kind = DefaultFactKind
	}
	if k, ok := LookupFactKind(f.Kind); ok {
		f.Tier = k.Tier
	}
	f.ConfirmedAt = metaTime(d.Meta, MetaConfirmedAt)
	f.ConflictsWith = metaString(d.Meta, MetaConflictsWith)
	f.Supersedes = metaString(d.Meta, MetaSupersedes)
	return f
}

func metaString(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func metaTime(m map[string]any, key string) time.Time {
	t, err := time.Parse(time.RFC3339, metaString(m, key))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func formatMetaTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// confirmedAt is when a fact was last confirmed: its confirmed_at, else
// when it last changed.
func confirmedAt(d *Drawer) time.Time {
	if t := metaTime(d.Meta, MetaConfirmedAt); !t.IsZero() {
		return t
	}
	return d.UpdatedAt
}

// factDrawer finds a fact drawer by engram id or drawer id. Anything that
// is not a fact is reported as not found.
func (p *Palace) factDrawer(ctx context.Context, id string) (*Drawer, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, Invalidf("fact id is empty")
	}
	drawerID := id
	if n, ok := ParseFactID(id); ok {
		err := p.db.QueryRowContext(ctx, `SELECT drawer_id FROM fact_ids WHERE n = ?`, n).Scan(&drawerID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, NotFoundf("fact %s not found in palace %q", FormatFactID(n), p.name)
		}
		if err != nil {
			return nil, internal("find fact", err)
		}
	} else if strings.HasPrefix(strings.ToLower(id), "mem-") {
		return nil, Invalidf("bad fact id %q: want mem-NNNN", truncate(id, 40))
	}
	d, err := p.Get(ctx, drawerID)
	if errors.Is(err, ErrNotFound) {
		return nil, NotFoundf("fact %s not found in palace %q", truncate(id, 80), p.name)
	}
	if err != nil {
		return nil, err
	}
	if d.Kind != KindFact {
		return nil, NotFoundf("%s is a %s drawer, not a fact", truncate(id, 80), d.Kind)
	}
	return d, nil
}

// GetFact returns the fact with that engram id (or drawer id), whatever
// its status.
func (p *Palace) GetFact(ctx context.Context, id string) (Fact, error) {
	d, err := p.factDrawer(ctx, id)
	if err != nil {
		return Fact{}, err
	}
	return p.factView(ctx, d), nil
}

// factView is FactFromDrawer with SupersededBy resolved to an engram id.
func (p *Palace) factView(ctx context.Context, d *Drawer) Fact {
	f := FactFromDrawer(d)
	if f.SupersededBy != "" {
		if next, err := p.Get(ctx, f.SupersededBy); err == nil {
			if id := metaString(next.Meta, MetaEngramID); id != "" {
				f.SupersededBy = id
			}
		}
	}
	return f
}

// FactQuery selects facts for ListFacts.
type FactQuery struct {
	Statuses []string // default: pending; AnyStatus for all
	Kinds    []string // fact kinds; empty means all
	Limit    int      // default 100, at most 10000
	Offset   int
}

// ListFacts lists facts oldest first (the review queue's order) with the
// total that match before Limit and Offset.
func (p *Palace) ListFacts(ctx context.Context, q FactQuery) ([]Fact, int, error) {
	if len(q.Statuses) == 0 {
		q.Statuses = []string{StatusPending}
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	f := Filter{Kinds: []string{KindFact}, Statuses: q.Statuses}
	if len(q.Kinds) > 0 {
		kinds := make([]any, 0, len(q.Kinds))
		for _, k := range q.Kinds {
			name, err := CheckFactKind(k)
			if err != nil {
				return nil, 0, err
			}
			kinds = append(kinds, name)
		}
		f.Where = &Pred{Field: "meta." + MetaFactKind, Op: "in", Value: kinds}
	}
	ds, total, err := p.List(ctx, ListOptions{Filter: f, Order: "oldest", Limit: q.Limit, Offset: q.Offset})
	if err != nil {
		return nil, 0, err
	}
	out := make([]Fact, 0, len(ds))
	for _, d := range ds {
		out = append(out, p.factView(ctx, d))
	}
	return out, total, nil
}
