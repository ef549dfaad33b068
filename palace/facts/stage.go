package facts

import (
	"context"
	"sync"

	"github.com/loci-mem/loci/palace"
)

// Input is a fact to stage.
type Input struct {
	Text       string
	Kind       string  // one of FactKinds; "" means DefaultKind
	Confidence float64 // in [0,1]; use DefaultFactConfidence when unsure
	Source     string  // provenance: "mcp:remember", "harvest:<file>:<line>", ...
	// NoAutoPromote keeps the fact pending even when auto-promotion is on.
	NoAutoPromote bool
}

// Outcomes of Stage.
const (
	OutcomeStaged      = "staged"      // new fact, pending review
	OutcomePromoted    = "promoted"    // new fact, promoted at once (tier 1, autopromote)
	OutcomeDuplicate   = "duplicate"   // an equal fact exists (pending or rejected); nothing changed
	OutcomeReconfirmed = "reconfirmed" // an equal promoted or stale fact exists; confirmed_at refreshed
)

// StageResult is what Stage did.
type StageResult struct {
	Outcome string `json:"outcome"`
	Fact    Fact   `json:"fact"`
	// Conflict is the promoted fact the new one contradicts (same subject,
	// a differing date, email, amount, id or version). The new fact waits
	// for review and supersedes it when approved.
	Conflict      *Fact  `json:"conflict,omitempty"`
	ConflictValue string `json:"conflict_value,omitempty"` // the value type that differs
}

// stageLocks serialises Stage per palace within a process, so two
// concurrent stagings of one fact do not both pass the duplicate check.
// (Across processes a duplicate can still slip through a race; the
// dreamer's consolidation catches it.)
var stageLocks sync.Map // *palace.Palace -> *sync.Mutex

func (q Queue) stageLock() *sync.Mutex {
	m, _ := stageLocks.LoadOrStore(q.p, &sync.Mutex{})
	return m.(*sync.Mutex)
}

// Stage runs write hygiene on a fact and stores it in the review
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
func (q Queue) Stage(ctx context.Context, in Input) (StageResult, error) {
	text := normalizeFactText(in.Text)
	if text == "" {
		return StageResult{}, palace.Invalidf("fact is empty")
	}
	if len(text) > MaxBytes {
		return StageResult{}, palace.Invalidf("fact is %d bytes; the limit is %d", len(text), MaxBytes)
	}
	kind, err := CheckKind(in.Kind)
	if err != nil {
		return StageResult{}, err
	}
	if err := palace.CheckUnit("confidence", in.Confidence); err != nil {
		return StageResult{}, err
	}
	settings, err := q.p.Registry().Settings()
	if err != nil {
		return StageResult{}, err
	}
	text, redactions := palace.Scrub(text)
	source, k := palace.Scrub(in.Source)
	redactions += k

	mu := q.stageLock()
	mu.Lock()
	defer mu.Unlock()

	existing, rel, conflictKind, err := q.findRelated(ctx, text)
	if err != nil {
		return StageResult{}, err
	}
	if rel == relDuplicate {
		return q.restated(ctx, existing, in.Confidence)
	}
	now := q.p.Now().UTC()
	meta := map[string]any{MetaFactKind: kind}
	if source != "" {
		meta[MetaFactSource] = source
	}
	status := palace.StatusPending
	fk, _ := LookupKind(kind)
	var res StageResult
	if rel == relConflict {
		f := q.view(ctx, existing)
		res.Conflict, res.ConflictValue = &f, conflictKind
		meta[MetaConflictsWith] = f.ID
	} else if settings.AutoPromote && fk.Tier == 1 && !in.NoAutoPromote {
		status = palace.StatusActive
		meta[MetaConfirmedAt] = formatMetaTime(now)
	}
	d := &palace.Drawer{
		Kind:       palace.KindFact,
		Content:    text,
		Keywords:   kind,
		Tags:       []string{kind},
		Confidence: storedConfidence(in.Confidence),
		Status:     status,
		Redactions: redactions,
		Meta:       meta,
	}
	// The fact's number is allocated in the transaction that stores it: a
	// failed write hands out no number and stores no fact without one.
	if err := q.p.Prepare(d); err != nil {
		return StageResult{}, err
	}
	vec := q.p.Embed(ctx, []*palace.Drawer{d})[0]
	err = q.p.Write(ctx, func(t *palace.Tx) error {
		n, err := t.Store().Facts().Allocate(ctx, d.ID)
		if err != nil {
			return palace.StoreError("allocate fact id", err)
		}
		d.Meta[palace.MetaEngramID] = palace.FormatFactID(n)
		return t.Insert(d, vec, nil)
	})
	if err != nil {
		return StageResult{}, err
	}
	res.Outcome = OutcomeStaged
	if status == palace.StatusActive {
		res.Outcome = OutcomePromoted
	}
	res.Fact = FromDrawer(d)
	return res, nil
}

// statusRank orders the statuses a duplicate may have: the fact that
// counts most wins when a new fact duplicates several.
var statusRank = map[string]int{palace.StatusActive: 4, palace.StatusStale: 3, palace.StatusPending: 2, palace.StatusRejected: 1}

// findRelated asks the shared search engine for facts resembling text and
// returns the closest duplicate, else the first promoted fact it
// conflicts with.
func (q Queue) findRelated(ctx context.Context, text string) (*palace.Drawer, factRelation, string, error) {
	hits, err := q.p.Search(ctx, palace.SearchRequest{
		Query: text, K: 25, NoAccess: true,
		Filter: palace.Filter{Kinds: []string{palace.KindFact},
			Statuses: []string{palace.StatusActive, palace.StatusStale, palace.StatusPending, palace.StatusRejected}},
	})
	if err != nil {
		return nil, relNone, "", err
	}
	shape := shapeOf(text)
	var dup, conflict *palace.Drawer
	conflictKind := ""
	for _, h := range hits {
		rel, kind := relate(shape, shapeOf(h.Drawer.Content))
		switch {
		case rel == relDuplicate:
			if dup == nil || statusRank[h.Drawer.Status] > statusRank[dup.Status] {
				dup = h.Drawer
			}
		case rel == relConflict && conflict == nil && h.Drawer.Status == palace.StatusActive:
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
func (q Queue) restated(ctx context.Context, d *palace.Drawer, confidence float64) (StageResult, error) {
	switch d.Status {
	case palace.StatusActive, palace.StatusStale:
		now := q.p.Now().UTC()
		nd, err := q.p.Update(ctx, d.ID, func(x *palace.Drawer) error {
			if x.Meta == nil {
				x.Meta = map[string]any{}
			}
			x.Meta[MetaConfirmedAt] = formatMetaTime(now)
			x.Status = palace.StatusActive
			if confidence > x.Confidence {
				x.Confidence = storedConfidence(confidence)
			}
			return nil
		})
		if err != nil {
			return StageResult{}, err
		}
		return StageResult{Outcome: OutcomeReconfirmed, Fact: q.view(ctx, nd)}, nil
	default:
		return StageResult{Outcome: OutcomeDuplicate, Fact: q.view(ctx, d)}, nil
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
		if r.Fact.Status == palace.StatusPending {
			note = " (already pending review)"
		}
	case OutcomeStaged:
		if r.Conflict != nil {
			note = " (conflicts with " + r.Conflict.ID + ": " + r.Conflict.Fact + "; approving it supersedes " + r.Conflict.ID + ")"
		}
	}
	return verb + " " + r.Fact.ID + ": [" + r.Fact.Kind + "] " + r.Fact.Fact + note
}
