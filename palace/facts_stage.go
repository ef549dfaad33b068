package palace

import (
	"context"
	"math"
	"sync"

	"github.com/google/uuid"
	"github.com/loci-mem/loci/palace/redact"
)

// FactInput is a fact to stage.
type FactInput struct {
	Text       string
	Kind       string  // one of FactKinds; "" means DefaultFactKind
	Confidence float64 // in [0,1]; use DefaultFactConfidence when unsure
	Source     string  // provenance: "mcp:remember", "harvest:<file>:<line>", ...
	// NoAutoPromote keeps the fact pending even when auto-promotion is on.
	NoAutoPromote bool
}

// Outcomes of StageFact.
const (
	OutcomeStaged      = "staged"      // new fact, pending review
	OutcomePromoted    = "promoted"    // new fact, promoted at once (tier 1, autopromote)
	OutcomeDuplicate   = "duplicate"   // an equal fact exists (pending or rejected); nothing changed
	OutcomeReconfirmed = "reconfirmed" // an equal promoted or stale fact exists; confirmed_at refreshed
)

// StageResult is what StageFact did.
type StageResult struct {
	Outcome string `json:"outcome"`
	Fact    Fact   `json:"fact"`
	// Conflict is the promoted fact the new one contradicts (same subject,
	// a differing date, email, amount, id or version). The new fact waits
	// for review and supersedes it when approved.
	Conflict      *Fact  `json:"conflict,omitempty"`
	ConflictValue string `json:"conflict_value,omitempty"` // the value type that differs
}

// stageLocks serialises StageFact per palace directory within a process,
// so two concurrent stagings of one fact do not both pass the duplicate
// check. (Across processes a duplicate can still slip through a race; the
// dreamer's consolidation catches it.)
var stageLocks sync.Map // dir -> *sync.Mutex

func (p *Palace) stageLock() *sync.Mutex {
	m, _ := stageLocks.LoadOrStore(p.dir, &sync.Mutex{})
	return m.(*sync.Mutex)
}

// StageFact runs write hygiene on a fact and stores it in the review
// queue:
//
//   - a near-duplicate of an existing fact is not stored twice: a promoted
//     or stale one is re-confirmed (confirmed_at refreshed, stale back to
//     active), a pending or rejected one is reported unchanged;
//   - a fact contradicting a promoted one is staged with conflicts_with
//     set, and never auto-promoted;
//   - otherwise the fact is staged as pending, or promoted at once when
//     auto-promotion is configured and its kind is tier 1.
//
// Secrets are redacted before comparing and storing. Bad input (empty or
// over-long text, unknown kind, confidence outside [0,1]) fails with
// CodeInvalid and stores nothing.
func (p *Palace) StageFact(ctx context.Context, in FactInput) (StageResult, error) {
	text := normalizeFactText(in.Text)
	if text == "" {
		return StageResult{}, Invalidf("fact is empty")
	}
	if len(text) > MaxFactBytes {
		return StageResult{}, Invalidf("fact is %d bytes; the limit is %d", len(text), MaxFactBytes)
	}
	kind, err := CheckFactKind(in.Kind)
	if err != nil {
		return StageResult{}, err
	}
	if math.IsNaN(in.Confidence) || in.Confidence < 0 || in.Confidence > 1 {
		return StageResult{}, Invalidf("confidence must be between 0 and 1, got %v", in.Confidence)
	}
	settings, err := p.reg.Settings()
	if err != nil {
		return StageResult{}, err
	}
	text, redactions := redact.String(text)
	source, k := redact.String(in.Source)
	redactions += k

	mu := p.stageLock()
	mu.Lock()
	defer mu.Unlock()

	existing, rel, conflictKind, err := p.findRelated(ctx, text)
	if err != nil {
		return StageResult{}, err
	}
	if rel == relDuplicate {
		return p.restated(ctx, existing, in.Confidence)
	}
	now := p.now().UTC()
	meta := map[string]any{MetaFactKind: kind}
	if source != "" {
		meta[MetaFactSource] = source
	}
	status := StatusPending
	fk, _ := LookupFactKind(kind)
	var res StageResult
	if rel == relConflict {
		f := p.factView(ctx, existing)
		res.Conflict, res.ConflictValue = &f, conflictKind
		meta[MetaConflictsWith] = f.ID
	} else if settings.AutoPromote && fk.Tier == 1 && !in.NoAutoPromote {
		status = StatusActive
		meta[MetaConfirmedAt] = formatMetaTime(now)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return StageResult{}, internal("make drawer id", err)
	}
	n, err := p.allocFactID(ctx, id.String())
	if err != nil {
		return StageResult{}, err
	}
	meta[MetaEngramID] = FormatFactID(n)
	d := &Drawer{
		ID:         id.String(),
		Kind:       KindFact,
		Content:    text,
		Keywords:   kind,
		Tags:       []string{kind},
		Confidence: storedConfidence(in.Confidence),
		Status:     status,
		Redactions: redactions,
		Meta:       meta,
	}
	if err := p.Add(ctx, d); err != nil {
		return StageResult{}, err
	}
	res.Outcome = OutcomeStaged
	if status == StatusActive {
		res.Outcome = OutcomePromoted
	}
	res.Fact = FactFromDrawer(d)
	return res, nil
}

// allocFactID hands out the next engram number for drawerID.
func (p *Palace) allocFactID(ctx context.Context, drawerID string) (int64, error) {
	res, err := p.db.ExecContext(ctx, `INSERT INTO fact_ids(drawer_id) VALUES (?)`, drawerID)
	if err != nil {
		return 0, internal("allocate fact id", err)
	}
	n, err := res.LastInsertId()
	return n, internal("allocate fact id", err)
}

// statusRank orders the statuses a duplicate may have: the fact that
// counts most wins when a new fact duplicates several.
var statusRank = map[string]int{StatusActive: 4, StatusStale: 3, StatusPending: 2, StatusRejected: 1}

// findRelated asks the shared search engine for facts resembling text and
// returns the closest duplicate, else the first promoted fact it
// conflicts with.
func (p *Palace) findRelated(ctx context.Context, text string) (*Drawer, factRelation, string, error) {
	hits, err := p.Search(ctx, SearchRequest{
		Query: text, K: 25, NoAccess: true,
		Filter: Filter{Kinds: []string{KindFact},
			Statuses: []string{StatusActive, StatusStale, StatusPending, StatusRejected}},
	})
	if err != nil {
		return nil, relNone, "", err
	}
	shape := shapeOf(text)
	var dup, conflict *Drawer
	conflictKind := ""
	for _, h := range hits {
		rel, kind := relate(shape, shapeOf(h.Drawer.Content))
		switch {
		case rel == relDuplicate:
			if dup == nil || statusRank[h.Drawer.Status] > statusRank[dup.Status] {
				dup = h.Drawer
			}
		case rel == relConflict && conflict == nil && h.Drawer.Status == StatusActive:
			conflict, conflictKind = h.Drawer, kind
		}
	}
	switch {
	case dup != nil:
		return dup, relDuplicate, "", nil
	case conflict != nil:
		return conflict, relConflict, conflictKind, nil
	}
	return nil, relNone, "", nil
}

// restated handles a fact stated again: promoted and stale facts are
// re-confirmed (and keep the higher confidence); pending and rejected ones
// are left for the person reviewing them.
func (p *Palace) restated(ctx context.Context, d *Drawer, confidence float64) (StageResult, error) {
	switch d.Status {
	case StatusActive, StatusStale:
		now := p.now().UTC()
		nd, err := p.Update(ctx, d.ID, func(x *Drawer) error {
			if x.Meta == nil {
				x.Meta = map[string]any{}
			}
			x.Meta[MetaConfirmedAt] = formatMetaTime(now)
			x.Status = StatusActive
			if confidence > x.Confidence {
				x.Confidence = storedConfidence(confidence)
			}
			return nil
		})
		if err != nil {
			return StageResult{}, err
		}
		return StageResult{Outcome: OutcomeReconfirmed, Fact: p.factView(ctx, nd)}, nil
	default:
		return StageResult{Outcome: OutcomeDuplicate, Fact: p.factView(ctx, d)}, nil
	}
}

// Line renders the result the way seed 004's remember answers:
// "staged mem-0042: [tooling] I prefer pnpm over npm". The first word says
// what happened (staged, promoted, reconfirmed, unchanged); a conflict or
// duplicate adds a note.
func (r StageResult) Line() string {
	verb, note := r.Outcome, ""
	switch r.Outcome {
	case OutcomeDuplicate:
		verb = "unchanged"
		note = " (already " + r.Fact.Status + ")"
		if r.Fact.Status == StatusPending {
			note = " (already pending review)"
		}
	case OutcomeStaged:
		if r.Conflict != nil {
			note = " (conflicts with " + r.Conflict.ID + ": " + r.Conflict.Fact + "; approving it supersedes " + r.Conflict.ID + ")"
		}
	}
	return verb + " " + r.Fact.ID + ": [" + r.Fact.Kind + "] " + r.Fact.Fact + note
}
