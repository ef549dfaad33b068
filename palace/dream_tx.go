package palace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/google/uuid"
)

// Ops recorded for dream changes.
const (
	DreamOpSupersede  = "supersede"  // a near-duplicate now points at its survivor
	DreamOpProvenance = "provenance" // a survivor records what merged into it
	DreamOpDecay      = "decay"      // importance decayed (or restored for a pinned drawer)
	DreamOpStale      = "stale"      // a fact past its horizon went stale
	DreamOpCreate     = "create"     // the dreamer made a drawer (an agent skill)
	DreamOpUpdate     = "update"     // the dreamer rewrote a drawer it made
)

// EventDreamFinished is the change-log event a finished dream run writes.
const EventDreamFinished = "dream.finished"

// DreamTx is the write transaction of one dreamer pass: every change goes
// through it, is recorded in dream_changes for undo, and becomes visible
// only on Commit. Until then nothing of the pass is stored; a cancelled
// context rolls it back. A DreamTx is not safe for concurrent use.
type DreamTx struct {
	p     *Palace
	ctx   context.Context
	tx    *sql.Tx
	run   string
	pass  string
	now   time.Time
	n     int
	ended bool
	stmts map[string]*sql.Stmt
}

// stmt returns query prepared once per transaction: passes repeat the same
// few statements thousands of times.
func (t *DreamTx) stmt(query string) (*sql.Stmt, error) {
	if s, ok := t.stmts[query]; ok {
		return s, nil
	}
	s, err := t.tx.PrepareContext(t.ctx, query)
	if err != nil {
		return nil, err
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[query] = s
	return s, nil
}

const (
	sqlDecay     = `UPDATE drawers SET importance = ? WHERE id = ? AND seq = ? AND importance = ? RETURNING rid`
	sqlDecayBase = `INSERT INTO dream_decay(rid, base, applied) VALUES (?,?,?)
		ON CONFLICT(rid) DO UPDATE SET base = excluded.base, applied = excluded.applied`
	sqlRecord = `INSERT INTO dream_changes(run_id, pass, op, drawer_id, before, after, at) VALUES (?,?,?,?,?,?,?)`
)

// BeginDream opens the transaction of one pass of run runID. The run must
// have been recorded with BeginDreamRun. When owner is not empty the
// transaction fails with ErrDreamLockLost unless owner holds the palace's
// dreamer lock (checked under SQLite's write lock, so it holds until
// Commit).
func (p *Palace) BeginDream(ctx context.Context, runID, pass, owner string) (*DreamTx, error) {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, internal("begin dream pass", err)
	}
	if owner != "" {
		l, ok, err := readDreamLock(ctx, tx)
		if err != nil {
			tx.Rollback()
			return nil, internal("begin dream pass", err)
		}
		if !ok || l.Owner != owner {
			tx.Rollback()
			return nil, errLockLost
		}
	}
	return &DreamTx{p: p, ctx: ctx, tx: tx, run: runID, pass: pass, now: p.now().UTC()}, nil
}

// Changes is the number of changes recorded so far.
func (t *DreamTx) Changes() int { return t.n }

// Commit stores every change of the pass at once.
func (t *DreamTx) Commit() error {
	if t.ended {
		return internal("commit dream pass", errors.New("transaction already ended"))
	}
	t.ended = true
	if err := t.ctx.Err(); err != nil {
		t.tx.Rollback()
		return err
	}
	return internal("commit dream pass", t.tx.Commit())
}

// Rollback discards the pass. It is safe after Commit.
func (t *DreamTx) Rollback() {
	if !t.ended {
		t.ended = true
		t.tx.Rollback()
	}
}

// DrawerPatch lists the fields a dream change sets; nil fields stay as
// they are. Meta, when not nil, replaces the whole meta object.
type DrawerPatch struct {
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
func (t *DreamTx) Patch(op string, d *Drawer, patch DrawerPatch) (bool, error) {
	cur, err := t.current(d.ID)
	if err != nil || cur == nil || cur.Seq != d.Seq {
		return false, err
	}
	before, after, err := t.apply(cur, patch, map[string]any{"dream_run": t.run, "pass": t.pass, "op": op})
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
func (t *DreamTx) Decay(d *Drawer, base, w float64) (bool, error) {
	w = math.Round(w*1e4) / 1e4
	if !(w >= 0 && w <= 1) {
		return false, Invalidf("importance must be in [0,1], got %v", w)
	}
	if w == d.Importance {
		return false, nil
	}
	upd, err := t.stmt(sqlDecay)
	if err != nil {
		return false, internal("decay", err)
	}
	var rid int64
	err = upd.QueryRowContext(t.ctx, w, d.ID, d.Seq, d.Importance).Scan(&rid)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, internal("decay", err)
	}
	ins, err := t.stmt(sqlDecayBase)
	if err != nil {
		return false, internal("record decay", err)
	}
	if _, err := ins.ExecContext(t.ctx, rid, base, w); err != nil {
		return false, internal("record decay", err)
	}
	return true, t.record(DreamOpDecay, d.ID, map[string]any{"importance": d.Importance}, map[string]any{"importance": w})
}

// Create stores a new drawer made by the dreamer (for example an agent
// skill), validated, redacted and embedded like Palace.Add.
func (t *DreamTx) Create(d *Drawer) error {
	if err := d.validate(); err != nil {
		return err
	}
	t.p.redactDrawer(d)
	if d.ID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return internal("make drawer id", err)
		}
		d.ID = id.String()
	}
	if d.Timestamp.IsZero() {
		d.Timestamp = t.now
	}
	d.CreatedAt, d.UpdatedAt = t.now, t.now
	vec := t.p.embedDocs(t.ctx, []*Drawer{d})[0]
	seq, err := logEvent(t.ctx, t.tx, t.now, EventAdded, d.ID, map[string]any{"kind": d.Kind, "room": d.Room,
		"status": d.Status, "dream_run": t.run, "pass": t.pass})
	if err != nil {
		return internal("log event", err)
	}
	d.Seq, d.Model, d.vecID = seq, "", 0
	var blob []byte
	if vec != nil {
		blob, d.Model, d.vecID = encodeVector(vec), t.p.emb.ID(), seq
	}
	res, err := t.tx.ExecContext(t.ctx, `INSERT INTO drawers (id, seq, kind, content, keywords, room, tags,
		importance, confidence, status, user_id, agent_id, session_id, sender_ids, parent_id,
		superseded_by, ts, created_at, updated_at, pinned, redactions, model, vec_id, vector, meta)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		d.ID, seq, d.Kind, d.Content, d.Keywords, d.Room, jsonText(d.Tags), d.Importance,
		d.Confidence, d.Status, d.UserID, d.AgentID, d.SessionID, jsonText(d.SenderIDs), d.ParentID,
		d.SupersededBy, d.Timestamp.UnixMilli(), t.now.UnixMilli(), t.now.UnixMilli(), boolInt(d.Pinned),
		d.Redactions, d.Model, d.vecID, blob, metaText(d.Meta))
	if err != nil {
		if isUniqueViolation(err) {
			return Conflictf("drawer %q already exists", d.ID)
		}
		return internal("insert drawer", err)
	}
	d.rid, _ = res.LastInsertId()
	return t.record(DreamOpCreate, d.ID, map[string]any{}, map[string]any{"status": d.Status})
}

// current reads a drawer inside the transaction; nil when it is gone.
func (t *DreamTx) current(id string) (*Drawer, error) {
	d, err := scanDrawer(t.tx.QueryRowContext(t.ctx, `SELECT `+drawerCols+` FROM drawers d WHERE d.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, internal("read drawer", err)
	}
	return d, nil
}

func (t *DreamTx) record(op, drawerID string, before, after map[string]any) error {
	t.n++
	st, err := t.stmt(sqlRecord)
	if err != nil {
		return internal("record dream change", err)
	}
	_, err = st.ExecContext(t.ctx, t.run, t.pass, op, drawerID, metaText(before), metaText(after), t.now.UnixMilli())
	return internal("record dream change", err)
}

// apply writes patch over cur and returns the changed fields' old and new
// values (empty when nothing changed). detail is added to the change-log
// event of a loud change.
func (t *DreamTx) apply(cur *Drawer, patch DrawerPatch, detail map[string]any) (before, after map[string]any, err error) {
	before, after = map[string]any{}, map[string]any{}
	d := *cur
	set := func(name string, old, new any) {
		if jsonEqual(old, new) {
			return
		}
		before[name], after[name] = old, new
	}
	if patch.Status != nil {
		if !validStatus[*patch.Status] {
			return nil, nil, Invalidf("unknown status %q", *patch.Status)
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
			return nil, nil, Invalidf("importance must be in [0,1], got %v", *patch.Importance)
		}
		set("importance", cur.Importance, *patch.Importance)
		d.Importance = *patch.Importance
	}
	if patch.Confidence != nil {
		if !(*patch.Confidence >= 0 && *patch.Confidence <= 1) {
			return nil, nil, Invalidf("confidence must be in [0,1], got %v", *patch.Confidence)
		}
		set("confidence", cur.Confidence, *patch.Confidence)
		d.Confidence = *patch.Confidence
	}
	if patch.Tags != nil {
		tags, err := normalizeTags(patch.Tags)
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
	textChanged := d.Content != cur.Content || d.Keywords != cur.Keywords
	if textChanged {
		chk := d
		if err := chk.validate(); err != nil {
			return nil, nil, err
		}
		d.Content = chk.Content
		t.p.redactDrawer(&d)
		set("content", cur.Content, d.Content)
		set("keywords", cur.Keywords, d.Keywords)
		textChanged = d.Content != cur.Content || d.Keywords != cur.Keywords
	}
	if len(after) == 0 {
		return before, after, nil
	}
	quiet := true
	for k := range after {
		if k != "importance" && k != "confidence" {
			quiet = false
		}
	}
	if quiet {
		_, err := t.tx.ExecContext(t.ctx, `UPDATE drawers SET importance = ?, confidence = ? WHERE rid = ?`,
			d.Importance, d.Confidence, cur.rid)
		return before, after, internal("update drawer", err)
	}

	var vec []float32
	if textChanged {
		vec = t.p.embedDocs(t.ctx, []*Drawer{&d})[0]
	}
	evType, ev := EventUpdated, map[string]any{}
	for k, v := range detail {
		ev[k] = v
	}
	if d.Status != cur.Status {
		evType = EventStatus
		ev["from"], ev["to"] = cur.Status, d.Status
		if d.SupersededBy != "" {
			ev["superseded_by"] = d.SupersededBy
		}
	}
	seq, err := logEvent(t.ctx, t.tx, t.now, evType, d.ID, ev)
	if err != nil {
		return nil, nil, internal("log event", err)
	}
	// As in Update: a new vector, or a drawer re-entering recall, gets a
	// new index key, so the vector index never sees a key twice.
	setVector := false
	switch {
	case vec != nil:
		d.Model, d.vecID, setVector = t.p.emb.ID(), seq, true
	case textChanged:
		d.Model, d.vecID, setVector = "", 0, true
	case d.Status == StatusActive && cur.Status != StatusActive && cur.vecID != 0:
		d.vecID = seq
	}
	// updated_at moves only for a new status or text: bookkeeping such as
	// provenance must not look like a re-confirmation of a fact.
	updated := cur.UpdatedAt.UnixMilli()
	if d.Status != cur.Status || textChanged {
		updated = t.now.UnixMilli()
	}
	q := `UPDATE drawers SET seq=?, content=?, keywords=?, tags=?, importance=?, confidence=?, status=?,
		superseded_by=?, updated_at=?, redactions=?, model=?, vec_id=?, meta=?`
	args := []any{seq, d.Content, d.Keywords, jsonText(d.Tags), d.Importance, d.Confidence, d.Status,
		d.SupersededBy, updated, d.Redactions, d.Model, d.vecID, metaText(d.Meta)}
	if setVector {
		q += `, vector=?`
		var blob []byte
		if vec != nil {
			blob = encodeVector(vec)
		}
		args = append(args, blob)
	}
	args = append(args, cur.rid)
	if _, err := t.tx.ExecContext(t.ctx, q+` WHERE rid=?`, args...); err != nil {
		return nil, nil, internal("update drawer", err)
	}
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
