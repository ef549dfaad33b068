package facts

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
)

// Meta keys of fact drawers (the engram id is palace.MetaEngramID: the
// palace resolves engram ids itself, see palace.Palace.Lookup).
const (
	MetaFactKind      = palace.MetaFactKind // one of Kinds
	MetaConfirmedAt   = "confirmed_at"      // RFC 3339 UTC: promotion or latest re-confirmation
	MetaConflictsWith = "conflicts_with"    // engram id of the promoted fact this one contradicts
	MetaSupersedes    = "supersedes"        // engram id of the fact this one replaced on approval
	MetaFactSource    = "source"            // where the fact came from (face, transcript line)
)

// Kind is one of seed 004's ten kinds of fact and its risk tier: tier 1
// may be promoted automatically when configured, tier 3 always waits for a
// person.
type Kind struct {
	Name        string `json:"kind"`
	Description string `json:"description"`
	Tier        int    `json:"tier"`
}

// Kinds lists the kinds in seed 004's order.
var Kinds = []Kind{
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

// DefaultKind is the kind of a fact staged without one.
const DefaultKind = "preference"

// DefaultConfidence is the confidence of a fact staged without one.
const DefaultConfidence = 0.6

// MaxBytes bounds one fact: a fact is a sentence, not a document.
const MaxBytes = 4096

// KindNames returns the ten kind names in order.
func KindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = k.Name
	}
	return out
}

// LookupKind finds a kind by name (case-insensitively).
func LookupKind(name string) (Kind, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// CheckKind returns the canonical kind name, DefaultKind for "",
// or a CodeInvalid error that lists the valid kinds.
func CheckKind(name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return DefaultKind, nil
	}
	k, ok := LookupKind(name)
	if !ok {
		return "", palace.Invalidf("unknown kind %q; valid kinds: %s", palace.Truncate(name, 40), strings.Join(KindNames(), ", "))
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

// FromDrawer reads a fact drawer's review-queue view. SupersededBy is
// the drawer id of the successor; the palace's fact lookups replace it with
// the successor's engram id.
func FromDrawer(d *palace.Drawer) Fact {
	f := Fact{
		ID:           metaString(d.Meta, palace.MetaEngramID),
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
		f.Kind = DefaultKind
	}
	if k, ok := LookupKind(f.Kind); ok {
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
func confirmedAt(d *palace.Drawer) time.Time {
	if t := metaTime(d.Meta, MetaConfirmedAt); !t.IsZero() {
		return t
	}
	return d.UpdatedAt
}

// Queue is the facts of one palace and their review queue.
type Queue struct{ p *palace.Palace }

// Of returns the facts of p.
func Of(p *palace.Palace) Queue { return Queue{p} }

// drawer finds a fact drawer by engram id or drawer id. Anything that is
// not a fact is reported as not found.
func (q Queue) drawer(ctx context.Context, id string) (*palace.Drawer, error) {
	d, err := q.p.Lookup(ctx, id)
	if errors.Is(err, palace.ErrNotFound) {
		return nil, palace.NotFoundf("fact %s not found in palace %q", palace.Truncate(strings.TrimSpace(id), 80), q.p.Name())
	}
	if err != nil {
		return nil, err
	}
	if d.Kind != palace.KindFact {
		return nil, palace.NotFoundf("%s is a %s drawer, not a fact", palace.Truncate(id, 80), d.Kind)
	}
	return d, nil
}

// Get returns the fact with that engram id (or drawer id), whatever its
// status.
func (q Queue) Get(ctx context.Context, id string) (Fact, error) {
	d, err := q.drawer(ctx, id)
	if err != nil {
		return Fact{}, err
	}
	return q.view(ctx, d), nil
}

// view is FromDrawer with SupersededBy resolved to an engram id.
func (q Queue) view(ctx context.Context, d *palace.Drawer) Fact {
	f := FromDrawer(d)
	if f.SupersededBy != "" {
		if next, err := q.p.Get(ctx, f.SupersededBy); err == nil {
			if id := metaString(next.Meta, palace.MetaEngramID); id != "" {
				f.SupersededBy = id
			}
		}
	}
	return f
}

// Query selects facts for List.
type Query struct {
	Statuses []string // default: pending; palace.AnyStatus for all
	Kinds    []string // fact kinds; empty means all
	Limit    int      // default 100, at most palace.MaxListLimit
	Offset   int
}

// List lists facts oldest first (the review queue's order) with the total
// that match before Limit and Offset.
func (q Queue) List(ctx context.Context, fq Query) ([]Fact, int, error) {
	if len(fq.Statuses) == 0 {
		fq.Statuses = []string{palace.StatusPending}
	}
	if fq.Limit == 0 {
		fq.Limit = 100
	}
	f := palace.Filter{Kinds: []string{palace.KindFact}, Statuses: fq.Statuses}
	if len(fq.Kinds) > 0 {
		kinds := make([]any, 0, len(fq.Kinds))
		for _, k := range fq.Kinds {
			name, err := CheckKind(k)
			if err != nil {
				return nil, 0, err
			}
			kinds = append(kinds, name)
		}
		f.Where = &palace.Pred{Field: "meta." + MetaFactKind, Op: "in", Value: kinds}
	}
	ds, total, err := q.p.List(ctx, palace.ListOptions{Filter: f, Order: "oldest", Limit: fq.Limit, Offset: fq.Offset})
	if err != nil {
		return nil, 0, err
	}
	out := make([]Fact, 0, len(ds))
	for _, d := range ds {
		out = append(out, q.view(ctx, d))
	}
	return out, total, nil
}
