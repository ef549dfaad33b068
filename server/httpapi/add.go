package httpapi

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
)

// Limits of /add (seed 001).
const (
	maxAddMessages   = 500
	maxSessionIDLen  = 128
	maxContentItems  = 100
	maxToolCallsItem = 128
)

var contentTypes = []string{"text", "image", "audio", "doc", "pdf", "html", "email"}

// addMessage is one validated MessageItem, before content parsing.
type addMessage struct {
	msg   extract.Message
	items []contentItem // nil for string content
	raw   any           // the content as sent
}

type addRequest struct {
	session string
	scope   scope
	msgs    []addMessage
}

// parseSession reads session_id, app_id and project_id, shared by /add and
// /flush.
func parseSession(o object) (string, scope) {
	session, present := o.str("session_id", true, false)
	if present {
		o.lengthBetween("session_id", session, 1, maxSessionIDLen)
		o.notSecret("session_id", session)
	}
	app := o.scopeID("app_id")
	project := o.scopeID("project_id")
	return session, scope{App: app, Project: project}
}

func (a *API) parseAdd(body map[string]any) (addRequest, error) {
	v := &validator{}
	o := object{v: v, m: body}
	var req addRequest
	req.session, req.scope = parseSession(o)
	list, present := o.list("messages", true)
	if present && v.ok() {
		if len(list) < 1 {
			v.fail([]string{"messages"}, "List should have at least 1 item after validation, not 0")
		} else if len(list) > maxAddMessages {
			v.fail([]string{"messages"}, "List should have at most %d items after validation, not %d", maxAddMessages, len(list))
		}
	}
	for i, item := range list {
		if !v.ok() {
			break
		}
		m, ok := o.child(item, []string{"messages", strconv.Itoa(i)})
		if !ok {
			break
		}
		req.msgs = append(req.msgs, a.parseMessage(m))
	}
	if !v.ok() {
		return req, v.err
	}
	return req, nil
}

// parseMessage validates one MessageItem in seed 001's field order.
func (a *API) parseMessage(o object) addMessage {
	var out addMessage
	sender, present := o.str("sender_id", true, false)
	if present {
		o.lengthBetween("sender_id", sender, 1, 0)
		o.notSecret("sender_id", sender)
	}
	name, _ := o.str("sender_name", false, true)
	role, _ := o.literal("role", true, "user", "assistant", "tool")
	ts, present := o.integer("timestamp", true)
	if present && ts <= 0 {
		o.v.fail(at(o.loc, "timestamp"), "Input should be greater than 0")
	}
	out.raw = o.m["content"]
	var text string
	switch c := o.m["content"].(type) {
	case string:
		text = c
	case []any:
		if len(c) > maxContentItems {
			o.v.fail(at(o.loc, "content"), "List should have at most %d items after validation, not %d", maxContentItems, len(c))
		}
		out.items = []contentItem{}
		for j, raw := range c {
			if !o.v.ok() {
				break
			}
			item, ok := o.child(raw, at(o.loc, "content", strconv.Itoa(j)))
			if !ok {
				break
			}
			out.items = append(out.items, parseContentItem(item))
		}
	case nil:
		if _, ok := o.m["content"]; !ok {
			o.v.fail(at(o.loc, "content"), "Field required")
		} else {
			o.v.fail(at(o.loc, "content"), "Input should be a valid string or a list of content items")
		}
	default:
		o.v.fail(at(o.loc, "content"), "Input should be a valid string or a list of content items")
	}
	var calls []extract.ToolCall
	if list, present := o.list("tool_calls", false); present {
		if len(list) > maxToolCallsItem {
			o.v.fail(at(o.loc, "tool_calls"), "List should have at most %d items after validation, not %d", maxToolCallsItem, len(list))
		}
		for j, raw := range list {
			if !o.v.ok() {
				break
			}
			tc, ok := o.child(raw, at(o.loc, "tool_calls", strconv.Itoa(j)))
			if !ok {
				break
			}
			calls = append(calls, parseToolCall(tc))
		}
	}
	callID, _ := o.str("tool_call_id", false, true)
	if o.v.ok() && out.items == nil && strings.TrimSpace(text) == "" && len(calls) == 0 && callID == "" {
		o.v.fail(at(o.loc, "content"), "Value error, content is empty")
	}
	out.msg = extract.Message{
		Role: role, SenderID: sender, SenderName: name, Text: text,
		Timestamp: fromEpoch(ts, a.loc), ToolCalls: calls, ToolCallID: callID,
	}
	return out
}

func parseContentItem(o object) contentItem {
	var it contentItem
	it.Type, _ = o.literal("type", true, contentTypes...)
	it.Text, it.hasText = o.str("text", false, true)
	it.URI, it.hasURI = o.str("uri", false, true)
	it.Base64, it.hasB64 = o.str("base64", false, true)
	it.Ext, _ = o.str("ext", false, true)
	it.Name, _ = o.str("name", false, true)
	o.dict("extras")
	if !o.v.ok() {
		return it
	}
	n := 0
	for _, h := range []bool{it.hasText, it.hasURI, it.hasB64} {
		if h {
			n++
		}
	}
	switch {
	case n > 1:
		o.v.fail(o.loc, "Value error, carry the payload in exactly one of text, uri or base64")
	case it.Type == "text" && !it.hasText:
		o.v.fail(o.loc, "Value error, a 'text' content item needs 'text'")
	}
	return it
}

func parseToolCall(o object) extract.ToolCall {
	var tc extract.ToolCall
	tc.ID, _ = o.str("id", true, false)
	if typ, present := o.str("type", false, false); present && typ == "" {
		o.v.fail(at(o.loc, "type"), "String should have at least 1 character")
	}
	fn, ok := o.m["function"]
	if !ok {
		o.v.fail(at(o.loc, "function"), "Field required")
		return tc
	}
	f, ok := o.child(fn, at(o.loc, "function"))
	if !ok {
		return tc
	}
	tc.Name, _ = f.str("name", true, false)
	tc.Arguments, _ = f.str("arguments", true, false)
	return tc
}

// add is POST /api/v1/memory/add.
func (a *API) add(ctx context.Context, body map[string]any) (any, error) {
	req, err := a.parseAdd(body)
	if err != nil {
		return nil, err
	}
	msgs := make([]extract.Message, len(req.msgs))
	for i, m := range req.msgs {
		msg := m.msg
		if m.items != nil {
			parts := make([]string, 0, len(m.items))
			for j, it := range m.items {
				text, err := a.cfg.Content.itemText(ctx, it, j)
				if err != nil {
					return nil, err
				}
				if strings.TrimSpace(text) != "" {
					parts = append(parts, text)
				}
			}
			msg.Text = strings.Join(parts, "\n")
			raw, err := json.Marshal(m.raw)
			if err != nil {
				return nil, err
			}
			msg.Content = raw
			if strings.TrimSpace(msg.Text) == "" && len(msg.ToolCalls) == 0 && msg.ToolCallID == "" {
				return nil, &validationError{msg: "Value error, content has no text: messages." + strconv.Itoa(i) + ".content"}
			}
		}
		if len(msg.Text) > palace.MaxContentBytes {
			return nil, &validationError{msg: "Value error, the text is " + strconv.Itoa(len(msg.Text)) +
				" bytes; the limit is " + strconv.Itoa(palace.MaxContentBytes) + ": messages." + strconv.Itoa(i) + ".content"}
		}
		msgs[i] = msg
	}
	p, err := a.openScope(ctx, req.scope, true)
	if err != nil {
		return nil, err
	}
	res, err := session.Of(p).Append(ctx, req.session, msgs, session.Options{RequestKey: requestKey(ctx)})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"message_count": len(msgs), "status": res.Status}
	if res.Duplicate {
		out["duplicate"] = true // a retry (same Idempotency-Key): nothing was buffered again
	}
	return out, nil
}

// flush is POST /api/v1/memory/flush.
func (a *API) flush(ctx context.Context, body map[string]any) (any, error) {
	v := &validator{}
	sessionID, sc := parseSession(object{v: v, m: body})
	if !v.ok() {
		return nil, v.err
	}
	p, err := a.openScope(ctx, sc, false)
	if err != nil {
		return nil, err
	}
	status := "no_extraction"
	if p != nil {
		res, err := session.Of(p).Flush(ctx, sessionID, session.Options{})
		if err != nil {
			return nil, err
		}
		if res.Status == session.Extracted {
			status = "extracted"
		}
	}
	return map[string]any{"status": status}, nil
}
