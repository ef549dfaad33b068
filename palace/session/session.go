package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/redact"
	"github.com/loci-mem/loci/palace/store"
)

// Outcomes of Append and Flush.
const (
	Accumulated = "accumulated"
	Extracted   = "extracted"
)

// EventExtracted is logged when a stretch of a session buffer becomes
// drawers.
const EventExtracted = "session.extracted"

// RequestKeyLifetime is how long a request key makes retries no-ops.
const RequestKeyLifetime = 24 * time.Hour

// Limits on session input.
const (
	MaxIDBytes        = 256
	MaxAppendMessages = 1000
)

// Options say whose memories a session's messages become.
type Options struct {
	// UserID owns the user-track memories. Empty: each distinct sender_id
	// of a user message owns its own episode; with none, "user".
	UserID string
	// AgentID owns the agent cases. Empty: the sender_id of the first
	// assistant message; with none, "agent".
	AgentID string
	// RequestKey, when set, makes Append idempotent: a retry with a key
	// the palace saw within RequestKeyLifetime buffers nothing again
	// (Result.Duplicate). Keys are per palace.
	RequestKey string
	// Agent selects the agent track alone (agent cases, no episodes).
	// Without it, a stretch whose assistant turns called tools also yields
	// an agent case when an agent id is known (AgentID or an assistant
	// sender_id).
	Agent bool
}

// Result reports what Append or Flush did.
type Result struct {
	Status    string   // "accumulated" or "extracted"
	Duplicate bool     // the request key was seen before: nothing was buffered
	Buffered  int      // messages still buffered for the session after the call
	DrawerIDs []string // drawers written by extraction in this call (episodes, atomic facts, cases)
}

// boundaries is the heuristic boundary detector sessions use.
var boundaries = extract.DefaultBoundaries

// Recorder records the conversation sessions of one palace.
type Recorder struct{ p *palace.Palace }

// Of returns the session recorder of p.
func Of(p *palace.Palace) Recorder { return Recorder{p} }

func (r Recorder) extractor() extract.Extractor { return r.p.Registry().Extractor() }

// extractionLease is how long a hold on a session's extraction lasts
// unless renewed (a bound). The holder renews it every third of that for
// as long as its model takes, so the lease ends early only when its
// holder was killed: the session then waits this long for another
// process's maintenance.
const extractionLease = 2 * time.Minute

// holderToken tells this process's leases from those of other processes
// and nodes; each palace handle adds its address.
var holderToken = uuid.NewString()

// sessionLocks serialises work on one session within a process (other
// processes, and other nodes, are kept honest by the transactions and by
// the extraction lease).
var sessionLocks sync.Map // palace + "\x00" + session id -> *sync.Mutex

func (r Recorder) lock(sessionID string) func() {
	m, _ := sessionLocks.LoadOrStore(fmt.Sprintf("%p\x00%s", r.p, sessionID), &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func validateSessionID(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return palace.Invalidf("session id is empty")
	case len(id) > MaxIDBytes:
		return palace.Invalidf("session id is %d bytes; the limit is %d", len(id), MaxIDBytes)
	case !utf8.ValidString(id) || strings.ContainsRune(id, 0):
		return palace.Invalidf("session id must be valid UTF-8 without NUL")
	}
	return nil
}

// cleanMessages validates messages and returns redacted copies with ids
// and timestamps filled in.
func (r Recorder) cleanMessages(msgs []extract.Message) ([]extract.Message, error) {
	if len(msgs) == 0 {
		return nil, palace.Invalidf("no messages")
	}
	if len(msgs) > MaxAppendMessages {
		return nil, palace.Invalidf("%d messages in one call; the limit is %d", len(msgs), MaxAppendMessages)
	}
	now := r.p.Now()
	out := make([]extract.Message, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case "user", "assistant", "tool":
		default:
			return nil, palace.Invalidf("message %d: role must be user, assistant or tool, got %q", i, palace.Truncate(m.Role, 40))
		}
		if !utf8.ValidString(m.Text) || strings.ContainsRune(m.Text, 0) {
			return nil, palace.Invalidf("message %d: text must be valid UTF-8 without NUL", i)
		}
		if len(m.Text) > palace.MaxContentBytes {
			return nil, palace.Invalidf("message %d: text is %d bytes; the limit is %d", i, len(m.Text), palace.MaxContentBytes)
		}
		if strings.TrimSpace(m.Text) == "" && len(m.ToolCalls) == 0 && m.ToolCallID == "" {
			return nil, palace.Invalidf("message %d has no text", i)
		}
		if m.Content != nil && !json.Valid(m.Content) {
			return nil, palace.Invalidf("message %d: content is not valid JSON", i)
		}
		if m.ID == "" {
			id, err := uuid.NewV7()
			if err != nil {
				return nil, palace.StoreError("make message id", err)
			}
			m.ID = id.String()
		}
		if m.Timestamp.IsZero() {
			m.Timestamp = now
		}
		m.Text, _ = palace.Scrub(m.Text)
		m.SenderName, _ = palace.Scrub(m.SenderName)
		if len(m.ToolCalls) > 0 {
			tcs := make([]extract.ToolCall, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				tc.Arguments, _ = palace.Scrub(tc.Arguments)
				tcs[j] = tc
			}
			m.ToolCalls = tcs
		}
		if m.Content != nil {
			m.Content, _ = palace.ScrubJSON(m.Content)
		}
		out[i] = m
	}
	return out, nil
}

// Append buffers messages of one session and runs boundary detection;
// messages that close a stretch are extracted into drawers in the same call.
//
// The messages are committed to the buffer before extraction starts. If
// extraction then fails (an LLM outage), the call still succeeds with
// status "accumulated": the stretch stays buffered and the next Append or
// Flush retries it.
func (r Recorder) Append(ctx context.Context, sessionID string, msgs []extract.Message, opt Options) (Result, error) {
	if err := validateSessionID(sessionID); err != nil {
		return Result{}, err
	}
	clean, err := r.cleanMessages(msgs)
	if err != nil {
		return Result{}, err
	}
	unlock := r.lock(sessionID)
	defer unlock()

	decided := r.llmBoundaries(ctx, sessionID, clean)
	fresh, err := r.buffer(ctx, sessionID, clean, decided, opt)
	if err != nil {
		return Result{}, err
	}
	if !fresh {
		n, err := r.count(ctx, sessionID)
		return Result{Status: Accumulated, Duplicate: true, Buffered: n, DrawerIDs: []string{}}, err
	}
	res, err := r.extractClosed(ctx, sessionID, opt, false)
	if err != nil {
		if ctx.Err() != nil {
			return res, err
		}
		log := r.p.Logger()
		log.Warn().Err(err).Str("session", sessionID).Msg("extraction failed; the messages stay buffered for the next try")
		res.Status = Accumulated
	}
	res.Buffered, err = r.count(ctx, sessionID)
	return res, err
}

// Flush extracts whatever is buffered for the session now.
//
// With nothing buffered it returns status "accumulated", Buffered 0 and no
// drawers. A failed extraction returns the error and leaves the buffer as
// it was.
func (r Recorder) Flush(ctx context.Context, sessionID string, opt Options) (Result, error) {
	return r.flush(ctx, sessionID, opt, false)
}

// flush is Flush; quiet, for FlushQuiet, leaves the session alone
// (errLeased) while another process or node holds its extraction.
func (r Recorder) flush(ctx context.Context, sessionID string, opt Options, quiet bool) (Result, error) {
	if err := validateSessionID(sessionID); err != nil {
		return Result{}, err
	}
	unlock := r.lock(sessionID)
	defer unlock()
	if err := r.closeOpenStretch(ctx, sessionID); err != nil {
		return Result{}, err
	}
	res, err := r.extractClosed(ctx, sessionID, opt, quiet)
	if err != nil {
		return res, err
	}
	res.Buffered, err = r.count(ctx, sessionID)
	return res, err
}

// FlushQuiet extracts the conversations that have gone quiet: sessions
// to which nothing has arrived for the boundary detector's gap
// (Boundaries.MaxGap) by the palace's clock, and whose next message,
// were it sent now, would start a new stretch by the detector's own rule
// (an LLM detector is bound only by the calendar day). Their open
// stretch is complete, so it is extracted now rather than when the
// session's next message comes, which for a conversation that ended is
// never: a client that never calls /flush (it is optional) would leave
// each conversation's last stretch unsearchable as memories. A session
// whose extraction failed since it last succeeded is left to its
// client's next call, as loci doctor says, and one that another process
// or node is extracting (it holds the session's extraction lease) is left
// to it: processes sharing a palace do not each call the model for the
// same messages. It returns how many sessions it extracted, and the
// extractions that failed.
func (r Recorder) FlushQuiet(ctx context.Context) (int, error) {
	st := r.p.Store().Sessions()
	now := r.p.Now()
	quiet, err := st.Quiet(ctx, now.Add(-boundaries.MaxGap))
	if err != nil || len(quiet) == 0 {
		return 0, palace.StoreError("list quiet sessions", err)
	}
	fails, err := st.Failures(ctx)
	if err != nil {
		return 0, palace.StoreError("list failed extractions", err)
	}
	failing := map[string]bool{}
	for _, f := range fails {
		failing[f.SessionID] = true
	}
	starts := boundaries
	if _, ok := r.extractor().(extract.BoundaryDetector); ok {
		starts.MaxGap = 0 // the model decides, but a new day always starts a stretch
	}
	flushed, errs := 0, []error(nil)
	for _, id := range quiet {
		if failing[id] {
			continue
		}
		rows, err := st.Messages(ctx, id)
		if err != nil {
			return flushed, palace.StoreError("read session buffer", err)
		}
		if len(rows) == 0 { // extracted since it was listed
			continue
		}
		var last extract.Message // decoded: its time keeps the zone days are read in
		if err := json.Unmarshal(rows[len(rows)-1].Message, &last); err != nil {
			return flushed, palace.StoreError("decode buffered message", err)
		}
		if !starts.Starts(last, extract.Message{Timestamp: now}) {
			continue
		}
		if _, err := r.flush(ctx, id, Options{}, true); err != nil {
			if errors.Is(err, errLeased) {
				continue
			}
			if errors.Is(err, store.ErrReadOnly) {
				return flushed, nil // a palace this process cannot write: another one extracts
			}
			if ctx.Err() != nil {
				return flushed, err
			}
			errs = append(errs, err) // recorded as the session's failure; the others go on
			continue
		}
		flushed++
	}
	return flushed, errors.Join(errs...)
}

// decode turns buffered rows into messages.
func decode(rows []store.Buffered) ([]extract.Message, error) {
	out := make([]extract.Message, 0, len(rows))
	for _, b := range rows {
		var m extract.Message
		if err := json.Unmarshal(b.Message, &m); err != nil {
			return nil, palace.StoreError("decode buffered message", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// Messages returns the messages buffered for the session, oldest first
// (an empty slice when none).
func (r Recorder) Messages(ctx context.Context, sessionID string) ([]extract.Message, error) {
	if err := validateSessionID(sessionID); err != nil {
		return nil, err
	}
	rows, err := r.p.Store().Sessions().Messages(ctx, sessionID)
	if err != nil {
		return nil, palace.StoreError("read session buffer", err)
	}
	return decode(rows)
}

// Buffered lists the sessions that have buffered messages, with their
// counts.
func (r Recorder) Buffered(ctx context.Context) (map[string]int, error) {
	return r.p.BufferedCounts(ctx)
}

func (r Recorder) count(ctx context.Context, sessionID string) (int, error) {
	n, err := r.p.Store().Sessions().Count(ctx, sessionID)
	return n, palace.StoreError("count session buffer", err)
}

// openStretch reads the open stretch's number and its messages.
func openStretch(ctx context.Context, q store.SessionReader, sessionID string) (int64, []extract.Message, error) {
	open, err := q.OpenStretch(ctx, sessionID)
	if err != nil {
		return 0, nil, palace.StoreError("read session buffer", err)
	}
	rows, err := q.Stretch(ctx, sessionID, open)
	if err != nil {
		return 0, nil, palace.StoreError("read session buffer", err)
	}
	msgs, err := decode(rows)
	return open, msgs, err
}

// llmBoundaries asks the extractor, when it detects boundaries itself, where
// the new messages start stretches. nil means "use the heuristic"; a
// failing detector falls back to the heuristic for the rest.
func (r Recorder) llmBoundaries(ctx context.Context, sessionID string, msgs []extract.Message) []bool {
	bd, ok := r.extractor().(extract.BoundaryDetector)
	if !ok {
		return nil
	}
	_, open, err := openStretch(ctx, r.p.Store().Sessions(), sessionID)
	if err != nil {
		return nil
	}
	out := make([]bool, len(msgs))
	for i, m := range msgs {
		if len(open) > 0 {
			starts, err := bd.Boundary(ctx, open, m)
			if err != nil {
				log := r.p.Logger()
				log.Warn().Err(err).Msg("boundary detector failed; using the heuristic")
				return nil
			}
			out[i] = starts
			if starts {
				open = open[:0]
			}
		}
		open = append(open, m)
	}
	return out
}

// claimedKey is what the store keeps of a request key: its SHA-256. A key
// is only ever compared, and a client may send anything there, a
// credential included; the hash lets nothing of it reach disk.
func claimedKey(k string) string {
	sum := sha256.Sum256([]byte(k))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// buffer appends the messages to the buffer, numbering stretches.
// It reports false, buffering nothing, when opt.RequestKey was seen before.
func (r Recorder) buffer(ctx context.Context, sessionID string, msgs []extract.Message, decided []bool, opt Options) (bool, error) {
	fresh := true
	err := r.p.Write(ctx, func(t *palace.Tx) error {
		st := t.Store().Sessions()
		if opt.RequestKey != "" {
			var err error
			if fresh, err = st.Claim(ctx, claimedKey(opt.RequestKey), t.Now(), RequestKeyLifetime); err != nil || !fresh {
				return palace.StoreError("claim request key", err)
			}
		}
		open, cur, err := openStretch(ctx, st, sessionID)
		if err != nil {
			return err
		}
		count, size := len(cur), 0
		var last extract.Message
		for _, m := range cur {
			size += extract.Size(m)
			last = m
		}
		for i, m := range msgs {
			if count > 0 {
				starts := boundaries.Starts(last, m)
				if decided != nil {
					starts = decided[i]
				}
				if starts {
					open++
					count, size = 0, 0
				}
			}
			raw, err := json.Marshal(m)
			if err != nil {
				return palace.StoreError("encode message", err)
			}
			if err := st.Append(ctx, store.Buffered{SessionID: sessionID, Stretch: open, Role: m.Role,
				SenderID: m.SenderID, At: m.Timestamp, Size: extract.Size(m), Message: raw,
				UserID: opt.UserID, AgentID: opt.AgentID, Agent: opt.Agent, AddedAt: t.Now()}); err != nil {
				return palace.StoreError("buffer message", err)
			}
			count++
			size += extract.Size(m)
			last = m
			if boundaries.Full(count, size) {
				open++
				count, size = 0, 0
			}
		}
		return palace.StoreError("write session state", st.SetOpenStretch(ctx, sessionID, open, t.Now()))
	})
	return fresh, err
}

// closeOpenStretch closes the open stretch if it holds messages.
func (r Recorder) closeOpenStretch(ctx context.Context, sessionID string) error {
	return r.p.Write(ctx, func(t *palace.Tx) error {
		st := t.Store().Sessions()
		open, cur, err := openStretch(ctx, st, sessionID)
		if err != nil || len(cur) == 0 {
			return err
		}
		return palace.StoreError("write session state", st.SetOpenStretch(ctx, sessionID, open+1, t.Now()))
	})
}

// errLeased means another process or node holds the session's
// extraction.
var errLeased = errors.New("another process is extracting the session")

// extractClosed extracts every closed stretch of the session, oldest first,
// stopping at the first failure. It holds the session's extraction lease
// while it works, when no one else does; with quiet it leaves a session
// someone else holds (errLeased), and without it, a client's own call,
// it goes on: the other's work and its own are the same, and the one
// that commits second finds the stretch gone and writes nothing.
func (r Recorder) extractClosed(ctx context.Context, sessionID string, opt Options, quiet bool) (Result, error) {
	res := Result{Status: Accumulated, DrawerIDs: []string{}}
	stretches, err := r.p.Store().Sessions().ClosedStretches(ctx, sessionID)
	if err != nil {
		return res, palace.StoreError("read session buffer", err)
	}
	if len(stretches) == 0 {
		return res, nil
	}
	release, held, err := r.hold(ctx, sessionID)
	if err != nil {
		return res, err
	}
	defer release()
	if !held && quiet {
		return res, errLeased
	}
	for _, s := range stretches {
		ids, done, err := r.extractStretch(ctx, sessionID, s, opt)
		if err != nil {
			r.noteFailure(sessionID, err)
			return res, err
		}
		if done {
			res.Status = Extracted
			res.DrawerIDs = append(res.DrawerIDs, ids...)
		}
	}
	return res, nil
}

// hold takes the session's extraction lease and renews it until release
// is called, which gives it up. held is false, and release does nothing,
// when another process or node holds it.
func (r Recorder) hold(ctx context.Context, sessionID string) (release func(), held bool, err error) {
	holder := fmt.Sprintf("%s/%p", holderToken, r.p)
	lease := func(ctx context.Context) (ok bool, err error) {
		err = r.p.Write(ctx, func(t *palace.Tx) error {
			ok, err = t.Store().Sessions().Lease(ctx, sessionID, holder, t.Now(), t.Now().Add(extractionLease))
			return palace.StoreError("lease session extraction", err)
		})
		return ok, err
	}
	if held, err = lease(ctx); err != nil || !held {
		return func() {}, false, err
	}
	stop := make(chan struct{})
	var renewing sync.WaitGroup
	renewing.Go(func() {
		tick := time.NewTicker(extractionLease / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				// A renewal that fails lets another process in once the
				// lease ends: at worst both extract, as without a lease.
				_, _ = lease(ctx)
			}
		}
	})
	return func() {
		close(stop)
		renewing.Wait()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = r.p.Write(rctx, func(t *palace.Tx) error { // unreleased, it ends on its own
			return t.Store().Sessions().Release(rctx, sessionID, holder)
		})
	}, true, nil
}

func (r Recorder) noteFailure(sessionID string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, _ := redact.String(err.Error())
	_ = r.p.Write(ctx, func(t *palace.Tx) error {
		return t.Store().Sessions().NoteFailure(ctx, sessionID, palace.Truncate(msg, 500))
	})
}

// errConsumed means another caller extracted the stretch first.
var errConsumed = errors.New("stretch already extracted")

type bufferedRow struct {
	id  int64
	msg extract.Message
	opt Options
}

// extractStretch turns one closed stretch into drawers. done is false when
// the stretch had already been consumed by someone else.
func (r Recorder) extractStretch(ctx context.Context, sessionID string, stretch int64, opt Options) (ids []string, done bool, err error) {
	rows, err := r.p.Store().Sessions().Stretch(ctx, sessionID, stretch)
	if err != nil {
		return nil, false, palace.StoreError("read session buffer", err)
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	buf := make([]bufferedRow, len(rows))
	for i, b := range rows {
		buf[i] = bufferedRow{id: b.ID, opt: Options{UserID: b.UserID, AgentID: b.AgentID, Agent: b.Agent}}
		if err := json.Unmarshal(b.Message, &buf[i].msg); err != nil {
			return nil, false, palace.StoreError("decode buffered message", err)
		}
	}
	// Options given now win; otherwise the latest ones stored with the rows.
	for i := len(buf) - 1; i >= 0; i-- {
		o := buf[i].opt
		if opt.UserID == "" {
			opt.UserID = o.UserID
		}
		if opt.AgentID == "" {
			opt.AgentID = o.AgentID
		}
		opt.Agent = opt.Agent || o.Agent
	}
	plan, err := r.planExtraction(ctx, sessionID, buf, opt)
	if err != nil {
		return nil, false, err
	}
	for attempt := 0; ; attempt++ {
		err = r.commitExtraction(ctx, sessionID, stretch, buf, plan)
		if errors.Is(err, errConsumed) {
			return nil, false, nil
		}
		if errors.Is(err, palace.ErrConflict) && attempt < 3 {
			continue // a profile drawer appeared meanwhile: merge into it
		}
		if err != nil {
			return nil, false, err
		}
		return plan.ids(), true, nil
	}
}

// AllocIDs reserves n ids in seed 001's format <owner>_<code>_<YYYYMMDD>_<NNNNNNNN>,
// numbered per owner, code and day (the day of at, in at's time zone).
// Codes: "ep" episode, "af" atomic fact, "ac" agent case, "sk" agent skill.
// Numbers are never reused; a failed write may leave a gap.
func (r Recorder) AllocIDs(ctx context.Context, owner, code string, at time.Time, n int) ([]string, error) {
	if owner == "" || code == "" || n <= 0 {
		return nil, palace.Invalidf("AllocIDs needs an owner, a code and n > 0")
	}
	prefix := owner + "_" + code + "_" + at.Format("20060102")
	var last int64
	err := r.p.Write(ctx, func(t *palace.Tx) error {
		var err error
		last, err = t.Store().Sessions().Reserve(ctx, prefix, n)
		return palace.StoreError("allocate ids", err)
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s_%08d", prefix, last-int64(n)+int64(i)+1)
	}
	return out, nil
}
