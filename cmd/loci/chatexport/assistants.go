package chatexport

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Formats of the exports of a person's chats with an assistant: the
// conversations.json of ChatGPT's "Export data" and of Claude's.
const (
	FormatChatGPT = "chatgpt"
	FormatClaude  = "claude"
)

// Roles a message of a chat with an assistant is stored under: the
// names chat formats give the two sides, which the palace reads as such
// ("what did I decide" asks for the user's words).
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// ReadAssistantChats reads a conversations.json, ChatGPT's or Claude's
// (told apart by their fields), into one chat a conversation. The list is
// read a conversation at a time: a heavy user's export runs to hundreds of
// megabytes.
func ReadAssistantChats(data []byte) ([]*Chat, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not a list of conversations: %v", err)
	} else if tok != json.Delim('[') {
		return nil, fmt.Errorf("not a list of conversations: it opens with %v", tok)
	}
	var chats []*Chat
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("conversation %d: %v", i+1, err)
		}
		var probe struct {
			Mapping      json.RawMessage `json:"mapping"`
			ChatMessages json.RawMessage `json:"chat_messages"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, fmt.Errorf("conversation %d: %v", i+1, err)
		}
		var c *Chat
		var err error
		switch {
		case probe.Mapping != nil:
			c, err = readChatGPT(raw)
		case probe.ChatMessages != nil:
			c, err = readClaude(raw)
		default:
			return nil, fmt.Errorf("conversation %d is neither ChatGPT's (a \"mapping\") nor Claude's (\"chat_messages\")", i+1)
		}
		if err != nil {
			return nil, fmt.Errorf("conversation %d: %v", i+1, err)
		}
		chats = append(chats, c)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("the list of conversations: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the list of conversations")
	}
	return chats, nil
}

// chatGPTConversation is a conversation of ChatGPT's export: its messages
// are the nodes of a tree (a message edited or regenerated starts a
// branch), and current_node is the last message of the branch shown.
type chatGPTConversation struct {
	ID          string                 `json:"conversation_id"`
	Title       string                 `json:"title"`
	CreateTime  *float64               `json:"create_time"`
	CurrentNode string                 `json:"current_node"`
	Mapping     map[string]chatGPTNode `json:"mapping"`
}

type chatGPTNode struct {
	Parent  string `json:"parent"`
	Message *struct {
		Author struct {
			Role string `json:"role"`
		} `json:"author"`
		CreateTime *float64 `json:"create_time"`
		Content    struct {
			ContentType string            `json:"content_type"`
			Parts       []json.RawMessage `json:"parts"`
		} `json:"content"`
		Metadata struct {
			Hidden bool `json:"is_visually_hidden_from_conversation"`
		} `json:"metadata"`
	} `json:"message"`
}

// readChatGPT reads the branch shown of a ChatGPT conversation: from
// current_node up to the root, in order. Its user's and assistant's text
// messages are kept; the system prompt, tools' messages, hidden ones and
// parts that are no text (an image) are left out.
func readChatGPT(raw json.RawMessage) (*Chat, error) {
	var conv chatGPTConversation
	if err := json.Unmarshal(raw, &conv); err != nil {
		return nil, err
	}
	c := &Chat{ID: conv.ID, Name: cmp.Or(conv.Title, conv.ID), Format: FormatChatGPT}
	if conv.ID == "" {
		return nil, fmt.Errorf("no conversation_id")
	}
	var branch []chatGPTNode
	seen := map[string]bool{}
	for id := conv.CurrentNode; id != "" && !seen[id]; id = conv.Mapping[id].Parent {
		seen[id] = true
		node, ok := conv.Mapping[id]
		if !ok {
			return nil, fmt.Errorf("node %q is not in its mapping", id)
		}
		branch = append(branch, node)
	}
	when := seconds(conv.CreateTime)
	for i := len(branch) - 1; i >= 0; i-- {
		m := branch[i].Message
		if m == nil {
			continue
		}
		if t := seconds(m.CreateTime); !t.IsZero() {
			when = t
		}
		role := m.Author.Role
		if (role != RoleUser && role != RoleAssistant) || m.Metadata.Hidden {
			continue
		}
		var parts []string
		for _, p := range m.Content.Parts {
			var s string
			if json.Unmarshal(p, &s) == nil && strings.TrimSpace(s) != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 {
			continue
		}
		c.Messages = append(c.Messages, Message{Sender: role, Time: when, Text: clean(strings.Join(parts, "\n")), Line: len(branch) - i})
	}
	return c, nil
}

// claudeConversation is a conversation of Claude's export.
type claudeConversation struct {
	UUID      string `json:"uuid"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
	Messages  []struct {
		Sender    string `json:"sender"`
		Text      string `json:"text"`
		CreatedAt string `json:"created_at"`
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"chat_messages"`
}

// readClaude reads a Claude conversation's messages, in order: the
// human's as the user's. A message's text is its "text", or its text
// content blocks where it has no "text".
func readClaude(raw json.RawMessage) (*Chat, error) {
	var conv claudeConversation
	if err := json.Unmarshal(raw, &conv); err != nil {
		return nil, err
	}
	if conv.UUID == "" {
		return nil, fmt.Errorf("no uuid")
	}
	c := &Chat{ID: conv.UUID, Name: cmp.Or(conv.Name, conv.UUID), Format: FormatClaude}
	when, _ := time.Parse(time.RFC3339Nano, conv.CreatedAt)
	for i, m := range conv.Messages {
		if t, err := time.Parse(time.RFC3339Nano, m.CreatedAt); err == nil {
			when = t
		}
		role := map[string]string{"human": RoleUser, "user": RoleUser, "assistant": RoleAssistant}[m.Sender]
		text := m.Text
		if strings.TrimSpace(text) == "" {
			var parts []string
			for _, b := range m.Content {
				if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
					parts = append(parts, b.Text)
				}
			}
			text = strings.Join(parts, "\n")
		}
		if role == "" || strings.TrimSpace(text) == "" {
			continue
		}
		c.Messages = append(c.Messages, Message{Sender: role, Time: when.UTC(), Text: clean(text), Line: i + 1})
	}
	return c, nil
}

// seconds is a time the export writes as seconds since the epoch, as UTC
// (zero when it writes none).
func seconds(s *float64) time.Time {
	if s == nil || *s <= 0 || math.IsInf(*s, 0) || math.IsNaN(*s) {
		return time.Time{}
	}
	sec, frac := math.Modf(*s)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC().Truncate(time.Millisecond)
}

// clean is text as the palace takes it: valid UTF-8 without NUL bytes,
// trimmed. An export is an app's own text; a stray byte in it is not a
// reason to refuse the chat.
func clean(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", ""))
}
