package server

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"time"

	"github.com/loci-mem/loci/palace"
)

// The tool table. Each tool lives in its own file (tool_<name>.go) as a
// params struct and a handler; newTool makes the table entry, which every
// transport's tools/call reaches through Server.callTool.

// tool is one entry of the table.
type tool struct {
	name        string
	description string
	face        face
	params      reflect.Type // the params struct: decoding and schema
	// run decodes the arguments into the params struct, calls the handler
	// and renders its result as the text of content[0].
	run func(ctx context.Context, s *Server, args json.RawMessage) (string, error)
}

// plainText is a tool result sent as is; any other result is sent as
// JSON text (seed 003's "parse result.content[0].text as JSON").
type plainText string

// markdownText is a tool result sent as is, written for a model to read
// (the mem_* tools' markdown): it may end with notes (withNotes).
type markdownText string

// newTool makes a table entry of a handler and its params struct P.
func newTool[P any, R any](name, description string, f face,
	handler func(ctx context.Context, s *Server, p P) (R, error)) *tool {
	return &tool{
		name: name, description: description, face: f, params: reflect.TypeFor[P](),
		run: func(ctx context.Context, s *Server, args json.RawMessage) (string, error) {
			// Arguments the tool does not take are ignored, and said to be
			// (unknown_args.go).
			var p P
			unknown, err := decodeArgs(args, &p)
			var warnings []string
			if len(unknown) > 0 {
				warnings = argWarnings(name, unknown, reflect.TypeFor[P]())
			}
			if err != nil {
				return "", errWithWarnings(err, warnings)
			}
			r, err := handler(ctx, s, p)
			if err != nil {
				return "", errWithWarnings(err, warnings)
			}
			switch t := any(r).(type) {
			case plainText:
				s.noteWarnings(name, warnings)
				return string(t), nil
			case markdownText:
				return withNotes(string(t), warnings), nil
			}
			text, err := resultJSON(r)
			if err != nil {
				return "", err
			}
			switch {
			case len(warnings) == 0:
				return text, nil
			case !isJSONObject(text):
				s.noteWarnings(name, warnings)
				return text, nil
			}
			return withWarnings(text, warnings), nil
		},
	}
}

// resultJSON renders a result as compact JSON, without HTML escaping (the
// text is read by models and programs, not embedded in a page).
func resultJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// largeResult is the size of a tool result past which the server logs a
// warning: 200,000 bytes is four times what Claude Code hands its model
// before it moves a result to a file (50,000 characters).
const largeResult = 200_000

// toolset lists every MCP tool loci serves.
func toolset() []*tool {
	return []*tool{
		memoryRememberTool(),
		memoryRecallTool(),
		memoryRecallDeepTool(),
		palaceCreateTool(),
		palaceListTool(),
		kgAssertTool(),
		kgQueryTool(),
		memoryListTool(),
		memoryForgetTool(),
		palaceInfoTool(),
		memContextTool(),
		memSearchTool(),
		memSaveTurnTool(),
		memSaveFactTool(),
		rememberTool(),
		recallTool(),
	}
}

// callTool runs one tools/call: the tool's text, or its failure as the
// face's contract wants it (an isError text, or a JSON-RPC error). id is
// the request's, for the log.
func (s *Server) callTool(ctx context.Context, id json.RawMessage, name string, args json.RawMessage) (text string, isError bool, rerr *rpcError) {
	t := s.tools[name]
	if t == nil {
		return "", false, &rpcError{Code: codeInternalError, Message: "unknown tool: " + name}
	}
	if d := s.cfg.ToolDelay; d > 0 {
		s.log.Debug().Str("tool", name).Dur("delay", d).Msg("tool call delayed")
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
	start := time.Now()
	text, err := t.run(ctx, s, args)
	took := time.Since(start)
	if obs := s.observer.Load(); obs != nil {
		(*obs)(name, err != nil, took)
	}
	s.log.Debug().Str("tool", name).Dur("took", took).Bool("failed", err != nil).Msg("tool call")
	if len(text) > largeResult {
		// Whole long memories (the contract's default): say, where the
		// host shows loci's log, how to keep results inside what a client
		// passes to its model (clip.go).
		s.log.Warn().Str("tool", name).Int("bytes", len(text)).
			Msg("large tool result; max_content_chars (per call) or LOCI_MAX_CONTENT_CHARS bounds each memory's content")
	}
	if err == nil {
		return text, false, nil
	}
	msg := s.failureText(name, id, err)
	if t.face == rpcErrors {
		return "", false, &rpcError{Code: codeInternalError, Message: msg}
	}
	return msg, true, nil
}

// drawerJSON is a drawer as seed 003's tools return it: drawer_id, content,
// importance, tags, created_at, plus loci's additions.
type drawerJSON struct {
	DrawerID   string   `json:"drawer_id"`
	Content    string   `json:"content"`
	Importance float64  `json:"importance"`
	Tags       []string `json:"tags"`
	CreatedAt  string   `json:"created_at"`
	Room       string   `json:"room"`
	Kind       string   `json:"kind"`
	Timestamp  string   `json:"timestamp"`
	// Session is the conversation the drawer belongs to (loci; absent
	// when none).
	Session string `json:"session,omitempty"`
	// Speaker is who said the drawer's text (loci; absent when none):
	// memory_remember's speaker, or the one its label names.
	Speaker string `json:"speaker,omitempty"`
	// ContentTruncated and ContentChars say that Content was cut to the
	// call's max_content_chars, and its whole length (clip.go).
	ContentTruncated bool `json:"content_truncated,omitempty"`
	ContentChars     int  `json:"content_chars,omitempty"`
}

func toDrawerJSON(d *palace.Drawer) drawerJSON {
	tags := d.Tags
	if tags == nil {
		tags = []string{}
	}
	return drawerJSON{
		DrawerID:   d.ID,
		Content:    d.Content,
		Importance: d.Importance,
		Tags:       tags,
		CreatedAt:  rfc3339(d.CreatedAt),
		Room:       d.Room,
		Kind:       d.Kind,
		Timestamp:  rfc3339(d.Timestamp),
		Session:    d.SessionID,
		Speaker:    palace.SpeakerOf(d),
	}
}

// clip cuts j's content to n characters (0: none), saying so when it cuts
// (palace.Clip).
func (j *drawerJSON) clip(passage *palace.Span, query string, n int) {
	var whole int
	if j.Content, whole = palace.Clip(j.Content, passage, query, n); whole > 0 {
		j.ContentTruncated, j.ContentChars = true, whole
	}
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
