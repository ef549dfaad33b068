package palace

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/loci-mem/loci/palace/store"
)

// Event types written to the change log.
const (
	EventAdded   = "drawer.added"
	EventUpdated = "drawer.updated"
	EventStatus  = "drawer.status"
)

// Every write of a drawer goes the same way, whatever face or pass it
// comes from:
//
//	validate → redact → embed (outside the transaction) → one transaction
//	that logs the change (a new seq), stores the drawer with its vector
//	key, and commits before the call returns.
//
// Tx is that transaction; Add, Update and the sub-packages' writes (facts,
// sessions, the dreamer's journal, the archive) are built on it. Durability:
// when a write returns nil, the store has committed it (SQLite in WAL mode
// with synchronous=NORMAL survives a killed process; FULL also a power
// loss; PostgreSQL commits to its WAL). Derived indexes catch up from the
// change log and never hold anything the store does not.

// Tx is one write transaction on a palace. It is not safe for concurrent
// use. Reads through Store() see the transaction's own writes.
type Tx struct {
	p   *Palace
	ctx context.Context
	st  store.Tx
	now time.Time
}

// Write runs fn in one transaction: everything fn writes is committed when
// it returns nil, and nothing when it returns an error (which Write
// returns). It waits for the palace's other writers, in this process and
// in others, so read-check-write sequences inside fn cannot interleave
// with theirs.
func (p *Palace) Write(ctx context.Context, fn func(*Tx) error) error {
	t, err := p.Begin(ctx)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if err := fn(t); err != nil {
		return err
	}
	return t.Commit()
}

// Begin starts a transaction that the caller ends with Commit or Rollback
// (Write is the usual way; Begin serves work that spans many calls, like a
// dreamer pass).
func (p *Palace) Begin(ctx context.Context) (*Tx, error) {
	if err := allow(ctx, p.name, AccessWrite); err != nil {
		return nil, err
	}
	st, err := p.st.Begin(ctx)
	if err != nil {
		return nil, storeErr("begin write", err)
	}
	return &Tx{p: p, ctx: ctx, st: st, now: p.now().UTC()}, nil
}

// Commit stores everything the transaction wrote. A cancelled context
// rolls it back instead and returns the context's error.
func (t *Tx) Commit() error {
	if err := t.ctx.Err(); err != nil {
		t.st.Rollback()
		return err
	}
	err := t.st.Commit()
	if err == nil {
		t.p.closets.forget() // the write may have replaced them (the dreamer)
	}
	return storeErr("commit write", err)
}

// Rollback discards the transaction. It is safe after Commit.
func (t *Tx) Rollback() { _ = t.st.Rollback() }

// Now is the transaction's clock reading: every change in it carries this
// time.
func (t *Tx) Now() time.Time { return t.now }

// Context is the context the transaction runs under.
func (t *Tx) Context() context.Context { return t.ctx }

// Store is the transaction's view of the palace's records, for what is not
// a drawer (fact numbers, session buffers, the dreamer's journal).
func (t *Tx) Store() store.Tx { return t.st }

// Palace is the palace the transaction writes.
func (t *Tx) Palace() *Palace { return t.p }

// Log appends an event to the change log and returns its seq.
func (t *Tx) Log(typ, drawerID string, detail map[string]any) (int64, error) {
	seq, err := t.st.Log().Append(t.ctx, store.Event{At: t.now, Type: typ, DrawerID: drawerID, Detail: detailJSON(detail)})
	return seq, storeErr("log event", err)
}

// Get reads a drawer inside the transaction (CodeNotFound when absent).
func (t *Tx) Get(id string) (*Drawer, error) {
	d, err := t.st.Drawers().Get(t.ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFoundf("drawer %q not found in palace %q", truncate(id, 80), t.p.name)
	}
	return d, storeErr("get drawer", err)
}

// Insert stores a drawer prepared by Palace.Prepare with its vectors (see
// Palace.Embed; no Whole vector: none, the dreamer embeds it later). It
// logs drawer.added with detail added to the event's own fields, and fills
// in Seq, Model, VecKey and RID.
func (t *Tx) Insert(d *Drawer, vec Vectors, detail map[string]any) error {
	ev := map[string]any{"kind": d.Kind, "room": d.Room, "status": d.Status}
	for k, v := range detail {
		ev[k] = v
	}
	seq, err := t.Log(EventAdded, d.ID, ev)
	if err != nil {
		return err
	}
	d.Seq, d.Model, d.VecKey = seq, "", 0
	v := &store.Vector{Count: len(VectorPassages(d.Content))}
	if vec.Whole != nil {
		v, d.Model, d.VecKey = vec.encode(), t.p.emb.ID(), seq
	}
	if err := t.st.Drawers().Insert(t.ctx, d, v); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return Conflictf("drawer %q already exists", d.ID)
		}
		return storeErr("insert drawer", err)
	}
	return nil
}

// Save writes d over the stored drawer old (the same drawer, as read in
// this transaction or checked unchanged by its seq) and logs the change:
// drawer.status when the status changed, else drawer.updated, with detail
// added. A changed text takes vec as its new vectors (no Whole vector: none
// until re-embedded). A new vector, or a drawer re-entering recall, gets a new
// vector key: the vector index never sees a key twice. d.Seq and
// d.UpdatedAt move to this change; quiet bookkeeping that must not look
// like an edit (importance, confidence) uses SetWeights instead.
func (t *Tx) Save(old, d *Drawer, vec Vectors, detail map[string]any) error {
	evType, ev := EventUpdated, map[string]any{}
	for k, v := range detail {
		ev[k] = v
	}
	if d.Status != old.Status {
		evType = EventStatus
		ev["from"], ev["to"] = old.Status, d.Status
		if d.SupersededBy != "" {
			ev["superseded_by"] = d.SupersededBy
		}
	}
	seq, err := t.Log(evType, d.ID, ev)
	if err != nil {
		return err
	}
	d.ID, d.RID, d.Seq = old.ID, old.RID, seq
	var v *store.Vector
	textChanged := d.Content != old.Content || d.Keywords != old.Keywords
	switch {
	case textChanged && vec.Whole != nil:
		d.Model, d.VecKey = t.p.emb.ID(), seq
		v = vec.encode()
	case textChanged:
		d.Model, d.VecKey = "", 0
		v = &store.Vector{Count: len(VectorPassages(d.Content))}
	case d.Status == StatusActive && old.Status != StatusActive && old.VecKey != 0:
		d.VecKey = seq
	default:
		d.Model, d.VecKey = old.Model, old.VecKey
	}
	return storeErr("update drawer", t.st.Drawers().Update(t.ctx, d, v))
}

// Modify reads the drawer with that id in the transaction, lets fn change
// any field but its identity, and saves it. A changed text is validated,
// redacted and re-embedded inside the transaction (slow: writers that
// change text should prefer Palace.Update, which embeds first). fn may
// return ErrUnchanged to leave the drawer as it is (Modify then returns
// the drawer unchanged and no error).
func (t *Tx) Modify(id string, detail map[string]any, fn func(*Drawer) error) (*Drawer, error) {
	old, err := t.Get(id)
	if err != nil {
		return nil, err
	}
	d, vec, err := t.p.edit(t.ctx, old, fn)
	if errors.Is(err, ErrUnchanged) {
		return old, nil
	}
	if err != nil {
		return nil, err
	}
	d.UpdatedAt = t.now
	return d, t.Save(old, d, vec, detail)
}

// Rewrite saves d, a changed copy of old (as read in this transaction),
// after the checks Modify makes: fields valid, a changed text redacted and
// embedded (inside the transaction). UpdatedAt moves only when the status
// or the text changed: bookkeeping (provenance, tags, meta) must not look
// like a new confirmation of a fact. It returns the drawer as stored.
func (t *Tx) Rewrite(old, d *Drawer, detail map[string]any) (*Drawer, error) {
	nd, vec, err := t.p.edit(t.ctx, old, func(x *Drawer) error {
		*x = *cloneDrawer(d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	nd.UpdatedAt = old.UpdatedAt
	if nd.Status != old.Status || nd.Content != old.Content || nd.Keywords != old.Keywords {
		nd.UpdatedAt = t.now
	}
	return nd, t.Save(old, nd, vec, detail)
}

// SetWeights changes a drawer's importance and confidence without logging
// a change (like access statistics: the drawer's seq stays).
func (t *Tx) SetWeights(d *Drawer, importance, confidence float64) error {
	if err := CheckUnit("importance", importance); err != nil {
		return err
	}
	if err := CheckUnit("confidence", confidence); err != nil {
		return err
	}
	return storeErr("update drawer", t.st.Drawers().SetWeights(t.ctx, d.RID, importance, confidence))
}

// ErrUnchanged is returned by an update function to leave the drawer as it
// is; Update and Modify then return the drawer without error.
var ErrUnchanged = errors.New("drawer unchanged")

// Prepare validates, redacts and completes a new drawer before it is
// stored: a fresh id when it has none, its timestamps, its room and tags
// normalised. Nothing is stored.
func (p *Palace) Prepare(d *Drawer) error {
	if err := validateDrawer(d); err != nil {
		return err
	}
	redactDrawer(d)
	if d.ID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return internal("make drawer id", err)
		}
		d.ID = id.String()
	}
	now := p.now().UTC()
	if d.Timestamp.IsZero() {
		d.Timestamp = now
	}
	d.CreatedAt, d.UpdatedAt = now, now
	return nil
}

// Add validates, redacts, embeds and stores one drawer, filling in its ID,
// Seq and timestamps. The drawer is committed before Add returns.
func (p *Palace) Add(ctx context.Context, d *Drawer) error {
	return p.AddMany(ctx, []*Drawer{d})
}

// AddMany stores drawers in one transaction: all of them or none. Texts are
// embedded in parallel before the transaction opens.
func (p *Palace) AddMany(ctx context.Context, ds []*Drawer) error {
	return p.AddWith(ctx, ds, nil)
}

// AddWith is AddMany with more work in the same transaction: inTx, when
// set, runs after the inserts, so a caller commits its own records (a
// consumed session buffer, a fact number) atomically with the drawers.
func (p *Palace) AddWith(ctx context.Context, ds []*Drawer, inTx func(*Tx) error) error {
	if len(ds) == 0 && inTx == nil {
		return nil
	}
	for i, d := range ds {
		if err := p.Prepare(d); err != nil {
			if len(ds) > 1 {
				return Invalidf("item %d: %v", i, err)
			}
			return err
		}
	}
	if err := p.addTurnContext(ctx, ds); err != nil {
		return err
	}
	// A drawer too long to embed while the caller waits is stored without
	// vectors and embedded in the background (embed_later.go).
	now, later := make([]*Drawer, 0, len(ds)), []int(nil)
	for i, d := range ds {
		if p.defers(d) {
			later = append(later, i)
		} else {
			now = append(now, d)
		}
	}
	vecs := p.Embed(ctx, now)
	for _, i := range later {
		vecs = slices.Insert(vecs, i, Vectors{})
	}
	err := p.Write(ctx, func(t *Tx) error {
		for i, d := range ds {
			if err := t.Insert(d, vecs[i], nil); err != nil {
				return err
			}
		}
		if inTx != nil {
			return inTx(t)
		}
		return nil
	})
	if err == nil && len(later) > 0 {
		ids := make([]string, len(later))
		for k, i := range later {
			ids[k] = ds[i].ID
		}
		p.embedLater(ids)
	}
	return err
}

// redactDrawer scrubs every stored text field (private spans removed,
// secrets redacted; see Scrub) and records how many were replaced.
func redactDrawer(d *Drawer) {
	var n, k int
	d.Content, k = Scrub(d.Content)
	n += k
	d.Keywords, k = Scrub(d.Keywords)
	n += k
	tags := d.Tags[:0]
	for _, t := range d.Tags {
		t, k = Scrub(t)
		n += k
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	d.Tags = tags
	d.Room, k = Scrub(d.Room)
	n += k
	if len(d.Meta) > 0 {
		raw, _ := json.Marshal(d.Meta)
		if clean, changed := ScrubJSON(raw); changed {
			var m map[string]any
			if json.Unmarshal(clean, &m) == nil {
				d.Meta = m
				n++
			}
		}
	}
	d.Redactions += n
}

// embedText is the text a drawer's vector is made from: what it says
// (saidText) less the names it addresses (address.go) and the sentences
// that restate an earlier text (ownWords), and the context it borrowed,
// as the encoder reads them (encoderText: misspelt and informal words as
// the words they stand for, emoji as their words, and the words of
// identifiers), with the fixes sp finds.
func embedText(d *Drawer, sp *spelling) string {
	said := unaddressed(saidText(d.Content), addressedBy(d))
	kw, restated := splitRestated(d.Keywords)
	if len(restated) > 0 {
		said = ownWords(said, 0, len(said), restatedRanges(said, restated))
	}
	if kw != "" {
		said += "\n" + kw
	}
	return encoderText(said, sp)
}

// Embed makes the vectors of drawers in parallel batches: each drawer's
// whole text, and the vector passages of a long one. A failure is logged and
// leaves that drawer without vectors (keyword search still finds it; the
// dreamer re-embeds it later); it never fails the write.
func (p *Palace) Embed(ctx context.Context, ds []*Drawer) []Vectors {
	out := make([]Vectors, len(ds))
	// One flat list of texts: every whole text, then every passage.
	type ref struct{ drawer, passage int }
	var texts []string
	var refs []ref
	for i, d := range ds {
		texts = append(texts, embedText(d, p.lex))
		refs = append(refs, ref{i, 0})
	}
	for i, d := range ds {
		spans := VectorPassages(d.Content)
		if len(spans) > 0 {
			out[i].Passages = make([][]float32, len(spans))
		}
		_, restated := splitRestated(d.Keywords)
		content := unaddressed(d.Content, addressedBy(d))
		ranges := restatedRanges(content, restated)
		for j, sp := range spans {
			texts = append(texts, encoderText(ownWords(content, sp.Start, sp.End, ranges), p.lex))
			refs = append(refs, ref{i, j + 1})
		}
	}
	vecs := p.embedTexts(ctx, texts)
	failed := make([]bool, len(ds))
	for k, v := range vecs {
		r := refs[k]
		switch {
		case v == nil:
			failed[r.drawer] = true
		case r.passage == 0:
			out[r.drawer].Whole = v
		default:
			out[r.drawer].Passages[r.passage-1] = v
		}
	}
	for i := range out {
		if failed[i] {
			out[i] = Vectors{}
		}
	}
	return out
}

// embedTexts embeds texts in parallel batches; a batch that fails leaves
// nil vectors (logged). A text given more than once is embedded once, and
// each copy gets its own vector: a conversation's episode is stored once for each
// participant, in the same words.
func (p *Palace) embedTexts(ctx context.Context, texts []string) [][]float32 {
	first := make(map[string]int, len(texts))
	var distinct []string
	at := make([]int, len(texts))
	for i, t := range texts {
		j, ok := first[t]
		if !ok {
			j = len(distinct)
			first[t] = j
			distinct = append(distinct, t)
		}
		at[i] = j
	}
	vecs := p.embedDistinct(ctx, distinct)
	out := make([][]float32, len(texts))
	given := make([]bool, len(distinct))
	for i, j := range at {
		if out[i] = vecs[j]; given[j] && out[i] != nil {
			out[i] = slices.Clone(out[i]) // each drawer owns its vector
		}
		given[j] = true
	}
	return out
}

// embedDistinct embeds texts in parallel batches of 32, on as many cores
// as embedWorkers allows; once ctx ends it starts no more batches (the
// texts left get no vector), so a cancelled write or pass stops within a
// batch.
func (p *Palace) embedDistinct(ctx context.Context, texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	const batch = 32
	sem := make(chan struct{}, embedWorkers(ctx))
	var wg sync.WaitGroup
	for lo := 0; lo < len(texts) && ctx.Err() == nil; lo += batch {
		hi := min(lo+batch, len(texts))
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
		}(lo, texts[lo:hi])
	}
	wg.Wait()
	p.noteEngineCut()
	return out
}

// noteEngineCut logs, once for each length, that the embedding engine
// refused texts longer than its model holds, so that longer ones are now
// cut to that length for their vectors (embed.OpenAI.CutAt): a user who
// meant the model to read whole texts learns that it does not.
func (p *Palace) noteEngineCut() {
	c, ok := p.emb.(interface{ CutAt() int })
	if !ok {
		return
	}
	if n := int64(c.CutAt()); n > 0 && p.cutLogged.Swap(n) != n {
		p.log.Warn().Int64("bytes", n).Str("embedder", p.emb.ID()).
			Msg("the embedding engine refused texts longer than its model holds: longer texts are cut to this length for their vectors (their keywords and passages still cover all of them)")
	}
}

// edit applies fn to a copy of old and checks the result: identity kept,
// fields valid, changed text redacted and embedded. It returns
// ErrUnchanged when fn does.
func (p *Palace) edit(ctx context.Context, old *Drawer, fn func(*Drawer) error) (*Drawer, Vectors, error) {
	d := cloneDrawer(old)
	if err := fn(d); err != nil {
		return nil, Vectors{}, err
	}
	d.ID, d.RID = old.ID, old.RID
	if err := validateDrawer(d); err != nil {
		return nil, Vectors{}, err
	}
	textChanged := d.Content != old.Content || d.Keywords != old.Keywords
	if textChanged || !slices.Equal(d.Tags, old.Tags) || d.Room != old.Room {
		// Counted from the stored count, plus what fn redacted itself
		// (Rescrub's does); a fn cannot lower it.
		d.Redactions = max(d.Redactions, old.Redactions)
		redactDrawer(d)
	}
	var vec Vectors
	if textChanged {
		vec = p.Embed(ctx, []*Drawer{d})[0]
	}
	return d, vec, nil
}

// Vectors are a drawer's embeddings: Whole for its whole text (nil when it
// could not be made), Passages for the passages of a long text (see
// VectorPassages; nil for a text embedded whole).
type Vectors struct {
	Whole    []float32
	Passages [][]float32
}

func (v Vectors) encode() *store.Vector {
	sv := &store.Vector{Blob: encodeVector(v.Whole)}
	if len(v.Passages) > 0 {
		b := make([]byte, 0, 4*len(v.Whole)*len(v.Passages))
		for _, pv := range v.Passages {
			b = append(b, encodeVector(pv)...)
		}
		sv.Passages, sv.Count = b, len(v.Passages)
	}
	return sv
}

// Update applies fn to the drawer with that id and stores the result in one
// transaction. fn may change any field but ID; a changed Content or Keywords
// re-embeds the drawer (before the transaction opens). A status change to
// or from active moves it into or out of recall. If the drawer changes
// between the read and the write, the update is retried on the new state.
func (p *Palace) Update(ctx context.Context, id string, fn func(*Drawer) error) (*Drawer, error) {
	return p.update(ctx, id, fn, false)
}

// update is Update; with erases, the transaction also records an erasure
// at the drawer's new seq (metaErasedSeq), so that every index catching
// up across the change drops the words the old text gave it (Rescrub).
func (p *Palace) update(ctx context.Context, id string, fn func(*Drawer) error, erases bool) (*Drawer, error) {
	for attempt := 0; ; attempt++ {
		old, err := p.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		d, vec, err := p.edit(ctx, old, fn)
		if errors.Is(err, ErrUnchanged) {
			return old, nil
		}
		if err != nil {
			return nil, err
		}
		err = p.Write(ctx, func(t *Tx) error {
			seq, err := t.st.Drawers().SeqOf(ctx, old.RID)
			if err != nil {
				return storeErr("update drawer", err)
			}
			if seq != old.Seq {
				return errStale // someone else wrote it between our read and our lock
			}
			d.UpdatedAt = t.now
			if err := t.Save(old, d, vec, nil); err != nil || !erases {
				return err
			}
			return t.recordErasure(d.Seq)
		})
		if errors.Is(err, errStale) && attempt < 5 {
			continue
		}
		if err != nil {
			return nil, err
		}
		return d, nil
	}
}

var errStale = errors.New("drawer changed during update")

// SetStatus moves a drawer to a new status. supersededBy is recorded when the
// new status is superseded.
func (p *Palace) SetStatus(ctx context.Context, id, status, supersededBy string) (*Drawer, error) {
	if !store.ValidStatus(status) {
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

// LogEvent appends an event that is not a drawer change (a triple asserted,
// a dream finished) to the palace's change log and returns its seq.
func (p *Palace) LogEvent(ctx context.Context, typ string, detail map[string]any) (int64, error) {
	var seq int64
	err := p.Write(ctx, func(t *Tx) error {
		var err error
		seq, err = t.Log(typ, "", detail)
		return err
	})
	return seq, err
}

func detailJSON(m map[string]any) []byte {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// Redact replaces secrets in every text field of d and counts them in
// d.Redactions (every write does this; an import re-does it on drawers
// made elsewhere).
func Redact(d *Drawer) { redactDrawer(d) }
