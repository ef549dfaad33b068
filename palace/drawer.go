package palace

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Kinds of drawer. A palace stores every kind of memory in one table; the
// kind decides which face shows it and how.
const (
	KindNote       = "note"        // memory_remember
	KindTurn       = "turn"        // a saved conversation turn
	KindEpisode    = "episode"     // an extracted conversation episode
	KindAtomicFact = "atomic_fact" // a single-sentence fact from an episode
	KindFact       = "fact"        // an Engram / mem_save_fact fact (review queue)
	KindProfile    = "profile"     // a user profile document
	KindAgentCase  = "agent_case"  // agent track: one run
	KindAgentSkill = "agent_skill" // agent track: a skill clustered from cases
	KindSession    = "session"     // a Claude Code session summary
)

// Statuses of a drawer. Only active drawers are recalled.
const (
	StatusActive     = "active"
	StatusPending    = "pending"
	StatusRejected   = "rejected"
	StatusStale      = "stale"
	StatusSuperseded = "superseded"
	StatusDeleted    = "deleted"
)

var validStatus = map[string]bool{
	StatusActive: true, StatusPending: true, StatusRejected: true,
	StatusStale: true, StatusSuperseded: true, StatusDeleted: true,
}

// Rooms are the named areas of a palace (seed 003). Any other room name is
// stored as Custom(<name>).
var Rooms = []string{
	"Frontend", "Backend", "Testing", "Planning", "Documentation",
	"Research", "Configuration", "Meetings", "General",
}

// DefaultRoom is used when no room is given.
const DefaultRoom = "General"

// NormalizeRoom maps user input to a stored room name: one of Rooms
// (matched case-insensitively), DefaultRoom for empty input, an already
// wrapped Custom(x) unchanged, and anything else wrapped as Custom(x).
func NormalizeRoom(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultRoom
	}
	for _, r := range Rooms {
		if strings.EqualFold(r, s) {
			return r
		}
	}
	if strings.HasPrefix(s, "Custom(") && strings.HasSuffix(s, ")") && len(s) > len("Custom()") {
		return s
	}
	return "Custom(" + s + ")"
}

// Drawer is one memory.
type Drawer struct {
	ID           string         `json:"id"`
	Seq          int64          `json:"seq"`
	Kind         string         `json:"kind"`
	Content      string         `json:"content"`
	Keywords     string         `json:"keywords,omitempty"` // extra searchable text
	Room         string         `json:"room"`
	Tags         []string       `json:"tags"`
	Importance   float64        `json:"importance"`
	Confidence   float64        `json:"confidence"`
	Status       string         `json:"status"`
	UserID       string         `json:"user_id,omitempty"`
	AgentID      string         `json:"agent_id,omitempty"`
	SessionID    string         `json:"session_id,omitempty"`
	SenderIDs    []string       `json:"sender_ids,omitempty"`
	ParentID     string         `json:"parent_id,omitempty"`
	SupersededBy string         `json:"superseded_by,omitempty"`
	Timestamp    time.Time      `json:"timestamp"` // when the remembered event happened
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
	AccessCount  int64          `json:"access_count"`
	LastAccess   time.Time      `json:"last_access,omitzero"`
	Pinned       bool           `json:"pinned,omitempty"`
	Redactions   int            `json:"redactions,omitempty"` // secrets replaced before storing
	Model        string         `json:"model,omitempty"`      // embedder id of the stored vector
	Meta         map[string]any `json:"meta,omitempty"`

	rid   int64
	vecID int64
}

// Limits on drawer fields, enforced on every write.
const (
	MaxContentBytes = 256 << 10
	MaxTags         = 64
	MaxTagBytes     = 128
	MaxRoomBytes    = 128
)

// validate checks and normalises a drawer before it is stored.
func (d *Drawer) validate() error {
	d.Content = strings.TrimSpace(d.Content)
	if d.Content == "" {
		return Invalidf("text is empty")
	}
	if !utf8.ValidString(d.Content) {
		return Invalidf("text is not valid UTF-8")
	}
	if strings.ContainsRune(d.Content, 0) {
		return Invalidf("text contains a NUL character")
	}
	if len(d.Content) > MaxContentBytes {
		return Invalidf("text is %d bytes; the limit is %d", len(d.Content), MaxContentBytes)
	}
	if d.Kind == "" {
		d.Kind = KindNote
	}
	if len(d.Room) > MaxRoomBytes || !utf8.ValidString(d.Room) {
		return Invalidf("room must be valid UTF-8 of at most %d bytes", MaxRoomBytes)
	}
	d.Room = NormalizeRoom(d.Room)
	tags, err := normalizeTags(d.Tags)
	if err != nil {
		return err
	}
	d.Tags = tags
	if d.Importance == 0 {
		d.Importance = 0.5
	}
	if !(d.Importance >= 0 && d.Importance <= 1) {
		return Invalidf("importance must be in [0,1], got %v", d.Importance)
	}
	if d.Confidence == 0 {
		d.Confidence = 1
	}
	if !(d.Confidence >= 0 && d.Confidence <= 1) {
		return Invalidf("confidence must be in [0,1], got %v", d.Confidence)
	}
	if d.Status == "" {
		d.Status = StatusActive
	}
	if !validStatus[d.Status] {
		return Invalidf("unknown status %q", d.Status)
	}
	if d.SenderIDs == nil {
		d.SenderIDs = []string{}
	}
	return nil
}

func normalizeTags(in []string) ([]string, error) {
	if len(in) > MaxTags {
		return nil, Invalidf("at most %d tags are allowed, got %d", MaxTags, len(in))
	}
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if len(t) > MaxTagBytes || !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
			return nil, Invalidf("tag %q must be valid UTF-8 of at most %d bytes", truncate(t, 40), MaxTagBytes)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
