package dreamlog

import (
	"context"
	"encoding/json"
	"errors"
	"math"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/store"
)

// Ops recorded for dream changes.
const (
	OpSupersede  = "supersede"  // a near-duplicate now points at its survivor
	OpProvenance = "provenance" // a survivor records what merged into it
	OpDecay      = "decay"      // importance decayed (or restored for a pinned drawer)
	OpStale      = "stale"      // a fact past its horizon went stale
	OpCreate     = "create"     // the dreamer made a drawer (an agent skill)
	OpUpdate     = "update"     // the dreamer rewrote a drawer it made
)

// Tx is the write transaction of one dreamer pass: every change goes
// through it, is recorded for undo, and becomes visible only on Commit.
// Until then nothing of the pass is stored; a cancelled context rolls it
// back. A Tx is not safe for concurrent use.
type Tx struct {
	t    *palace.Tx
	run  string
	pass string
	n    int
	done bool
}

// Begin opens the transaction of one pass of run runID (recorded with
// BeginRun). When owner is not empty the transaction fails with
// ErrLeaseLost unless owner holds the palace's lease (checked inside the
// transaction, so it holds until Commit).
func (j Journal) Begin(ctx context.Context, runID, pass, owner string) (*Tx, error) {
	t, err := j.p.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if owner != "" {
		l, ok, err := t.Store().Dream().Lease(ctx)
		if err != nil {
			t.Rollback()
			return nil, storeErr("begin dream pass", err)
		}
		if !ok || l.Owner != owner {
			t.Rollback()
			return nil, errLeaseLost
		}
	}
	return &Tx{t: t, run: runID, pass: pass}, nil
}

// Changes is the number of changes recorded so far.
func (t *Tx) Changes() int { return t.n }

// Commit stores every change of the pass at once.
func (t *Tx) Commit() error {
	if t.done {
		return palace.Conflictf("commit dream pass: transaction already ended")
	}
	t.done = true
	return t.t.Commit()
}

// Rollback discards the pass. It is safe after Commit.
func (t *Tx) Rollback() {
	if !t.done {
		t.done = true
		t.t.Rollback()
	}
}

// Patch lists the fields a dream change sets; nil fields stay as they
// are. Meta, when not nil, replaces the whole meta object.
type Patch struct {
	Status       *string
	SupersededBy *string
	Importance   *float64
	Confidence   *float64
	Tags         []string
	Meta         map[string]any
	Content      *string
	Keywords     *string
}

// Patch applies p to the drawer the planner read (d) and records the
// change under op. It does nothing and returns false when the drawer
// changed since it was read (its seq differs) or when the patch changes
// nothing. A patch touching only importance or confidence is a quiet
// change (no change-log event, like access statistics); any other change
// is logged and gives the drawer a new seq.
func (t *Tx) Patch(op string, d *palace.Drawer, p Patch) (bool, error) {
	cur, err := t.current(d.ID)
	if err != nil || cur == nil || cur.Seq != d.Seq {
		return false, err
	}
	before, after, err := t.apply(cur, p, map[string]any{"dream_run": t.run, "pass": t.pass, "op": op})
	if err != nil || len(after) == 0 {
		return false, err
	}
	return true, t.record(op, d.ID, before, after)
}

// Decay sets a drawer's importance to w (rounded to 4 decimals) and
// remembers base as the importance decay starts from. It is skipped like
// Patch when the drawer changed since it was read (its seq or importance
// differs). Decay is a quiet change and, run over a whole palace, the
// hottest write of the dreamer, so it touches only what it needs.
func (t *Tx) Decay(d *palace.Drawer, base, w float64) (bool, error) {
	w = math.Round(w*1e4) / 1e4
	if !(w >= 0 && w <= 1) {
		return false, palace.Invalidf("importance must be in [0,1], got %v", w)
	}
	if w == d.Importance {
		return false, nil
	}
	ctx, st := t.t.Context(), t.t.Store()
	rid, ok, err := st.Drawers().DecayImportance(ctx, d.ID, d.Seq, d.Importance, w)
	if err != nil || !ok {
		return false, storeErr("decay", err)
	}
	if err := st.Dream().PutDecay(ctx, rid, DecayBase{Base: base, Applied: w}); err != nil {
		return false, storeErr("record decay", err)
	}
	return true, t.record(OpDecay, d.ID, map[string]any{"importance": d.Importance}, map[string]any{"importance": w})
}

// Create stores a new drawer made by the dreamer (for example an agent
// skill), validated, redacted and embedded like Palace.Add.
func (t *Tx) Create(d *palace.Drawer) error {
	p := t.t.Palace()
	if err := p.Prepare(d); err != nil {
		return err
	}
	vec := p.Embed(t.t.Context(), []*palace.Drawer{d})[0]
	if err := t.t.Insert(d, vec, map[string]any{"dream_run": t.run, "pass": t.pass}); err != nil {
		return err
	}
	return t.record(OpCreate, d.ID, map[string]any{}, map[string]any{"status": d.Status})
}

// ReplaceClosets replaces every closet of the palace with cs.
func (t *Tx) ReplaceClosets(cs []palace.Closet) error {
	out := make([]palace.Closet, len(cs))
	for i, c := range cs {
		if len(c.Keywords) > palace.MaxClosetKeywords {
			c.Keywords = c.Keywords[:palace.MaxClosetKeywords]
		}
		if c.Keywords == nil {
			c.Keywords = []string{}
		}
		if c.RefreshedAt.IsZero() {
			c.RefreshedAt = t.t.Now()
		}
		c.Room = palace.NormalizeRoom(c.Room)
		out[i] = c
	}
	return storeErr("replace closets", t.t.Store().Dream().ReplaceClosets(t.t.Context(), out))
}

// current reads a drawer inside the transaction; nil when it is gone.
func (t *Tx) current(id string) (*palace.Drawer, error) {
	d, err := t.t.Get(id)
	if errors.Is(err, palace.ErrNotFound) {
		return nil, nil
	}
	return d, err
}

func (t *Tx) record(op, drawerID string, before, after map[string]any) error {
	t.n++
	return storeErr("record dream change", t.t.Store().Dream().InsertChange(t.t.Context(), store.DreamChange{
		RunID: t.run, Pass: t.pass, Op: op, DrawerID: drawerID, Before: before, After: after, At: t.t.Now()}))
}

// apply writes patch over cur and returns the changed fields' old and new
// values (empty when nothing changed). detail is added to the change-log
// event of a loud change.
func (t *Tx) apply(cur *palace.Drawer, patch Patch, detail map[string]any) (before, after map[string]any, err error) {
	before, after = map[string]any{}, map[string]any{}
	set := func(name string, old, new any) {
		if jsonEqual(old, new) {
			return
		}
		before[name], after[name] = old, new
	}
	d := *cur
	if patch.Status != nil {
		if !store.ValidStatus(*patch.Status) {
			return nil, nil, palace.Invalidf("unknown status %q", *patch.Status)
		}
		set("status", cur.Status, *patch.Status)
		d.Status = *patch.Status
	}
	if patch.SupersededBy != nil {
		set("superseded_by", cur.SupersededBy, *patch.SupersededBy)
		d.SupersededBy = *patch.SupersededBy
	}
	if patch.Importance != nil {
		if !(*patch.Importance >= 0 && *patch.Importance <= 1) {
			return nil, nil, palace.Invalidf("importance must be in [0,1], got %v", *patch.Importance)
		}
		set("importance", cur.Importance, *patch.Importance)
		d.Importance = *patch.Importance
	}
	if patch.Confidence != nil {
		if err := palace.CheckUnit("confidence", *patch.Confidence); err != nil {
			return nil, nil, err
		}
		set("confidence", cur.Confidence, *patch.Confidence)
		d.Confidence = *patch.Confidence
	}
	if patch.Tags != nil {
		tags, err := palace.NormalizeTags(patch.Tags)
		if err != nil {
			return nil, nil, err
		}
		set("tags", cur.Tags, tags)
		d.Tags = tags
	}
	if patch.Meta != nil {
		set("meta", metaOrEmpty(cur.Meta), patch.Meta)
		d.Meta = patch.Meta
	}
	if patch.Content != nil {
		d.Content = *patch.Content
	}
	if patch.Keywords != nil {
		d.Keywords = *patch.Keywords
	}
	// Validation, redaction and (for a new text) embedding are the
	// palace's: run them through Tx.Modify on the drawer as patched.
	textChanged := d.Content != cur.Content || d.Keywords != cur.Keywords
	quiet := !textChanged
	for k := range after {
		if k != "importance" && k != "confidence" {
			quiet = false
		}
	}
	if len(after) == 0 && !textChanged {
		return before, after, nil
	}
	if quiet {
		return before, after, t.t.SetWeights(cur, d.Importance, d.Confidence)
	}
	nd, err := t.t.Rewrite(cur, &d, detail)
	if err != nil {
		return nil, nil, err
	}
	set("content", cur.Content, nd.Content)
	set("keywords", cur.Keywords, nd.Keywords)
	return before, after, nil
}

func metaOrEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// jsonEqual compares two values by their JSON encodings (map keys sorted),
// so values read back from JSON compare equal to the ones written.
func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
