package claudecode

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
)

// idSpace is the namespace of the name-based (version 5) UUIDs the hooks
// give turn and session drawers, so that the same turn or session always
// gets the same drawer id and is stored once however often a hook fires.
var idSpace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/loci-mem/loci/hooks"))

// TagClaudeCode marks every drawer the hooks write.
const TagClaudeCode = "claude-code"

const (
	turnUserPrefix      = "User: "
	turnAssistantPrefix = "Assistant: "
	// maxTurnSide bounds each side of a turn drawer's text; the session
	// buffer still receives the whole turn.
	maxTurnSide = 32 << 10
)

// TurnDrawerID is the id of the drawer holding a session's turn.
func TurnDrawerID(sessionID string, t Turn) string {
	key := t.ID
	if key == "" {
		key = t.Start.UTC().Format(time.RFC3339Nano) + "\x00" + t.User
	}
	return uuid.NewSHA1(idSpace, []byte("turn\x00"+sessionID+"\x00"+key)).String()
}

// SessionDrawerID is the id of the drawer holding a session's summary.
func SessionDrawerID(sessionID string) string {
	return uuid.NewSHA1(idSpace, []byte("session\x00"+sessionID)).String()
}

// Stop saves the turn Claude just finished: as a searchable drawer of kind
// turn (found by the next prompt at once) and through the session buffer,
// the path mem_save_turn takes, which extracts episodes and facts from it.
// A turn already saved (the hook fired twice) is not saved again.
func (r *Runner) Stop(ctx context.Context, in Input) (Output, error) {
	if in.TranscriptPath == "" || in.SessionID == "" {
		return FailOpen(), errors.New("stop: no transcript_path or session_id in the input")
	}
	turn, ok, err := ReadLastTurn(ctx, in.TranscriptPath, r.cfg.TranscriptAttempts, r.cfg.TranscriptDelay)
	if err != nil {
		return FailOpen(), fmt.Errorf("read transcript: %w", err)
	}
	if !ok {
		r.log.Debug().Msg("no turn with a prompt in the transcript; nothing saved")
		return FailOpen(), nil
	}
	r.log.Debug().Bool("complete", turn.Complete).Int("user_chars", utf8.RuneCountInString(turn.User)).
		Int("assistant_chars", utf8.RuneCountInString(turn.Assistant)).Msg("turn read")
	p, err := r.cfg.Palace(ctx, true)
	if err != nil {
		return FailOpen(), err
	}
	saved, bufErr, err := SaveTurn(ctx, p, in.SessionID, turn, r.owners())
	switch {
	case err != nil:
		return FailOpen(), err
	case !saved:
		r.log.Debug().Str("drawer", TurnDrawerID(in.SessionID, turn)).Msg("turn already saved")
		return FailOpen(), nil
	case bufErr != nil:
		// The turn drawer is stored; only extraction misses this turn.
		r.log.Warn().Err(bufErr).Msg("session buffer refused the turn")
	}
	return Output{Continue: true, SystemMessage: fmt.Sprintf("💾 loci: turn saved (user %d chars, assistant %d chars)",
		utf8.RuneCountInString(turn.User), utf8.RuneCountInString(turn.Assistant))}, nil
}

// Owners are whose memories a session's turns become (the session
// buffer's owners; see Config).
type Owners struct{ UserID, AgentID string }

func (r *Runner) owners() Owners { return Owners{UserID: r.cfg.UserID, AgentID: r.cfg.AgentID} }

// SaveTurn stores a turn of a Claude Code session as the Stop hook does: a
// searchable drawer of kind turn, and the turn appended to the session
// buffer, the path mem_save_turn takes, which extracts episodes and facts
// from it. saved is false for a turn already stored (its drawer id is the
// turn's, TurnDrawerID), which is left as it is. A buffer that refuses the
// turn is not the turn's failure: its drawer is stored, and the refusal is
// returned as bufErr.
func SaveTurn(ctx context.Context, p *palace.Palace, sessionID string, turn Turn, o Owners) (saved bool, bufErr, err error) {
	d := &palace.Drawer{
		ID:        TurnDrawerID(sessionID, turn),
		Kind:      palace.KindTurn,
		Content:   turnText(turn),
		Tags:      []string{TagClaudeCode},
		SessionID: sessionID,
		UserID:    o.UserID,
		Timestamp: turn.Start,
		Meta: map[string]any{
			"source":    TagClaudeCode,
			"turn_uuid": turn.ID,
			"ended_at":  turn.End.UTC().Format(time.RFC3339Nano),
			"complete":  turn.Complete,
		},
	}
	if err := p.Add(ctx, d); err != nil {
		if errors.Is(err, palace.ErrConflict) {
			return false, nil, nil
		}
		return false, nil, err
	}
	msgs := []extract.Message{{ID: turn.ID, Role: "user", Text: turn.User, Timestamp: turn.Start}}
	if turn.Assistant != "" {
		msgs = append(msgs, extract.Message{Role: "assistant", Text: turn.Assistant, Timestamp: turn.End})
	}
	_, bufErr = session.Of(p).Append(ctx, sessionID, msgs, session.Options{UserID: o.UserID, AgentID: o.AgentID})
	return true, bufErr, nil
}

// turnText is the searchable text of a turn drawer.
func turnText(t Turn) string { return TurnText(t.User, t.Assistant) }

// TurnText is the searchable text of the turn drawer the Stop hook saves
// for a prompt and the assistant's reply to it (the evaluation's hook
// path writes the same).
func TurnText(user, assistant string) string {
	s := turnUserPrefix + clipBytes(user, maxTurnSide)
	if assistant != "" {
		s += "\n\n" + turnAssistantPrefix + clipBytes(assistant, maxTurnSide)
	}
	return s
}

// clipBytes shortens s to at most n bytes on a rune boundary, marking the cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " […]"
}

// SessionEnd stores the session's summary (its first prompt, turn count,
// start and end times and why it ended) once per session, and flushes the
// session buffer so the last stretch of conversation is extracted.
func (r *Runner) SessionEnd(ctx context.Context, in Input) (Output, error) {
	if in.TranscriptPath == "" || in.SessionID == "" {
		return FailOpen(), errors.New("session-end: no transcript_path or session_id in the input")
	}
	entries, err := ReadTranscript(in.TranscriptPath)
	if err != nil {
		return FailOpen(), fmt.Errorf("read transcript: %w", err)
	}
	st := Stats(entries)
	if st.Prompts == 0 {
		r.log.Debug().Msg("session had no prompt; no summary")
		return FailOpen(), nil
	}
	p, err := r.cfg.Palace(ctx, true)
	if err != nil {
		return FailOpen(), err
	}
	saved, flushErr, err := SaveSession(ctx, p, in.SessionID, st, in.Reason, r.cfg.Now(), r.owners())
	if flushErr != nil {
		r.log.Warn().Err(flushErr).Msg("flush session buffer")
	}
	if err != nil || !saved {
		if err == nil {
			r.log.Debug().Str("drawer", SessionDrawerID(in.SessionID)).Msg("session already summarised")
		}
		return FailOpen(), err
	}
	first := clip(strings.TrimSpace(st.FirstPrompt), 200)
	return Output{Continue: true, SystemMessage: fmt.Sprintf("📝 loci: session saved (%s): %s",
		countNoun(st.Prompts, "turn"), clip(oneLine(first), 60))}, nil
}

// SaveSession ends a Claude Code session as the SessionEnd hook does: the
// session buffer flushed, so that its last stretch is extracted, and its
// summary stored once (its first prompt, turn count, start and end times
// and why it ended; reason "" is "other"; a session without times ends
// now). saved is false for a session already summarised; a buffer that
// fails to flush is returned as flushErr, and the summary is stored.
func SaveSession(ctx context.Context, p *palace.Palace, sessionID string, st SessionStats, reason string, now time.Time, o Owners) (saved bool, flushErr, err error) {
	_, flushErr = session.Of(p).Flush(ctx, sessionID, session.Options{UserID: o.UserID, AgentID: o.AgentID})
	id := SessionDrawerID(sessionID)
	if _, err := p.Get(ctx, id); err == nil {
		return false, flushErr, nil
	}
	if reason == "" {
		reason = "other"
	}
	end := st.End
	if end.IsZero() {
		end = now.UTC()
	}
	start := st.Start
	if start.IsZero() {
		start = end
	}
	first := clip(strings.TrimSpace(st.FirstPrompt), 200)
	d := &palace.Drawer{
		ID:   id,
		Kind: palace.KindSession,
		Content: fmt.Sprintf("Claude Code session (%s, %s to %s, ended: %s): %s",
			countNoun(st.Prompts, "turn"), start.Format(time.RFC3339), end.Format(time.RFC3339), reason, first),
		Tags:      []string{TagClaudeCode},
		SessionID: sessionID,
		UserID:    o.UserID,
		Timestamp: end,
		Meta: map[string]any{
			"session_id":   sessionID,
			"first_prompt": first,
			"turns":        st.Prompts,
			"started_at":   start.Format(time.RFC3339Nano),
			"ended_at":     end.Format(time.RFC3339Nano),
			"reason":       reason,
		},
	}
	if err := p.Add(ctx, d); err != nil {
		if errors.Is(err, palace.ErrConflict) {
			return false, flushErr, nil
		}
		return false, flushErr, err
	}
	return true, flushErr, nil
}

// ImportStats is what ImportTranscript did.
type ImportStats struct {
	Session string `json:"session_id"`
	Turns   int    `json:"turns"`   // the transcript's turns with a prompt
	Stored  int    `json:"stored"`  // of them, stored now
	Skipped int    `json:"skipped"` // already stored (by the hooks or an import before)
	Summary bool   `json:"summary"` // the session's summary stored now
}

// ImportTranscript stores a Claude Code transcript (a session's .jsonl, as
// ~/.claude/projects/<project>/<session id>.jsonl keeps it) as the hooks
// would have stored it had they run: every turn through SaveTurn, then the
// session ended through SaveSession (reason "imported"). The session is
// the file's name, as Claude Code names it, so a turn the Stop hook saved
// is the same drawer and is not stored twice, and importing a transcript
// again stores nothing. A buffer that refuses a turn is reported in
// warnings, and the rest goes on.
func ImportTranscript(ctx context.Context, p *palace.Palace, path string, o Owners, now time.Time) (st ImportStats, warnings []error, err error) {
	entries, err := ReadTranscript(path)
	if err != nil {
		return st, nil, err
	}
	st.Session = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	turns := Turns(entries)
	st.Turns = len(turns)
	if len(turns) == 0 {
		return st, nil, nil
	}
	for _, t := range turns {
		saved, bufErr, err := SaveTurn(ctx, p, st.Session, t, o)
		if err != nil {
			return st, warnings, err
		}
		if bufErr != nil {
			warnings = append(warnings, fmt.Errorf("turn of %s: session buffer: %w", t.Start.Format(time.RFC3339), bufErr))
		}
		if saved {
			st.Stored++
		} else {
			st.Skipped++
		}
	}
	saved, flushErr, err := SaveSession(ctx, p, st.Session, Stats(entries), "imported", now, o)
	if flushErr != nil {
		warnings = append(warnings, fmt.Errorf("flush session buffer: %w", flushErr))
	}
	st.Summary = saved
	return st, warnings, err
}
