package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
	"github.com/mark3labs/mcp-go/mcp"
)

// maxSaveTurnMessages bounds mem_save_turn's messages[] (as seed 001's /add).
const maxSaveTurnMessages = 500

// mem_save_turn (seed 000) records conversation turns, tool round trips
// included, in the session buffer named by sessionKey. Boundary detection
// and extraction are the palace's: closed stretches become an episode with
// atomic facts for the user and, when the assistant called tools, an agent
// case (the trajectory). flush extracts what is buffered at once.
func (s *Server) memSaveTurn() tool {
	return tool{
		name: "mem_save_turn",
		description: "Record conversation turns (including tool calls and their results) so they become long-term memory. " +
			"Give 'messages' (user / assistant with optional toolCalls / tool with toolCallId), or the legacy 'role' plus " +
			"'text' or 'content' for one turn. Turns accumulate per 'sessionKey' (default \"default\") and are extracted " +
			"into episodes, facts and agent cases when the conversation moves on; 'flush' extracts now. Returns JSON with the save status.",
		schema: `{"type":"object","properties":{
"messages":{"type":"array","description":"Turns in order","items":{"type":"object","properties":{
"role":{"type":"string","enum":["user","assistant","tool"]},
"content":{"type":"string","description":"The turn's text"},
"toolCalls":{"type":"array","description":"Tool calls made by an assistant turn","items":{"type":"object","properties":{
"id":{"type":"string"},"name":{"type":"string"},"arguments":{"type":"string","description":"JSON-encoded arguments"}},"required":["id","name"]}},
"toolCallId":{"type":"string","description":"For a tool turn: the id of the call it answers"},
"timestamp":{"type":["integer","string"],"description":"When the turn happened: epoch milliseconds or RFC 3339 (default now)"}},"required":["role"]}},
"role":{"type":"string","enum":["user","assistant","tool"],"description":"Legacy single-turn form: the role"},
"text":{"type":"string","description":"Legacy single-turn form: the text"},
"content":{"type":"string","description":"Legacy single-turn form: the text (alias of 'text')"},
"timestamp":{"type":["integer","string"],"description":"Legacy single-turn form: when it happened (epoch milliseconds or RFC 3339; default now)"},
"sessionKey":{"type":"string","description":"Conversation buffer to append to (default \"default\")"},
"flush":{"type":"boolean","description":"Extract the buffered turns now (default false)"},
"userId":{"type":"string","description":"Owner of the extracted user memories (default $LOCI_USER_ID or \"user\")"},
"agentId":{"type":"string","description":"Owner of the extracted agent cases (default $LOCI_AGENT_ID or \"agent\")"},
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"}}}`,
		raw: s.rawTool("mem_save_turn", s.saveTurn),
	}
}

func (s *Server) saveTurn(ctx context.Context, a *args) (*mcp.CallToolResult, error) {
	msgs, err := turnMessages(a)
	if err != nil {
		return nil, err
	}
	flush, err := a.boolean("flush", false)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 && !flush {
		return nil, a.errf("missing 'messages' (or 'role' with 'text'); pass flush: true to extract without new turns")
	}
	key, err := a.str("sessionKey", false)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(key) == "" {
		key = "default"
	}
	opt := session.Options{UserID: envOr("LOCI_USER_ID", "user"), AgentID: envOr("LOCI_AGENT_ID", "agent")}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"userId", &opt.UserID}, {"agentId", &opt.AgentID}} {
		v, err := a.str(f.name, false)
		if err != nil {
			return nil, err
		}
		if v = strings.TrimSpace(v); v != "" {
			*f.dst = v
		}
	}
	p, err := s.openPalace(ctx, a)
	if err != nil {
		return nil, err
	}
	res := session.Result{Status: session.Accumulated, DrawerIDs: []string{}}
	if len(msgs) > 0 {
		if res, err = session.Of(p).Append(ctx, key, msgs, opt); err != nil {
			return nil, err
		}
	}
	if flush {
		fr, err := session.Of(p).Flush(ctx, key, opt)
		if err != nil {
			return nil, err
		}
		if fr.Status == session.Extracted {
			res.Status = session.Extracted
		}
		res.DrawerIDs = append(res.DrawerIDs, fr.DrawerIDs...)
		res.Buffered = fr.Buffered
	}
	ids := res.DrawerIDs
	if ids == nil {
		ids = []string{}
	}
	return s.jsonTextResult("mem_save_turn", map[string]any{
		"status":     res.Status,
		"saved":      len(msgs),
		"sessionKey": key,
		"buffered":   res.Buffered,
		"flushed":    flush,
		"drawerIds":  ids,
	}), nil
}

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

// turnMessages reads messages[] or the legacy single-turn form.
func turnMessages(a *args) ([]extract.Message, error) {
	if a.has("messages") {
		if a.has("role") || a.has("text") || a.has("content") || a.has("timestamp") {
			return nil, a.errf("give either 'messages' or the legacy 'role' with 'text', not both")
		}
		list, ok := a.m["messages"].([]any)
		if !ok {
			return nil, a.errf("'messages' must be an array, got %s", jsonType(a.m["messages"]))
		}
		if len(list) > maxSaveTurnMessages {
			return nil, a.errf("'messages' has %d turns; the limit is %d", len(list), maxSaveTurnMessages)
		}
		out := make([]extract.Message, 0, len(list))
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, a.errf("'messages[%d]' must be an object, got %s", i, jsonType(item))
			}
			msg, err := turnMessage(a, fmt.Sprintf("messages[%d].", i), m)
			if err != nil {
				return nil, err
			}
			out = append(out, msg)
		}
		return out, nil
	}
	if !a.has("role") && !a.has("text") && !a.has("content") {
		return nil, nil
	}
	if a.has("text") && a.has("content") {
		return nil, a.errf("give 'text' or 'content', not both")
	}
	m := map[string]any{"role": a.m["role"], "content": a.m["content"], "timestamp": a.m["timestamp"]}
	if a.has("text") {
		m["content"] = a.m["text"]
	}
	msg, err := turnMessage(a, "", m)
	if err != nil {
		return nil, err
	}
	return []extract.Message{msg}, nil
}

func turnMessage(a *args, at string, m map[string]any) (extract.Message, error) {
	var msg extract.Message
	role, _ := m["role"].(string)
	switch role {
	case "user", "assistant", "tool":
	case "":
		return msg, a.errf("missing '%srole' (user, assistant or tool)", at)
	default:
		return msg, a.errf("'%srole' must be user, assistant or tool, got %q", at, role)
	}
	msg.Role = role
	text, err := turnText(m["content"])
	if err != nil {
		return msg, a.errf("'%scontent' %s", at, err.Error())
	}
	msg.Text = text
	if v, ok := m["toolCallId"]; ok && v != nil {
		id, isStr := v.(string)
		if !isStr {
			return msg, a.errf("'%stoolCallId' must be a string", at)
		}
		if role != "tool" {
			return msg, a.errf("'%stoolCallId' belongs on a tool turn", at)
		}
		msg.ToolCallID = id
	}
	if v, ok := m["toolCalls"]; ok && v != nil {
		if role != "assistant" {
			return msg, a.errf("'%stoolCalls' belongs on an assistant turn", at)
		}
		list, isList := v.([]any)
		if !isList {
			return msg, a.errf("'%stoolCalls' must be an array", at)
		}
		for j, item := range list {
			tc, isMap := item.(map[string]any)
			if !isMap {
				return msg, a.errf("'%stoolCalls[%d]' must be an object", at, j)
			}
			id, _ := tc["id"].(string)
			name, _ := tc["name"].(string)
			if strings.TrimSpace(id) == "" || strings.TrimSpace(name) == "" {
				return msg, a.errf("'%stoolCalls[%d]' needs a string 'id' and 'name'", at, j)
			}
			var args string
			switch x := tc["arguments"].(type) {
			case nil:
			case string:
				args = x
			default:
				b, _ := json.Marshal(x)
				args = string(b)
			}
			msg.ToolCalls = append(msg.ToolCalls, extract.ToolCall{ID: id, Name: name, Arguments: args})
		}
	}
	if strings.TrimSpace(msg.Text) == "" && len(msg.ToolCalls) == 0 && msg.ToolCallID == "" {
		return msg, a.errf("'%scontent' is empty", at)
	}
	switch x := m["timestamp"].(type) {
	case nil:
	case float64:
		if x <= 0 || x != math.Trunc(x) || x > 1e15 {
			return msg, a.errf("'%stimestamp' must be positive epoch milliseconds", at)
		}
		if x < 1e12 {
			msg.Timestamp = time.Unix(int64(x), 0).UTC()
		} else {
			msg.Timestamp = time.UnixMilli(int64(x)).UTC()
		}
	case string:
		t, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			return msg, a.errf("'%stimestamp' must be epoch milliseconds or RFC 3339, got %q", at, x)
		}
		msg.Timestamp = t
	default:
		return msg, a.errf("'%stimestamp' must be epoch milliseconds or RFC 3339", at)
	}
	return msg, nil
}

// turnText accepts a string or an array of text blocks ({type:"text",text}).
func turnText(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case []any:
		var parts []string
		for _, item := range x {
			blk, ok := item.(map[string]any)
			if !ok {
				return "", fmt.Errorf("must be a string or an array of text blocks")
			}
			if t, ok := blk["text"].(string); ok {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n"), nil
	default:
		return "", fmt.Errorf("must be a string, got %s", jsonType(v))
	}
}
