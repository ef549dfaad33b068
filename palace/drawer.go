package palace

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/store"
)

// The records a palace keeps are defined by the store boundary; the core
// and every face use them under these names.
type (
	// Drawer is one memory (see store.Drawer).
	Drawer = store.Drawer
	// Filter selects drawers before any ranking (see store.Filter).
	Filter = store.Filter
	// Pred is a predicate tree over drawer fields (see store.Pred).
	Pred = store.Pred
	// Closet is a room's keyword and summary index (see store.Closet).
	Closet = store.Closet
)

// Kinds of drawer.
const (
	KindNote       = store.KindNote
	KindTurn       = store.KindTurn
	KindEpisode    = store.KindEpisode
	KindAtomicFact = store.KindAtomicFact
	KindFact       = store.KindFact
	KindProfile    = store.KindProfile
	KindAgentCase  = store.KindAgentCase
	KindAgentSkill = store.KindAgentSkill
	KindSession    = store.KindSession
)

// ProfileID is the id of userID's profile drawer (KindProfile): what the
// extraction of their conversations learned of them, merged into one
// document (package session).
func ProfileID(userID string) string { return userID + "_profile" }

// Statuses of a drawer. Only active drawers are recalled.
const (
	StatusActive     = store.StatusActive
	StatusPending    = store.StatusPending
	StatusRejected   = store.StatusRejected
	StatusStale      = store.StatusStale
	StatusSuperseded = store.StatusSuperseded
	StatusDeleted    = store.StatusDeleted
)

// AnyStatus is a Filter.Statuses value that selects drawers of every status.
var AnyStatus = store.AnyStatus

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

// RoomLabel is a room as people named it: Custom(Ops) reads "Ops".
func RoomLabel(room string) string {
	if strings.HasPrefix(room, "Custom(") && strings.HasSuffix(room, ")") && len(room) > len("Custom()") {
		return room[len("Custom(") : len(room)-1]
	}
	return room
}

// Limits on drawer fields, enforced on every write.
const (
	MaxContentBytes = 4 << 20 // long texts are indexed as passages (passages.go)
	MaxTags         = 64
	MaxTagBytes     = 128
	MaxRoomBytes    = 128
	MaxKindBytes    = 64
)

// CheckName validates a name (room, tag, kind): valid UTF-8 of at most max
// bytes, without control or bidirectional-override characters, which
// could drive a terminal that prints it.
func CheckName(what, s string, max int) error {
	if len(s) > max || !utf8.ValidString(s) {
		return Invalidf("%s must be valid UTF-8 of at most %d bytes", what, max)
	}
	for _, r := range s {
		if unicode.IsControl(r) || isBidiControl(r) {
			return Invalidf("%s %q contains a control character (%U)", what, truncate(s, 40), r)
		}
	}
	return nil
}

// isBidiControl reports the Unicode bidirectional formatting characters
// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), which can make a
// terminal show text in an order other than the one stored.
func isBidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// validateDrawer checks and normalises a drawer before it is stored.
func validateDrawer(d *Drawer) error {
	d.Content = strings.TrimSpace(d.Content)
	if d.Content == "" && !purged(d) { // a purged drawer's row keeps no text (erase.go)
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
	if err := CheckName("kind", d.Kind, MaxKindBytes); err != nil {
		return err
	}
	if err := CheckName("room", d.Room, MaxRoomBytes); err != nil {
		return err
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
	if err := CheckUnit("importance", d.Importance); err != nil {
		return err
	}
	if d.Confidence == 0 {
		d.Confidence = 1
	}
	if err := CheckUnit("confidence", d.Confidence); err != nil {
		return err
	}
	if d.Status == "" {
		d.Status = StatusActive
	}
	if !store.ValidStatus(d.Status) {
		return Invalidf("unknown status %q", d.Status)
	}
	if d.SenderIDs == nil {
		d.SenderIDs = []string{}
	}
	return nil
}

// NormalizeTags trims, de-duplicates and checks tags.
func NormalizeTags(in []string) ([]string, error) { return normalizeTags(in) }

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
		if err := CheckName("tag", t, MaxTagBytes); err != nil {
			return nil, err
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// lastBytes keeps the end of s, at most n bytes of it, marking the cut
// with a leading "…". The cut moves forward to the start of a word when
// one starts within lastBytesWordSlack bytes, so that no word's tail is
// kept as a word of its own.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - max(n, 0)
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	if i := strings.IndexAny(s[cut:min(len(s), cut+lastBytesWordSlack)], " \t\n"); i >= 0 {
		cut += i + 1
	}
	return "…" + s[cut:]
}

// lastBytesWordSlack bounds how far lastBytes looks for a word's start: a
// text without spaces (code, a URL, Chinese) is cut where the budget ends.
const lastBytesWordSlack = 32

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Truncate shortens s to at most n bytes on a character boundary, marking
// the cut with "…".
func Truncate(s string, n int) string { return truncate(s, n) }

// cloneDrawer copies d deeply enough that changing the copy's slices or
// meta leaves d alone.
func cloneDrawer(d *Drawer) *Drawer {
	c := *d
	c.Tags = append([]string(nil), d.Tags...)
	c.SenderIDs = append([]string(nil), d.SenderIDs...)
	if d.Meta != nil {
		c.Meta = make(map[string]any, len(d.Meta))
		for k, v := range d.Meta {
			c.Meta[k] = v
		}
	}
	return &c
}

// CheckDrawer validates and normalises a drawer the way every write does
// (an import checks a whole file before storing any of it).
func CheckDrawer(d *Drawer) error { return validateDrawer(d) }

// CheckUnit is the one check of a weight in [0,1] (a drawer's importance
// and confidence, a fact's confidence, a triple's on import): every face
// and package above palace validates through it, so the rule and its
// message are the same everywhere. NaN is refused. (kg, below palace,
// checks its triples' confidence itself with the same rule.)
func CheckUnit(field string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return Invalidf("%s must be in [0,1], got %v", field, v)
	}
	return nil
}
