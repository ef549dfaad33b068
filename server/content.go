package server

import (
	"encoding/json"
	"strings"
)

// The message-content decoder shared by the tools that take conversation
// messages (mem_save_fact, mem_save_turn): a message's content is a string,
// or an array of content blocks of which the "text" blocks are kept,
// joined by newlines.

// blockPolicy says what to do with content blocks that are not text.
type blockPolicy int

const (
	// skipOtherBlocks keeps the text blocks and skips the rest (tool_use,
	// tool_result, images): a trajectory keeps its tool calls elsewhere.
	skipOtherBlocks blockPolicy = iota
	// refuseOtherBlocks refuses any block but text, tool blocks with a
	// message saying tool calls are not accepted.
	refuseOtherBlocks
)

// contentBlock is one element of an array content.
type contentBlock struct {
	Type string          `json:"type"`
	Text json.RawMessage `json:"text"`
}

// decodeContent flattens the content value raw (not null) to text. field
// names it in messages ("content", "messages[0].content").
func decodeContent(field string, raw json.RawMessage, policy blockPolicy) (string, error) {
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", argErrorf("'%s' is not a valid string", field)
		}
		return s, nil
	case '[':
	default:
		return "", argErrorf("'%s' must be a string or an array of text parts, got %s", field, jsonKind(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return "", argErrorf("'%s' is not a valid JSON array", field)
	}
	parts := make([]string, 0, len(items))
	for i, item := range items {
		var b contentBlock
		if item[0] != '{' || json.Unmarshal(item, &b) != nil {
			return "", argErrorf("%s[%d] must be an object", field, i)
		}
		if b.Type == "text" || (b.Type == "" && len(b.Text) > 0) {
			var t string
			if len(b.Text) > 0 && json.Unmarshal(b.Text, &t) != nil {
				return "", argErrorf("%s[%d].text must be a string, got %s", field, i, jsonKind(b.Text))
			}
			parts = append(parts, t)
			continue
		}
		if policy == skipOtherBlocks {
			continue
		}
		if b.Type == "tool_use" || b.Type == "tool_result" {
			return "", argErrorf("%s[%d] is a %s block: tool calls are not accepted", field, i, b.Type)
		}
		return "", argErrorf("%s[%d] has unsupported type %q", field, i, oneLine(b.Type, 40))
	}
	return strings.Join(parts, "\n"), nil
}
