package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/facts"
)

// mem_save_fact (seed 000) saves durable facts about the user: one given
// as 'fact', or those the extractor finds in 'messages'. Facts go through
// the review queue (facts.Stage).
type saveFactParams struct {
	Fact       *string      `json:"fact" desc:"The fact, in the user's first person: \"I prefer pnpm over npm\""`
	Messages   factMessages `json:"messages" desc:"Conversation turns to extract facts from (instead of 'fact'); only user and assistant roles, no tool calls"`
	Kind       factKind     `json:"kind" desc:"Kind of the fact (with 'fact'; default: guessed from the text)"`
	Confidence *confidence  `json:"confidence" desc:"Confidence in [0,1] (with 'fact'; default 0.6)"`
	Palace     string       `json:"palace"`
}

// maxSaveFactMessages bounds mem_save_fact's messages[].
const maxSaveFactMessages = 500

type saveFactResult struct {
	Status    string      `json:"status"` // saved, duplicate or no_facts
	Palace    string      `json:"palace"`
	Facts     []savedFact `json:"facts"`
	Extractor string      `json:"extractor,omitempty"`
	Extracted *int        `json:"extracted,omitempty"`
	Skipped   int         `json:"skipped,omitempty"`
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

func memSaveFactTool() *tool {
	return newTool("mem_save_fact",
		"Save a durable fact about the user (a preference, habit, trait or decision that should survive "+
			"future sessions). Give 'fact', or 'messages' (user and assistant turns only) to extract facts from. "+
			"Facts enter a review queue; near-duplicates are not saved twice. Returns JSON with the save status.",
		resultErrors, memSaveFact)
}

// check: 'fact' or 'messages', exactly one; 'confidence' only with 'fact'.
func (p *saveFactParams) check(string) error {
	switch {
	case p.Fact != nil && p.Messages != nil:
		return argErrorf("give either 'fact' or 'messages', not both")
	case p.Fact == nil && p.Messages == nil:
		return argErrorf("missing 'fact' (or 'messages')")
	case p.Fact != nil && strings.TrimSpace(*p.Fact) == "":
		return argErrorf("'fact' is empty")
	case p.Messages != nil && p.Confidence != nil:
		return argErrorf("'confidence' goes with 'fact'; extracted facts carry the extractor's confidence")
	}
	return nil
}

func memSaveFact(ctx context.Context, s *Server, p saveFactParams) (saveFactResult, error) {
	var inputs []facts.Input
	var out saveFactResult
	if p.Fact != nil {
		kind, conf := string(p.Kind), facts.DefaultConfidence
		if kind == "" {
			kind, _ = extract.Classify(*p.Fact)
		}
		if p.Confidence != nil {
			conf = float64(*p.Confidence)
		}
		inputs = append(inputs, facts.Input{Text: *p.Fact, Kind: kind, Confidence: conf, Source: "mcp:mem_save_fact"})
	} else {
		ex := s.reg.Extractor()
		found, err := ex.Facts(ctx, p.Messages)
		if err != nil {
			return out, fmt.Errorf("extract facts: %w", err)
		}
		n := len(found)
		out.Extractor, out.Extracted = ex.Name(), &n
		for _, f := range found {
			in := facts.Input{Text: f.Text, Kind: f.Kind, Confidence: f.Confidence, Source: "mcp:mem_save_fact " + f.Source}
			if p.Kind != "" {
				in.Kind = string(p.Kind)
			}
			if _, err := facts.CheckKind(in.Kind); err != nil {
				in.Kind = facts.DefaultKind
			}
			if !(in.Confidence >= 0 && in.Confidence <= 1) {
				in.Confidence = facts.DefaultConfidence
			}
			inputs = append(inputs, in)
		}
	}
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return out, err
	}
	out.Palace, out.Facts = pal.Name(), []savedFact{}
	changed := 0
	for _, in := range inputs {
		r, err := facts.Of(pal).Stage(ctx, in)
		if err != nil {
			if p.Fact == nil && errors.Is(err, palace.ErrInvalid) {
				out.Skipped++ // an extracted sentence unfit to be a fact (too long)
				continue
			}
			return out, err
		}
		if r.Outcome != facts.OutcomeDuplicate {
			changed++
		}
		out.Facts = append(out.Facts, savedFact{ID: r.Fact.ID, Fact: r.Fact.Fact, Kind: r.Fact.Kind, Confidence: r.Fact.Confidence,
			Status: r.Fact.Status, Outcome: r.Outcome, ConflictsWith: r.Fact.ConflictsWith})
	}
	switch {
	case len(out.Facts) == 0:
		out.Status = "no_facts"
	case changed == 0:
		out.Status = "duplicate"
	default:
		out.Status = "saved"
	}
	return out, nil
}

// factMessages are mem_save_fact's messages: user and assistant turns
// with text content. Tool roles and tool calls are refused: mem_save_fact
// is not a trajectory tool.
type factMessages []extract.Message

// factMessageShape is the schema of one element of factMessages.
type factMessageShape struct {
	Role    string `json:"role" required:"true" enum:"user,assistant"`
	Content string `json:"content" required:"true"`
}

func (factMessages) schema() *schema {
	return &schema{Type: "array", Items: schemaOf(reflect.TypeFor[factMessageShape](), false)}
}

func (ms *factMessages) decodeArg(name string, raw json.RawMessage) error {
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return argErrorf("'%s' must be an array of messages, got %s", name, jsonKind(raw))
	}
	if len(items) == 0 {
		return argErrorf("'%s' is empty", name)
	}
	if len(items) > maxSaveFactMessages {
		return argErrorf("'%s' has %d items; the limit is %d", name, len(items), maxSaveFactMessages)
	}
	out := make(factMessages, 0, len(items))
	for i, item := range items {
		at := fmt.Sprintf("%s[%d]", name, i)
		var m map[string]json.RawMessage
		if item[0] != '{' || json.Unmarshal(item, &m) != nil {
			return argErrorf("'%s' must be an object, got %s", at, jsonKind(item))
		}
		for _, key := range []string{"toolCalls", "tool_calls", "toolCallId", "tool_call_id"} {
			if _, has := m[key]; has {
				return argErrorf("'%s' has %s: mem_save_fact does not accept tool calls (use mem_save_turn for trajectories)", at, key)
			}
		}
		var role string
		_ = json.Unmarshal(m["role"], &role) // not a string: missing
		switch role {
		case "user", "assistant":
		case "":
			return argErrorf("'%s.role' is missing: use user or assistant", at)
		default:
			return argErrorf("'%s.role' %q is not allowed: only user and assistant messages (use mem_save_turn for tool round trips)", at, oneLine(role, 40))
		}
		content, ok := m["content"]
		if !ok {
			content = m["text"]
		}
		if content == nil || isNull(content) {
			return argErrorf("'%s': missing 'content'", at)
		}
		text, err := decodeContent("content", content, refuseOtherBlocks)
		if err != nil {
			return argErrorf("'%s': %s", at, err.Error())
		}
		out = append(out, extract.Message{Role: role, Text: text})
	}
	*ms = out
	return nil
}
