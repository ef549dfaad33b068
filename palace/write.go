package palace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/loci-mem/loci/palace/redact"
)

// Event types written to the change log.
const (
	EventAdded   = "drawer.added"
	EventUpdated = "drawer.updated"
	EventStatus  = "drawer.status"
)

// Add validates, redacts, embeds and stores one drawer, filling in its ID,
// Seq and timestamps. The drawer is committed to SQLite before Add returns.
func (p *Palace) Add(ctx context.Context, d *Drawer) error {
	return p.AddMany(ctx, []*Drawer{d})
}

// AddMany stores drawers in one transaction: all of them or none. Texts are
// embedded in parallel before the transaction opens.
func (p *Palace) AddMany(ctx context.Context, ds []*Drawer) error {
	return p.addMany(ctx, ds, nil)
}

// addMany is AddMany with a hook: inTx, when set, runs inside the same
// transaction after the inserts, so a caller can commit other rows (a
// consumed session buffer) atomically with the drawers.
func (p *Palace) addMany(ctx context.Context, ds []*Drawer, inTx func(tx *sql.Tx, now time.Time) error) error {
	if len(ds) == 0 && inTx == nil {
		return nil
	}
	now := p.now().UTC()
	for i, d := range ds {
		if err := d.validate(); err != nil {
			if len(ds) > 1 {
				return Invalidf("item %d: %v", i, err)
			}
			return err
		}
		p.redactDrawer(d)
		if d.ID == "" {
			id, err := uuid.NewV7()
			if err != nil {
				return internal("make drawer id", err)
			}
			d.ID = id.String()
		}
		if d.Timestamp.IsZero() {
			d.Timestamp = now
		}
		d.CreatedAt, d.UpdatedAt = now, now
	}
	if err := p.addTurnContext(ctx, ds); err != nil {
		return err
	}
	vecs := p.embedDocs(ctx, ds)

	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return internal("begin write", err)
	}
	defer tx.Rollback()
	for i, d := range ds {
		seq, err := logEvent(ctx, tx, now, EventAdded, d.ID, map[string]any{"kind": d.Kind, "room": d.Room, "status": d.Status})
		if err != nil {
			return internal("log event", err)
		}
		d.Seq = seq
		var blob []byte
		d.Model = ""
		if vecs[i] != nil {
			blob = encodeVector(vecs[i])
			d.Model = p.emb.ID()
			d.vecID = seq
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO drawers (id, seq, kind, content, keywords, room, tags,
			importance, confidence, status, user_id, agent_id, session_id, sender_ids, parent_id,
			superseded_by, ts, created_at, updated_at, pinned, redactions, model, vec_id, vector, meta)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			d.ID, seq, d.Kind, d.Content, d.Keywords, d.Room, jsonText(d.Tags), d.Importance,
			d.Confidence, d.Status, d.UserID, d.AgentID, d.SessionID, jsonText(d.SenderIDs), d.ParentID,
			d.SupersededBy, d.Timestamp.UnixMilli(), now.UnixMilli(), now.UnixMilli(), boolInt(d.Pinned),
			d.Redactions, d.Model, d.vecID, blob, metaText(d.Meta))
		if err != nil {
			if isUniqueViolation(err) {
				return Conflictf("drawer %q already exists", d.ID)
			}
			return internal("insert drawer", err)
		}
		d.rid, _ = res.LastInsertId()
	}
	if inTx != nil {
		if err := inTx(tx, now); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return internal("commit write", err)
	}
	return nil
}

// redactDrawer replaces secrets in every stored text field and records how
// many were replaced.
func (p *Palace) redactDrawer(d *Drawer) {
	var n, k int
	d.Content, k = redact.String(d.Content)
	n += k
	d.Keywords, k = redact.String(d.Keywords)
	n += k
	for i, t := range d.Tags {
		d.Tags[i], k = redact.String(t)
		n += k
	}
	if len(d.Meta) > 0 {
		raw, _ := json.Marshal(d.Meta)
		if clean := redact.JSON(raw); string(clean) != string(raw) {
			var m map[string]any
			if json.Unmarshal(clean, &m) == nil {
				d.Meta = m
				n++
			}
		}
	}
	d.Redactions += n
}

// embedText is the text a drawer's vector is made from.
func embedText(d *Drawer) string {
	if d.Keywords != "" {
		return d.Content + "\n" + d.Keywords
	}
	return d.Content
}

// embedDocs embeds drawers in parallel batches. A failure is logged and
// leaves that drawer without a vector (keyword search still finds it; the
// dreamer re-embeds it later); it never fails the write.
func (p *Palace) embedDocs(ctx context.Context, ds []*Drawer) [][]float32 {
	out := make([][]float32, len(ds))
	const batch = 32
	workers := runtime.GOMAXPROCS(0)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for lo := 0; lo < len(ds); lo += batch {
		hi := min(lo+batch, len(ds))
		texts := make([]string, 0, hi-lo)
		for _, d := range ds[lo:hi] {
			texts = append(texts, embedText(d))
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(lo int, texts []string) {
			defer wg.Done()
			defer func() { <-sem }()
			vs, err := p.emb.Embed(ctx, texts)
			if err != nil || len(vs) != len(texts) {
				p.log.Warn().Err(err).Msg("embed drawers; stored without vectors")
				return
			}
			copy(out[lo:], vs)
		}(lo, texts)
	}
	wg.Wait()
	return out
}

// Update applies fn to the drawer with that id and stores the result in one
// transaction. fn may change any field but ID; a changed Content or Keywords
// re-embeds the drawer. A status change to or from active moves it into or
// out of recall.
func (p *Palace) Update(ctx context.Context, id string, fn func(*Drawer) error) (*Drawer, error) {
	for attempt := 0; ; attempt++ {
		d, err := p.update(ctx, id, fn)
		if errors.Is(err, errStale) && attempt < 5 {
			continue
		}
		return d, err
	}
}

var errStale = errors.New("drawer changed during update")

func (p *Palace) update(ctx context.Context, id string, fn func(*Drawer) error) (*Drawer, error) {
	old, err := p.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	d := *old
	d.Tags = append([]string(nil), old.Tags...)
	d.SenderIDs = append([]string(nil), old.SenderIDs...)
	if old.Meta != nil {
		d.Meta = make(map[string]any, len(old.Meta))
		for k, v := range old.Meta {
			d.Meta[k] = v
		}
	}
	if err := fn(&d); err != nil {
		return nil, err
	}
	d.ID = old.ID
	if err := d.validate(); err != nil {
		return nil, err
	}
	textChanged := d.Content != old.Content || d.Keywords != old.Keywords
	if textChanged || !equalStrings(d.Tags, old.Tags) {
		d.Redactions = old.Redactions
		p.redactDrawer(&d)
	}
	var vec []float32
	if textChanged {
		vs := p.embedDocs(ctx, []*Drawer{&d})
		vec = vs[0]
	}
	now := p.now().UTC()

	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, internal("begin update", err)
	}
	defer tx.Rollback()
	var seqNow int64
	if err := tx.QueryRowContext(ctx, `SELECT seq FROM drawers WHERE rid = ?`, old.rid).Scan(&seqNow); err != nil {
		return nil, internal("update drawer", err)
	}
	if seqNow != old.Seq {
		return nil, errStale // someone else wrote it between our read and our lock
	}
	evType := EventUpdated
	detail := map[string]any{}
	if d.Status != old.Status {
		evType = EventStatus
		detail["from"], detail["to"] = old.Status, d.Status
		if d.SupersededBy != "" {
			detail["superseded_by"] = d.SupersededBy
		}
	}
	seq, err := logEvent(ctx, tx, now, evType, d.ID, detail)
	if err != nil {
		return nil, internal("log event", err)
	}
	d.Seq = seq
	d.UpdatedAt = now
	// A drawer (re)entering recall, or with a new vector, gets a new index
	// key: the vector index never sees the same key twice.
	setVector := false
	if vec != nil {
		d.Model, d.vecID = p.emb.ID(), seq
		setVector = true
	} else if textChanged {
		d.Model, d.vecID = "", 0
		setVector = true
	} else if d.Status == StatusActive && old.Status != StatusActive && old.vecID != 0 {
		d.vecID = seq
	}
	q := `UPDATE drawers SET seq=?, kind=?, content=?, keywords=?, room=?, tags=?, importance=?,
		confidence=?, status=?, user_id=?, agent_id=?, session_id=?, sender_ids=?, parent_id=?,
		superseded_by=?, ts=?, updated_at=?, access_count=?, last_access=?, pinned=?, redactions=?,
		model=?, vec_id=?, meta=?`
	args := []any{seq, d.Kind, d.Content, d.Keywords, d.Room, jsonText(d.Tags), d.Importance,
		d.Confidence, d.Status, d.UserID, d.AgentID, d.SessionID, jsonText(d.SenderIDs), d.ParentID,
		d.SupersededBy, d.Timestamp.UnixMilli(), now.UnixMilli(), d.AccessCount, timeMS(d.LastAccess),
		boolInt(d.Pinned), d.Redactions, d.Model, d.vecID, metaText(d.Meta)}
	if setVector {
		q += `, vector=?`
		var blob []byte
		if vec != nil {
			blob = encodeVector(vec)
		}
		args = append(args, blob)
	}
	q += ` WHERE rid=?`
	args = append(args, old.rid)
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return nil, internal("update drawer", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, internal("commit update", err)
	}
	return &d, nil
}

// SetStatus moves a drawer to a new status. supersededBy is recorded when the
// new status is superseded.
func (p *Palace) SetStatus(ctx context.Context, id, status, supersededBy string) (*Drawer, error) {
	if !validStatus[status] {
		return nil, Invalidf("unknown status %q", status)
	}
	return p.Update(ctx, id, func(d *Drawer) error {
		d.Status = status
		if status == StatusSuperseded {
			d.SupersededBy = supersededBy
		} else {
			d.SupersededBy = ""
		}
		return nil
	})
}

// Forget removes a drawer from recall by marking it deleted. Its row stays in
// the store (history, undo) until purged. Forgetting a drawer that is already
// deleted fails with CodeNotFound, as for an unknown id.
func (p *Palace) Forget(ctx context.Context, id string) (*Drawer, error) {
	d, err := p.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if d.Status == StatusDeleted {
		return nil, NotFoundf("drawer %q not found in palace %q", truncate(id, 80), p.name)
	}
	return p.SetStatus(ctx, id, StatusDeleted, "")
}

func logEvent(ctx context.Context, tx *sql.Tx, at time.Time, typ, drawerID string, detail map[string]any) (int64, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO events(at, type, drawer_id, detail) VALUES (?,?,?,?)`,
		at.UnixMilli(), typ, drawerID, metaText(detail))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// LogEvent appends an event that is not a drawer change (a triple asserted,
// a dream finished) to the palace's change log and returns its seq.
func (p *Palace) LogEvent(ctx context.Context, typ string, detail map[string]any) (int64, error) {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, internal("log event", err)
	}
	defer tx.Rollback()
	seq, err := logEvent(ctx, tx, p.now().UTC(), typ, "", detail)
	if err != nil {
		return 0, internal("log event", err)
	}
	return seq, internal("log event", tx.Commit())
}

func jsonText(v []string) string {
	if v == nil {
		return "[]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func metaText(m map[string]any) string {
	if len(m) == 0 {
		return "{}"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func timeMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func isUniqueViolation(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
