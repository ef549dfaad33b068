package palace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/redact"
)

// Session buffers: every face that records conversation (seed 001's /add,
// seed 000's mem_save_turn, the Claude Code hooks) appends messages to a
// per-session buffer kept in SQLite. Boundary detection splits the buffer
// into stretches; a closed stretch is extracted into drawers (episodes,
// atomic facts and profile for the user track, agent cases for the agent
// track) in the same transaction that deletes the buffer rows it consumed,
// so a crash never loses nor duplicates a message.

// Outcomes of AppendMessages and FlushSession.
const (
	SessionAccumulated = "accumulated"
	SessionExtracted   = "extracted"
)

// EventSessionExtracted is logged when a stretch of a session buffer
// becomes drawers.
const EventSessionExtracted = "session.extracted"

// Limits on session input.
const (
	MaxSessionIDBytes = 256
	MaxAppendMessages = 1000
)

// AppendOptions says whose memories a session's messages become.
type AppendOptions struct {
	// UserID owns the user-track memories. Empty: each distinct sender_id
	// of a user message owns its own episode; with none, "user".
	UserID string
	// AgentID owns the agent cases. Empty: the sender_id of the first
	// assistant message; with none, "agent".
	AgentID string
	// Agent selects the agent track alone (agent cases, no episodes).
	// Without it, a stretch whose assistant turns called tools also yields
	// an agent case when an agent id is known (AgentID or an assistant
	// sender_id).
	Agent bool
}

// AppendResult reports what AppendMessages or FlushSession did.
type AppendResult struct {
	Status    string   // "accumulated" or "extracted"
	Buffered  int      // messages still buffered for the session after the call
	DrawerIDs []string // drawers written by extraction in this call (episodes, atomic facts, cases)
}

// sessionBoundaries is the heuristic boundary detector sessions use.
var sessionBoundaries = extract.DefaultBoundaries

func (p *Palace) extractor() extract.Extractor { return p.reg.Extractor() }

// sessionLocks serialises work on one session within a process (other
// processes are kept honest by the transactions).
var sessionLocks [64]sync.Mutex

func lockSession(p *Palace, sessionID string) func() {
	h := fnv.New32a()
	h.Write([]byte(p.dir))
	h.Write([]byte{0})
	h.Write([]byte(sessionID))
	mu := &sessionLocks[h.Sum32()%uint32(len(sessionLocks))]
	mu.Lock()
	return mu.Unlock
}

func validateSessionID(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return Invalidf("session id is empty")
	case len(id) > MaxSessionIDBytes:
		return Invalidf("session id is %d bytes; the limit is %d", len(id), MaxSessionIDBytes)
	case !utf8.ValidString(id) || strings.ContainsRune(id, 0):
		return Invalidf("session id must be valid UTF-8 without NUL")
	}
	return nil
}

// cleanMessages validates messages and returns redacted copies with ids
// and timestamps filled in.
func (p *Palace) cleanMessages(msgs []extract.Message) ([]extract.Message, error) {
	if len(msgs) == 0 {
		return nil, Invalidf("no messages")
	}
	if len(msgs) > MaxAppendMessages {
		return nil, Invalidf("%d messages in one call; the limit is %d", len(msgs), MaxAppendMessages)
	}
	now := p.now()
	out := make([]extract.Message, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case "user", "assistant", "tool":
		default:
			return nil, Invalidf("message %d: role must be user, assistant or tool, got %q", i, truncate(m.Role, 40))
		}
		if !utf8.ValidString(m.Text) || strings.ContainsRune(m.Text, 0) {
			return nil, Invalidf("message %d: text must be valid UTF-8 without NUL", i)
		}
		if len(m.Text) > MaxContentBytes {
			return nil, Invalidf("message %d: text is %d bytes; the limit is %d", i, len(m.Text), MaxContentBytes)
		}
		if strings.TrimSpace(m.Text) == "" && len(m.ToolCalls) == 0 && m.ToolCallID == "" {
			return nil, Invalidf("message %d has no text", i)
		}
		if m.Content != nil && !json.Valid(m.Content) {
			return nil, Invalidf("message %d: content is not valid JSON", i)
		}
		if m.ID == "" {
			id, err := uuid.NewV7()
			if err != nil {
				return nil, internal("make message id", err)
			}
			m.ID = id.String()
		}
		if m.Timestamp.IsZero() {
			m.Timestamp = now
		}
		m.Text, _ = redact.String(m.Text)
		m.SenderName, _ = redact.String(m.SenderName)
		if len(m.ToolCalls) > 0 {
			tcs := make([]extract.ToolCall, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				tc.Arguments, _ = redact.String(tc.Arguments)
				tcs[j] = tc
			}
			m.ToolCalls = tcs
		}
		if m.Content != nil {
			m.Content = redact.JSON(m.Content)
		}
		out[i] = m
	}
	return out, nil
}

// AppendMessages buffers messages of one session (scope is the palace) and runs boundary detection;
// messages that close a stretch are extracted into drawers in the same call.
//
// The messages are committed to the buffer before extraction starts. If
// extraction then fails (an LLM outage), the call still succeeds with
// status "accumulated": the stretch stays buffered and the next
// AppendMessages or FlushSession retries it.
func (p *Palace) AppendMessages(ctx context.Context, sessionID string, msgs []extract.Message, opt AppendOptions) (AppendResult, error) {
	if err := validateSessionID(sessionID); err != nil {
		return AppendResult{}, err
	}
	clean, err := p.cleanMessages(msgs)
	if err != nil {
		return AppendResult{}, err
	}
	unlock := lockSession(p, sessionID)
	defer unlock()

	decided := p.llmBoundaries(ctx, sessionID, clean)
	if err := p.bufferMessages(ctx, sessionID, clean, decided, opt); err != nil {
		return AppendResult{}, err
	}
	res, err := p.extractClosed(ctx, sessionID, opt)
	if err != nil {
		if ctx.Err() != nil {
			return res, err
		}
		p.log.Warn().Err(err).Str("session", sessionID).Msg("extraction failed; the messages stay buffered for the next try")
		res.Status = SessionAccumulated
	}
	res.Buffered, err = p.bufferedCount(ctx, sessionID)
	return res, err
}

// FlushSession extracts whatever is buffered for the session now.
//
// With nothing buffered it returns status "accumulated", Buffered 0 and no
// drawers. A failed extraction returns the error and leaves the buffer as
// it was.
func (p *Palace) FlushSession(ctx context.Context, sessionID string, opt AppendOptions) (AppendResult, error) {
	if err := validateSessionID(sessionID); err != nil {
		return AppendResult{}, err
	}
	unlock := lockSession(p, sessionID)
	defer unlock()
	if err := p.closeOpenStretch(ctx, sessionID); err != nil {
		return AppendResult{}, err
	}
	res, err := p.extractClosed(ctx, sessionID, opt)
	if err != nil {
		return res, err
	}
	res.Buffered, err = p.bufferedCount(ctx, sessionID)
	return res, err
}

// BufferedMessages returns the messages buffered for the session, oldest
// first (an empty slice when none).
func (p *Palace) BufferedMessages(ctx context.Context, sessionID string) ([]extract.Message, error) {
	if err := validateSessionID(sessionID); err != nil {
		return nil, err
	}
	rows, err := p.db.QueryContext(ctx, `SELECT message FROM session_buffer WHERE session_id = ? ORDER BY stretch, id`, sessionID)
	if err != nil {
		return nil, internal("read session buffer", err)
	}
	defer rows.Close()
	out := []extract.Message{}
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, internal("read session buffer", err)
		}
		var m extract.Message
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			return nil, internal("decode buffered message", err)
		}
		out = append(out, m)
	}
	return out, internal("read session buffer", rows.Err())
}

// BufferedSessions lists the sessions that have buffered messages, with
// their counts.
func (p *Palace) BufferedSessions(ctx context.Context) (map[string]int, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT session_id, count(*) FROM session_buffer GROUP BY session_id`)
	if err != nil {
		return nil, internal("list session buffers", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, internal("list session buffers", err)
		}
		out[s] = n
	}
	return out, internal("list session buffers", rows.Err())
}

func (p *Palace) bufferedCount(ctx context.Context, sessionID string) (int, error) {
	var n int
	err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM session_buffer WHERE session_id = ?`, sessionID).Scan(&n)
	return n, internal("count session buffer", err)
}

// openStretch reads the open stretch's number and its messages.
func openStretch(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, sessionID string) (int64, []extract.Message, error) {
	var open int64
	err := q.QueryRowContext(ctx, `SELECT open_stretch FROM session_state WHERE session_id = ?`, sessionID).Scan(&open)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT message FROM session_buffer WHERE session_id = ? AND stretch = ? ORDER BY id`, sessionID, open)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var msgs []extract.Message
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return 0, nil, err
		}
		var m extract.Message
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			return 0, nil, err
		}
		msgs = append(msgs, m)
	}
	return open, msgs, rows.Err()
}

// llmBoundaries asks the extractor, when it detects boundaries itself, where
// the new messages start stretches. nil means "use the heuristic"; a
// failing detector falls back to the heuristic for the rest.
func (p *Palace) llmBoundaries(ctx context.Context, sessionID string, msgs []extract.Message) []bool {
	bd, ok := p.extractor().(extract.BoundaryDetector)
	if !ok {
		return nil
	}
	_, open, err := openStretch(ctx, p.db, sessionID)
	if err != nil {
		return nil
	}
	out := make([]bool, len(msgs))
	for i, m := range msgs {
		if len(open) > 0 {
			starts, err := bd.Boundary(ctx, open, m)
			if err != nil {
				p.log.Warn().Err(err).Msg("boundary detector failed; using the heuristic")
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

// bufferMessages appends the messages to the buffer, numbering stretches.
func (p *Palace) bufferMessages(ctx context.Context, sessionID string, msgs []extract.Message, decided []bool, opt AppendOptions) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return internal("begin buffer write", err)
	}
	defer tx.Rollback()
	open, cur, err := openStretch(ctx, tx, sessionID)
	if err != nil {
		return internal("read session buffer", err)
	}
	count, size := len(cur), 0
	var last extract.Message
	for _, m := range cur {
		size += extract.Size(m)
		last = m
	}
	now := p.now().UTC().UnixMilli()
	for i, m := range msgs {
		if count > 0 {
			starts := sessionBoundaries.Starts(last, m)
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
			return internal("encode message", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_buffer (session_id, stretch, role, sender_id, ts,
			size, message, user_id, agent_id, agent, added_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
			sessionID, open, m.Role, m.SenderID, m.Timestamp.UnixMilli(), extract.Size(m), string(raw),
			opt.UserID, opt.AgentID, boolInt(opt.Agent), now); err != nil {
			return internal("buffer message", err)
		}
		count++
		size += extract.Size(m)
		last = m
		if sessionBoundaries.Full(count, size) {
			open++
			count, size = 0, 0
		}
	}
	if err := setOpenStretch(ctx, tx, sessionID, open, now); err != nil {
		return err
	}
	return internal("commit buffer write", tx.Commit())
}

func setOpenStretch(ctx context.Context, tx *sql.Tx, sessionID string, open, now int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO session_state (session_id, open_stretch, updated_at) VALUES (?,?,?)
		ON CONFLICT(session_id) DO UPDATE SET open_stretch = excluded.open_stretch, updated_at = excluded.updated_at`,
		sessionID, open, now)
	return internal("write session state", err)
}

// closeOpenStretch closes the open stretch if it holds messages.
func (p *Palace) closeOpenStretch(ctx context.Context, sessionID string) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return internal("begin flush", err)
	}
	defer tx.Rollback()
	open, cur, err := openStretch(ctx, tx, sessionID)
	if err != nil {
		return internal("read session buffer", err)
	}
	if len(cur) == 0 {
		return nil
	}
	if err := setOpenStretch(ctx, tx, sessionID, open+1, p.now().UTC().UnixMilli()); err != nil {
		return err
	}
	return internal("commit flush", tx.Commit())
}

// extractClosed extracts every closed stretch of the session, oldest first,
// stopping at the first failure.
func (p *Palace) extractClosed(ctx context.Context, sessionID string, opt AppendOptions) (AppendResult, error) {
	res := AppendResult{Status: SessionAccumulated, DrawerIDs: []string{}}
	rows, err := p.db.QueryContext(ctx, `SELECT DISTINCT b.stretch FROM session_buffer b
		JOIN session_state s ON s.session_id = b.session_id
		WHERE b.session_id = ? AND b.stretch < s.open_stretch ORDER BY b.stretch`, sessionID)
	if err != nil {
		return res, internal("read session buffer", err)
	}
	var stretches []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return res, internal("read session buffer", err)
		}
		stretches = append(stretches, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, internal("read session buffer", err)
	}
	for _, s := range stretches {
		ids, done, err := p.extractStretch(ctx, sessionID, s, opt)
		if err != nil {
			p.noteExtractFailure(sessionID, err)
			return res, err
		}
		if done {
			res.Status = SessionExtracted
			res.DrawerIDs = append(res.DrawerIDs, ids...)
		}
	}
	return res, nil
}

func (p *Palace) noteExtractFailure(sessionID string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, _ := redact.String(err.Error())
	_, _ = p.db.ExecContext(ctx, `UPDATE session_state SET attempts = attempts + 1, last_error = ? WHERE session_id = ?`,
		truncate(msg, 500), sessionID)
}

// errConsumed means another caller extracted the stretch first.
var errConsumed = errors.New("stretch already extracted")

type bufferedRow struct {
	id  int64
	msg extract.Message
	opt AppendOptions
}

// extractStretch turns one closed stretch into drawers. done is false when
// the stretch had already been consumed by someone else.
func (p *Palace) extractStretch(ctx context.Context, sessionID string, stretch int64, opt AppendOptions) (ids []string, done bool, err error) {
	rows, err := p.db.QueryContext(ctx, `SELECT id, message, user_id, agent_id, agent FROM session_buffer
		WHERE session_id = ? AND stretch = ? ORDER BY id`, sessionID, stretch)
	if err != nil {
		return nil, false, internal("read session buffer", err)
	}
	var buf []bufferedRow
	for rows.Next() {
		var r bufferedRow
		var raw string
		var agent int
		if err := rows.Scan(&r.id, &raw, &r.opt.UserID, &r.opt.AgentID, &agent); err != nil {
			rows.Close()
			return nil, false, internal("read session buffer", err)
		}
		r.opt.Agent = agent != 0
		if err := json.Unmarshal([]byte(raw), &r.msg); err != nil {
			rows.Close()
			return nil, false, internal("decode buffered message", err)
		}
		buf = append(buf, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, internal("read session buffer", err)
	}
	if len(buf) == 0 {
		return nil, false, nil
	}
	// Options given now win; otherwise the latest ones stored with the rows.
	for i := len(buf) - 1; i >= 0; i-- {
		r := buf[i].opt
		if opt.UserID == "" {
			opt.UserID = r.UserID
		}
		if opt.AgentID == "" {
			opt.AgentID = r.AgentID
		}
		opt.Agent = opt.Agent || r.Agent
	}
	plan, err := p.planExtraction(ctx, sessionID, buf, opt)
	if err != nil {
		return nil, false, err
	}
	for attempt := 0; ; attempt++ {
		err = p.commitExtraction(ctx, sessionID, stretch, buf, plan)
		if errors.Is(err, errConsumed) {
			return nil, false, nil
		}
		if errors.Is(err, ErrConflict) && attempt < 3 {
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
func (p *Palace) AllocIDs(ctx context.Context, owner, code string, at time.Time, n int) ([]string, error) {
	if owner == "" || code == "" || n <= 0 {
		return nil, Invalidf("AllocIDs needs an owner, a code and n > 0")
	}
	prefix := owner + "_" + code + "_" + at.Format("20060102")
	var last int64
	err := p.db.QueryRowContext(ctx, `INSERT INTO id_counters (prefix, n) VALUES (?, ?)
		ON CONFLICT(prefix) DO UPDATE SET n = n + excluded.n RETURNING n`, prefix, n).Scan(&last)
	if err != nil {
		return nil, internal("allocate ids", err)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s_%08d", prefix, last-int64(n)+int64(i)+1)
	}
	return out, nil
}
