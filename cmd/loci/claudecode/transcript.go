package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// EntryKind classifies a transcript line.
type EntryKind int

// Kinds of transcript line. Only prompts, replies and boundaries matter for
// memory; everything else (progress events, file-history snapshots, tool
// calls and their results, thinking, other system lines) is KindOther.
const (
	KindOther    EntryKind = iota
	KindPrompt             // a user line carrying the user's own text
	KindReply              // an assistant line carrying text blocks
	KindBoundary           // system/turn_duration: the end of a turn
)

// Entry is one line of a Claude Code transcript, reduced to what the hooks
// use.
type Entry struct {
	Kind EntryKind
	UUID string
	Time time.Time // zero when the line has no timestamp
	Text string    // the user's text (KindPrompt) or merged text blocks (KindReply)
}

// rawLine is the part of a transcript line the hooks read.
type rawLine struct {
	Type             string      `json:"type"`
	Subtype          string      `json:"subtype"`
	UUID             string      `json:"uuid"`
	Timestamp        string      `json:"timestamp"`
	IsMeta           bool        `json:"isMeta"`
	IsSidechain      bool        `json:"isSidechain"`
	IsCompactSummary bool        `json:"isCompactSummary"`
	IsAPIError       bool        `json:"isApiErrorMessage"`
	Message          *rawMessage `json:"message"`
}

type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type rawBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ParseTranscript reads transcript JSONL. Lines that are not JSON are
// skipped; partial reports that the last line was cut short (the file is
// still being written).
func ParseTranscript(data []byte) (entries []Entry, partial bool) {
	for len(data) > 0 {
		var line []byte
		i := bytes.IndexByte(data, '\n')
		last := i < 0
		if last {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var raw rawLine
		if err := json.Unmarshal(line, &raw); err != nil {
			if last {
				partial = true
			}
			continue
		}
		entries = append(entries, classify(&raw))
	}
	return entries, partial
}

func classify(raw *rawLine) Entry {
	e := Entry{UUID: raw.UUID}
	if raw.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, raw.Timestamp); err == nil {
			e.Time = t.UTC()
		}
	}
	switch {
	case raw.Type == "system" && raw.Subtype == "turn_duration":
		e.Kind = KindBoundary
	case raw.IsSidechain || raw.IsMeta || raw.IsCompactSummary || raw.IsAPIError || raw.Message == nil:
	case raw.Type == "user":
		if text := promptText(raw.Message.Content); text != "" {
			e.Kind, e.Text = KindPrompt, text
		}
	case raw.Type == "assistant":
		if text := strings.Join(textBlocks(raw.Message.Content), "\n\n"); text != "" {
			e.Kind, e.Text = KindReply, text
		}
	}
	return e
}

// textBlocks returns the text of a message's content: the string itself, or
// the non-empty "text" blocks of an array (never thinking, tool_use or
// tool_result blocks).
func textBlocks(content json.RawMessage) []string {
	content = bytes.TrimSpace(content)
	if len(content) == 0 {
		return nil
	}
	if content[0] == '"' {
		var s string
		if json.Unmarshal(content, &s) == nil && strings.TrimSpace(s) != "" {
			return []string{strings.TrimSpace(s)}
		}
		return nil
	}
	var blocks []rawBlock
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			out = append(out, strings.TrimSpace(b.Text))
		}
	}
	return out
}

var (
	commandNameRe = regexp.MustCompile(`(?s)<command-name>(.*?)</command-name>`)
	commandArgsRe = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
)

// promptText is the user's own text in a user line: "" for tool results,
// for the output of local commands and for interruption notices; a slash
// command invocation reads as "/name args".
func promptText(content json.RawMessage) string {
	text := strings.Join(textBlocks(content), "\n\n")
	switch {
	case text == "":
		return ""
	case strings.HasPrefix(text, "<local-command-stdout>"), strings.HasPrefix(text, "<local-command-stderr>"),
		strings.HasPrefix(text, "<bash-stdout>"), strings.HasPrefix(text, "<bash-stderr>"),
		strings.HasPrefix(text, "[Request interrupted by user"):
		return ""
	}
	if m := commandNameRe.FindStringSubmatch(text); m != nil {
		cmd := strings.TrimSpace(m[1])
		if a := commandArgsRe.FindStringSubmatch(text); a != nil && strings.TrimSpace(a[1]) != "" {
			cmd += " " + strings.TrimSpace(a[1])
		}
		return cmd
	}
	return text
}

// Turn is one exchange: the user's prompt and the assistant's answer.
type Turn struct {
	ID        string    // uuid of the turn's first prompt line ("" if it had none)
	User      string    // the user's own text, prompts joined by blank lines
	Assistant string    // the assistant's text blocks joined by blank lines
	Start     time.Time // time of the first prompt
	End       time.Time // time of the last line of the turn
	Complete  bool      // ended by a turn_duration line
}

// LastTurn finds the last turn of a transcript. The only boundary is a
// system/turn_duration line. When a prompt follows the last boundary, that
// turn is still being written and is returned with Complete false;
// otherwise the turn ending at the last boundary is returned. ok is false
// when there is no turn with a prompt.
func LastTurn(entries []Entry) (t Turn, ok bool) {
	last := lastBoundary(entries, len(entries))
	if tail := entries[last+1:]; hasPrompt(tail) {
		return buildTurn(tail, false)
	}
	if last < 0 {
		return Turn{}, false
	}
	prev := lastBoundary(entries, last)
	return buildTurn(entries[prev+1:last+1], true)
}

// Turns are every turn of a transcript, in order, as LastTurn finds the
// last: the lines between two boundaries, each turn with a prompt; a last
// one after the final boundary is not Complete. A transcript without
// boundaries (an older Claude Code wrote none) has a turn at each prompt
// that follows a reply.
func Turns(entries []Entry) []Turn {
	var out []Turn
	add := func(seg []Entry, complete bool) {
		if t, ok := buildTurn(seg, complete); ok {
			out = append(out, t)
		}
	}
	if lastBoundary(entries, len(entries)) < 0 {
		start, replied := 0, false
		for i, e := range entries {
			switch {
			case e.Kind == KindPrompt && replied:
				add(entries[start:i], true)
				start, replied = i, false
			case e.Kind == KindReply:
				replied = true
			}
		}
		add(entries[start:], replied)
		return out
	}
	start := 0
	for i, e := range entries {
		if e.Kind == KindBoundary {
			add(entries[start:i+1], true)
			start = i + 1
		}
	}
	add(entries[start:], false)
	return out
}

// lastBoundary is the index of the last boundary before index end, or -1.
func lastBoundary(entries []Entry, end int) int {
	for i := end - 1; i >= 0; i-- {
		if entries[i].Kind == KindBoundary {
			return i
		}
	}
	return -1
}

func hasPrompt(entries []Entry) bool {
	for _, e := range entries {
		if e.Kind == KindPrompt {
			return true
		}
	}
	return false
}

func buildTurn(seg []Entry, complete bool) (Turn, bool) {
	t := Turn{Complete: complete}
	var user, reply []string
	for _, e := range seg {
		switch e.Kind {
		case KindPrompt:
			if len(user) == 0 {
				t.ID, t.Start = e.UUID, e.Time
			}
			user = append(user, e.Text)
		case KindReply:
			reply = append(reply, e.Text)
		}
		if !e.Time.IsZero() {
			t.End = e.Time
		}
	}
	if len(user) == 0 {
		return Turn{}, false
	}
	t.User = strings.Join(user, "\n\n")
	t.Assistant = strings.Join(reply, "\n\n")
	if t.Start.IsZero() {
		t.Start = t.End
	}
	return t, true
}

// SessionStats summarises a whole transcript for SessionEnd.
type SessionStats struct {
	FirstPrompt string
	Prompts     int       // the user's own prompts: the session's turns
	Start, End  time.Time // first and last timestamps of any line
}

// Stats computes a transcript's SessionStats.
func Stats(entries []Entry) SessionStats {
	var s SessionStats
	for _, e := range entries {
		if !e.Time.IsZero() {
			if s.Start.IsZero() {
				s.Start = e.Time
			}
			s.End = e.Time
		}
		if e.Kind == KindPrompt {
			if s.Prompts == 0 {
				s.FirstPrompt = e.Text
			}
			s.Prompts++
		}
	}
	return s
}

// maxTail bounds how much of a transcript the Stop hook reads looking for
// the start of the last turn.
const maxTail = 64 << 20

// expandPath resolves a leading "~/" (as documentation examples write
// transcript paths) to the home directory.
func expandPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// ReadTranscript reads a whole transcript.
func ReadTranscript(path string) ([]Entry, error) {
	data, err := os.ReadFile(expandPath(path))
	if err != nil {
		return nil, err
	}
	entries, _ := ParseTranscript(data)
	return entries, nil
}

// readTail reads the end of a transcript, growing the window until it
// holds the whole last turn (two boundaries, or one boundary followed by a
// prompt) or the whole file.
func readTail(path string) ([]Entry, error) {
	f, err := os.Open(expandPath(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	for window := int64(1 << 20); ; window *= 4 {
		off := max(size-min(window, maxTail), 0)
		buf := make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if off > 0 { // drop the line cut by the window's start
			if i := bytes.IndexByte(buf, '\n'); i >= 0 {
				buf = buf[i+1:]
			}
		}
		entries, _ := ParseTranscript(buf)
		if off == 0 || window >= maxTail || tailHoldsTurn(entries) {
			return entries, nil
		}
	}
}

func tailHoldsTurn(entries []Entry) bool {
	last := lastBoundary(entries, len(entries))
	if last < 0 {
		return false
	}
	return hasPrompt(entries[last+1:]) || lastBoundary(entries, last) >= 0
}

// ReadLastTurn reads the last turn of the transcript at path. Claude Code
// runs the Stop hook before it writes the turn's turn_duration line, so an
// incomplete turn is read again up to attempts times, delay apart; after
// that the turn is returned as it stands (Complete false).
func ReadLastTurn(ctx context.Context, path string, attempts int, delay time.Duration) (Turn, bool, error) {
	for attempt := 1; ; attempt++ {
		entries, err := readTail(path)
		if err != nil {
			return Turn{}, false, err
		}
		t, ok := LastTurn(entries)
		if (ok && t.Complete) || attempt >= attempts {
			return t, ok, nil
		}
		select {
		case <-ctx.Done():
			return t, ok, nil
		case <-time.After(delay):
		}
	}
}
