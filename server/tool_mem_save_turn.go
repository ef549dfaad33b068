package server

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
)

// mem_save_turn (seed 000) records conversation turns, tool round trips
// included, in the session buffer named by sessionKey. Boundary detection
// and extraction are the palace's: closed stretches become an episode with
// atomic facts for the user and, when the assistant called tools, an agent
// case (the trajectory). flush extracts what is buffered at once.
type saveTurnParams struct {
	Messages   []turnParam  `json:"messages" desc:"Turns in order"`
	Role       string       `json:"role" enum:"user,assistant,tool" desc:"Legacy single-turn form: the role"`
	Text       *turnContent `json:"text" desc:"Legacy single-turn form: the text"`
	Content    *turnContent `json:"content" desc:"Legacy single-turn form: the text (alias of 'text')"`
	Timestamp  *turnTime    `json:"timestamp" desc:"Legacy single-turn form: when it happened (epoch milliseconds or RFC 3339; default now)"`
	SessionKey string       `json:"sessionKey" desc:"Conversation buffer to append to (default \"default\")"`
	Flush      bool         `json:"flush" desc:"Extract the buffered turns now (default false)"`
	UserID     string       `json:"userId" desc:"Owner of the extracted user memories (default $LOCI_USER_ID or \"user\")"`
	AgentID    string       `json:"agentId" desc:"Owner of the extracted agent cases (default $LOCI_AGENT_ID or \"agent\")"`
	Palace     string       `json:"palace"`
}

// turnParam is one turn of messages[].
type turnParam struct {
	Role       string          `json:"role" required:"true" enum:"user,assistant,tool"`
	Content    turnContent     `json:"content" desc:"The turn's text"`
	ToolCalls  []toolCallParam `json:"toolCalls" desc:"Tool calls made by an assistant turn"`
	ToolCallID string          `json:"toolCallId" desc:"For a tool turn: the id of the call it answers"`
	Timestamp  turnTime        `json:"timestamp" desc:"When the turn happened: epoch milliseconds or RFC 3339 (default now)"`
}

// toolCallParam is one tool call of an assistant turn.
type toolCallParam struct {
	ID        string   `json:"id" required:"schema"`
	Name      string   `json:"name" required:"schema"`
	Arguments toolArgs `json:"arguments" desc:"JSON-encoded arguments"`
}

// maxSaveTurnMessages bounds mem_save_turn's messages[] (as seed 001's /add).
const maxSaveTurnMessages = 500

// statusEmpty answers a flush that found nothing to extract and no turns.
const statusEmpty = "empty"

// saveTurnResult is mem_save_turn's answer. Status is "accumulated" (the
// turns wait in the buffer), "extracted" (drawers were written) or, for a
// flush of an empty buffer with no new turns, "empty" (nothing to do).
type saveTurnResult struct {
	Status     string   `json:"status"`
	Saved      int      `json:"saved"`
	SessionKey string   `json:"sessionKey"`
	Buffered   int      `json:"buffered"`
	Flushed    bool     `json:"flushed"`
	DrawerIDs  []string `json:"drawerIds"`
}

func memSaveTurnTool() *tool {
	return newTool("mem_save_turn",
		"Record conversation turns (including tool calls and their results) so they become long-term memory. "+
			"Give 'messages' (user / assistant with optional toolCalls / tool with toolCallId), or the legacy 'role' plus "+
			"'text' or 'content' for one turn. Turns accumulate per 'sessionKey' (default \"default\") and are extracted "+
			"into episodes, facts and agent cases when the conversation moves on; 'flush' extracts now. Returns JSON with the save status.",
		resultErrors, memSaveTurn)
}

func memSaveTurn(ctx context.Context, s *Server, p saveTurnParams) (saveTurnResult, error) {
	msgs := p.turns()
	if len(msgs) == 0 && !p.Flush {
		return saveTurnResult{}, argErrorf("missing 'messages' (or 'role' with 'text'); pass flush: true to extract without new turns")
	}
	key := strings.TrimSpace(p.SessionKey)
	if key == "" {
		key = "default"
	}
	opt := session.Options{UserID: envOr("LOCI_USER_ID", "user"), AgentID: envOr("LOCI_AGENT_ID", "agent")}
	if v := strings.TrimSpace(p.UserID); v != "" {
		opt.UserID = v
	}
	if v := strings.TrimSpace(p.AgentID); v != "" {
		opt.AgentID = v
	}
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return saveTurnResult{}, err
	}
	res := session.Result{Status: session.Accumulated}
	if len(msgs) > 0 {
		if res, err = session.Of(pal).Append(ctx, key, msgs, opt); err != nil {
			return saveTurnResult{}, err
		}
	}
	ids := append([]string{}, res.DrawerIDs...)
	if p.Flush {
		fr, err := session.Of(pal).Flush(ctx, key, opt)
		if err != nil {
			return saveTurnResult{}, err
		}
		ids = append(ids, fr.DrawerIDs...)
		res.Buffered = fr.Buffered
		switch {
		case fr.Status == session.Extracted:
			res.Status = session.Extracted
		case len(msgs) == 0 && fr.Buffered == 0:
			res.Status = statusEmpty
		}
	}
	return saveTurnResult{Status: res.Status, Saved: len(msgs), SessionKey: key, Buffered: res.Buffered,
		Flushed: p.Flush, DrawerIDs: ids}, nil
}

// check applies the rules across the top-level arguments: messages[] or
// the legacy single turn, not both.
func (p *saveTurnParams) check(string) error {
	legacy := p.Role != "" || p.Text != nil || p.Content != nil
	if p.Messages != nil {
		if legacy || p.Timestamp != nil {
			return argErrorf("give either 'messages' or the legacy 'role' with 'text', not both")
		}
		if len(p.Messages) > maxSaveTurnMessages {
			return argErrorf("'messages' has %d turns; the limit is %d", len(p.Messages), maxSaveTurnMessages)
		}
		return nil
	}
	if !legacy {
		return nil
	}
	if p.Text != nil && p.Content != nil {
		return argErrorf("give 'text' or 'content', not both")
	}
	if p.Role == "" {
		return argErrorf("missing 'role' (user, assistant or tool)")
	}
	t := p.legacyTurn()
	return t.check("")
}

// legacyTurn is the single turn of the legacy form.
func (p *saveTurnParams) legacyTurn() turnParam {
	t := turnParam{Role: p.Role}
	switch {
	case p.Text != nil:
		t.Content = *p.Text
	case p.Content != nil:
		t.Content = *p.Content
	}
	if p.Timestamp != nil {
		t.Timestamp = *p.Timestamp
	}
	return t
}

// turns are the call's turns as the palace takes them.
func (p *saveTurnParams) turns() []extract.Message {
	if p.Messages == nil {
		if p.Role == "" {
			return nil
		}
		return []extract.Message{p.legacyTurn().message()}
	}
	out := make([]extract.Message, len(p.Messages))
	for i, t := range p.Messages {
		out[i] = t.message()
	}
	return out
}

// check applies the rules across a turn's fields; at is the prefix of its
// names ("messages[0]." or "").
func (t *turnParam) check(at string) error {
	if t.ToolCallID != "" && t.Role != "tool" {
		return argErrorf("'%stoolCallId' belongs on a tool turn", at)
	}
	if t.ToolCalls != nil && t.Role != "assistant" {
		return argErrorf("'%stoolCalls' belongs on an assistant turn", at)
	}
	if strings.TrimSpace(string(t.Content)) == "" && len(t.ToolCalls) == 0 && t.ToolCallID == "" {
		return argErrorf("'%scontent' is empty", at)
	}
	return nil
}

func (t turnParam) message() extract.Message {
	m := extract.Message{Role: t.Role, Text: string(t.Content), ToolCallID: t.ToolCallID, Timestamp: t.Timestamp.Time}
	for _, tc := range t.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, extract.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: string(tc.Arguments)})
	}
	return m
}

func (tc *toolCallParam) check(at string) error {
	if strings.TrimSpace(tc.ID) == "" || strings.TrimSpace(tc.Name) == "" {
		return argErrorf("'%s' needs a string 'id' and 'name'", strings.TrimSuffix(at, "."))
	}
	return nil
}

// turnContent is a turn's text: a string or an array of text blocks.
type turnContent string

func (turnContent) schema() *schema { return &schema{Type: "string"} }

func (c *turnContent) decodeArg(name string, raw json.RawMessage) error {
	text, err := decodeContent(name, raw, skipOtherBlocks)
	*c = turnContent(text)
	return err
}

// toolArgs are a tool call's arguments: JSON text, or a JSON value kept
// as its text.
type toolArgs string

func (toolArgs) schema() *schema { return &schema{Type: "string"} }

func (a *toolArgs) decodeArg(name string, raw json.RawMessage) error {
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return argErrorf("'%s' is not a valid string", name)
		}
		*a = toolArgs(s)
		return nil
	}
	*a = toolArgs(raw)
	return nil
}

// turnTime is when a turn happened: epoch milliseconds (seconds below
// 10^12, as seed 001 allows) or RFC 3339.
type turnTime struct{ time.Time }

func (*turnTime) schema() *schema { return &schema{Type: []string{"integer", "string"}} }

func (t *turnTime) decodeArg(name string, raw json.RawMessage) error {
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return argErrorf("'%s' must be epoch milliseconds or RFC 3339, got %q", name, oneLine(s, 40))
		}
		t.Time = v
		return nil
	}
	if !isNumber(raw) {
		return argErrorf("'%s' must be epoch milliseconds or RFC 3339", name)
	}
	x, err := number(name, raw)
	if err != nil || x <= 0 || x != math.Trunc(x) || x > 1e15 {
		return argErrorf("'%s' must be positive epoch milliseconds", name)
	}
	t.Time = palace.Epoch(int64(x))
	return nil
}

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}
