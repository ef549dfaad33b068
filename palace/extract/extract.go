// Package extract turns conversations into memories: episodes with their
// atomic facts and profile updates (user track), agent cases (agent track),
// and candidate durable facts (for review queues and transcript harvest).
//
// The default Extractor is deterministic and offline; an LLM-backed one is
// used when an OpenAI-compatible chat endpoint is configured. The package
// is pure: it never touches a store, and imports nothing of loci outside
// palace/extract (and palace/redact).
package extract

import (
	"context"
	"encoding/json"
	"time"
)

// Message is one conversation turn, whatever face it came through.
type Message struct {
	ID         string     `json:"id,omitempty"`
	Role       string     `json:"role"` // user, assistant or tool
	SenderID   string     `json:"sender_id,omitempty"`
	SenderName string     `json:"sender_name,omitempty"`
	Text       string     `json:"text"` // the text content, flattened
	Timestamp  time.Time  `json:"timestamp"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Content optionally keeps the message body as the face received it
	// when it was not plain text (seed 001's content item array), so the
	// face can show it back while the message is buffered. Extractors read
	// Text only.
	Content json.RawMessage `json:"content,omitempty"`
}

// ToolCall is a tool invocation made by an assistant turn.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Episode is a narrative of a stretch of conversation.
type Episode struct {
	Subject   string    `json:"subject"`   // one-line title
	Summary   string    `json:"summary"`   // about 200 characters
	Narrative string    `json:"narrative"` // third person, absolute dates
	Timestamp time.Time `json:"timestamp"`
	SenderIDs []string  `json:"sender_ids"`
	Facts     []string  `json:"facts"` // single-sentence atomic facts
}

// AgentCase is one agent run distilled (seed 001's agent track).
type AgentCase struct {
	TaskIntent   string    `json:"task_intent"`
	Approach     string    `json:"approach"`
	QualityScore float64   `json:"quality_score"` // in [0,1]
	KeyInsight   string    `json:"key_insight"`   // "" when none
	Timestamp    time.Time `json:"timestamp"`
}

// Fact is a candidate durable fact about the user (seed 004's kinds).
type Fact struct {
	Text       string  `json:"fact"`
	Kind       string  `json:"kind"` // preference, tooling, project, infra, identity, fiscal, people, constraint, location, health
	Confidence float64 `json:"confidence"`
	Source     string  `json:"source,omitempty"` // message id or transcript position
}

// Result is what one extraction produced.
type Result struct {
	Episodes []Episode      `json:"episodes"`
	Profile  map[string]any `json:"profile,omitempty"` // profile fields to merge
	Cases    []AgentCase    `json:"agent_cases"`
}

// Extractor extracts memories from messages. Implementations must be safe
// for concurrent use. A failed extraction returns an error and no partial
// result, so callers can keep their buffer for the next try.
type Extractor interface {
	// Name identifies the extractor in stored provenance ("heuristic-v1",
	// "llm:<model>").
	Name() string
	// Extract distils a finished stretch of conversation. owner is the
	// user_id or agent_id the memories belong to; agent selects the agent
	// track (cases instead of episodes).
	Extract(ctx context.Context, owner string, agent bool, msgs []Message) (Result, error)
	// Facts proposes durable facts stated by the user in msgs.
	Facts(ctx context.Context, msgs []Message) ([]Fact, error)
}
