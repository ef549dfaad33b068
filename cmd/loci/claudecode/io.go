package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loci-mem/loci/palace/redact"
)

// Events, as Claude Code names them in hook_event_name.
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventStop             = "Stop"
	EventSessionEnd       = "SessionEnd"
)

// EventForCommand maps the subcommand names of `loci hook` (session-start,
// prompt-submit, stop, session-end) to Claude Code's event names. Claude
// Code's own names are accepted too.
func EventForCommand(name string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "session-start", "sessionstart":
		return EventSessionStart, true
	case "prompt-submit", "user-prompt-submit", "userpromptsubmit":
		return EventUserPromptSubmit, true
	case "stop":
		return EventStop, true
	case "session-end", "sessionend":
		return EventSessionEnd, true
	}
	return "", false
}

// Input is the JSON Claude Code writes to a hook's stdin. The first four
// fields come with every event; the rest belong to one event each.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`

	Source         string `json:"source,omitempty"`           // SessionStart: startup, resume, clear, compact
	Model          string `json:"model,omitempty"`            // SessionStart
	Prompt         string `json:"prompt,omitempty"`           // UserPromptSubmit
	StopHookActive bool   `json:"stop_hook_active,omitempty"` // Stop
	Reason         string `json:"reason,omitempty"`           // SessionEnd: clear, logout, prompt_input_exit, other, ...
}

// MaxInputBytes bounds what a hook reads from stdin.
const MaxInputBytes = 8 << 20

// DecodeInput parses a hook's stdin. Unknown fields are ignored, as Claude
// Code adds fields over time; an empty or malformed document is an error.
func DecodeInput(b []byte) (Input, error) {
	var in Input
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return in, fmt.Errorf("hook input is empty")
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	return in, nil
}

// Output is the JSON a hook prints on stdout. Only fields of Claude Code's
// hook contract appear: continue, suppressOutput, systemMessage (shown to
// the user) and hookSpecificOutput (additionalContext reaches the model, for
// SessionStart and UserPromptSubmit only).
type Output struct {
	Continue           bool      `json:"continue"`
	SuppressOutput     bool      `json:"suppressOutput,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
	HookSpecificOutput *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is the event-specific part of an Output.
type Specific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// FailOpen is the output of a hook that could not do its work: Claude Code
// carries on as if the hook were not there.
func FailOpen() Output { return Output{Continue: true} }

// Encode renders an Output as one line of JSON, without HTML escaping (so
// "<" in context stays readable) and with a trailing newline. Secrets are
// redacted again on the way out, as at every face's output.
func (o Output) Encode() []byte {
	o.SystemMessage, _ = redact.String(o.SystemMessage)
	if o.HookSpecificOutput != nil {
		spec := *o.HookSpecificOutput
		spec.AdditionalContext, _ = redact.String(spec.AdditionalContext)
		o.HookSpecificOutput = &spec
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		return []byte("{\"continue\":true}\n")
	}
	return buf.Bytes()
}
