package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/mark3labs/mcp-go/mcp"
)

// maxSaveFactMessages bounds mem_save_fact's messages[].
const maxSaveFactMessages = 500

func (s *Server) memSaveFact() tool {
	return tool{
		name: "mem_save_fact",
		description: "Save a durable fact about the user (a preference, habit, trait or decision that should survive " +
			"future sessions). Give 'fact', or 'messages' (user and assistant turns only) to extract facts from. " +
			"Facts enter a review queue; near-duplicates are not saved twice. Returns JSON with the save status.",
		schema: `{"type":"object","properties":{
"fact":{"type":"string","description":"The fact, in the user's first person: \"I prefer pnpm over npm\""},
"messages":{"type":"array","description":"Conversation turns to extract facts from (instead of 'fact'); only user and assistant roles, no tool calls",
"items":{"type":"object","properties":{"role":{"type":"string","enum":["user","assistant"]},"content":{"type":"string"}},"required":["role","content"]}},
"kind":{"type":"string","enum":["preference","tooling","project","infra","identity","fiscal","people","constraint","location","health"],"description":"Kind of the fact (with 'fact'; default: guessed from the text)"},
"confidence":{"type":"number","minimum":0,"maximum":1,"description":"Confidence in [0,1] (with 'fact'; default 0.6)"},
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"}}}`,
		raw: s.rawTool("mem_save_fact", s.saveFact),
	}
}

// savedFact is one fact in mem_save_fact's answer.
type savedFact struct {
	ID            string  `json:"id"`
	Fact          string  `json:"fact"`
	Kind          string  `json:"kind"`
	Confidence    float64 `json:"confidence"`
	Status        string  `json:"status"`
	Outcome       string  `json:"outcome"`
	ConflictsWith string  `json:"conflicts_with,omitempty"`
}

func (s *Server) saveFact(ctx context.Context, a *args) (*mcp.CallToolResult, error) {
	hasFact, hasMsgs := a.has("fact"), a.has("messages")
	switch {
	case hasFact && hasMsgs:
		return nil, a.errf("give either 'fact' or 'messages', not both")
	case !hasFact && !hasMsgs:
		return nil, a.errf("missing 'fact' (or 'messages')")
	}
	kind, err := a.str("kind", false)
	if err != nil {
		return nil, err
	}
	if kind != "" {
		if kind, err = facts.CheckKind(kind); err != nil {
			return nil, a.errf("%s", err.Error())
		}
	}
	var inputs []facts.Input
	answer := map[string]any{}
	if hasFact {
		text, err := a.str("fact", true)
		if err != nil {
			return nil, err
		}
		conf, err := a.number("confidence", facts.DefaultConfidence, 0, 1)
		if err != nil {
			return nil, err
		}
		if kind == "" {
			kind, _ = extract.Classify(text)
		}
		inputs = append(inputs, facts.Input{Text: text, Kind: kind, Confidence: conf, Source: "mcp:mem_save_fact"})
	} else {
		if a.has("confidence") {
			return nil, a.errf("'confidence' goes with 'fact'; extracted facts carry the extractor's confidence")
		}
		msgs, err := saveFactMessages(a)
		if err != nil {
			return nil, err
		}
		ex := s.factExtractor()
		found, err := ex.Facts(ctx, msgs)
		if err != nil {
			return nil, fmt.Errorf("extract facts: %w", err)
		}
		answer["extractor"] = ex.Name()
		answer["extracted"] = len(found)
		for _, f := range found {
			k := f.Kind
			if kind != "" {
				k = kind
			}
			if _, err := facts.CheckKind(k); err != nil {
				k = facts.DefaultKind
			}
			conf := f.Confidence
			if !(conf >= 0 && conf <= 1) {
				conf = facts.DefaultConfidence
			}
			inputs = append(inputs, facts.Input{Text: f.Text, Kind: k, Confidence: conf, Source: "mcp:mem_save_fact " + f.Source})
		}
	}
	p, err := s.openPalace(ctx, a)
	if err != nil {
		return nil, err
	}
	saved := []savedFact{}
	changed, skipped := 0, 0
	for _, in := range inputs {
		r, err := facts.Of(p).Stage(ctx, in)
		if err != nil {
			if !hasFact && errors.Is(err, palace.ErrInvalid) {
				skipped++ // an extracted sentence unfit to be a fact (too long)
				continue
			}
			return nil, err
		}
		if r.Outcome != facts.OutcomeDuplicate {
			changed++
		}
		saved = append(saved, savedFact{ID: r.Fact.ID, Fact: r.Fact.Fact, Kind: r.Fact.Kind, Confidence: r.Fact.Confidence,
			Status: r.Fact.Status, Outcome: r.Outcome, ConflictsWith: r.Fact.ConflictsWith})
	}
	status := "saved"
	switch {
	case len(saved) == 0:
		status = "no_facts"
	case changed == 0:
		status = "duplicate"
	}
	if skipped > 0 {
		answer["skipped"] = skipped
	}
	answer["status"] = status
	answer["palace"] = p.Name()
	answer["facts"] = saved
	return s.jsonTextResult("mem_save_fact", answer), nil
}

// saveFactMessages reads messages[]: objects with role user or assistant
// and text content (a string, or an array of {type:"text",text} parts).
// Tool roles and tool calls are refused: mem_save_fact is not a
// trajectory tool.
func saveFactMessages(a *args) ([]extract.Message, error) {
	raw, ok := a.m["messages"].([]any)
	if !ok {
		return nil, a.errf("'messages' must be an array of messages, got %s", jsonType(a.m["messages"]))
	}
	if len(raw) == 0 {
		return nil, a.errf("'messages' is empty")
	}
	if len(raw) > maxSaveFactMessages {
		return nil, a.errf("'messages' has %d items; the limit is %d", len(raw), maxSaveFactMessages)
	}
	out := make([]extract.Message, 0, len(raw))
	for i, item := range raw {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, a.errf("'messages[%d]' must be an object, got %s", i, jsonType(item))
		}
		for _, key := range []string{"toolCalls", "tool_calls", "toolCallId", "tool_call_id"} {
			if _, has := m[key]; has {
				return nil, a.errf("'messages[%d]' has %s: mem_save_fact does not accept tool calls (use mem_save_turn for trajectories)", i, key)
			}
		}
		role, _ := m["role"].(string)
		switch role {
		case "user", "assistant":
		case "":
			return nil, a.errf("'messages[%d].role' is missing: use user or assistant", i)
		default:
			return nil, a.errf("'messages[%d].role' %q is not allowed: only user and assistant messages (use mem_save_turn for tool round trips)", i, oneLine(role, 40))
		}
		text, err := messageText(m)
		if err != nil {
			return nil, a.errf("'messages[%d]': %s", i, err.Error())
		}
		out = append(out, extract.Message{Role: role, Text: text})
	}
	return out, nil
}

// messageText flattens a message's content (or text) to plain text.
func messageText(m map[string]any) (string, error) {
	v, ok := m["content"]
	if !ok {
		v, ok = m["text"]
	}
	if !ok || v == nil {
		return "", fmt.Errorf("missing 'content'")
	}
	switch c := v.(type) {
	case string:
		return c, nil
	case []any:
		var parts []string
		for j, p := range c {
			part, ok := p.(map[string]any)
			if !ok {
				return "", fmt.Errorf("content[%d] must be an object", j)
			}
			switch part["type"] {
			case "text":
				t, _ := part["text"].(string)
				parts = append(parts, t)
			case "tool_use", "tool_result":
				return "", fmt.Errorf("content[%d] is a %v block: tool calls are not accepted", j, part["type"])
			default:
				return "", fmt.Errorf("content[%d] has unsupported type %v", j, part["type"])
			}
		}
		return strings.Join(parts, "\n"), nil
	default:
		return "", fmt.Errorf("'content' must be a string or an array of text parts, got %s", jsonType(v))
	}
}
