package argname_test

import (
	"strings"
	"testing"

	"github.com/loci-mem/loci/server/argname"
)

// A warning names the name meant, or the names taken where none is
// likely; it shows where a nested name was and cuts a long one.
func TestWarning(t *testing.T) {
	names := []string{"sender_id", "sender_name", "role", "timestamp", "content"}
	for _, c := range []struct{ name, at, want string }{
		{"text", "messages.0", "unknown field 'messages.0.text' ignored; did you mean 'content'?"},
		{"senderId", "", "unknown field 'senderId' ignored; did you mean 'sender_id'?"},
		{"flavour", "", "unknown field 'flavour' ignored; a message takes sender_id, sender_name, role, timestamp, content"},
	} {
		if got := argname.Warning("field", c.name, c.at, "a message", names); got != c.want {
			t.Errorf("Warning(%q, %q) = %q, want %q", c.name, c.at, got, c.want)
		}
	}
	long := strings.Repeat("x", 500)
	if got := argname.Warning("field", long, "", "/search", names); strings.Contains(got, strings.Repeat("x", argname.MaxShown+1)) ||
		!strings.Contains(got, strings.Repeat("x", argname.MaxShown)+"…") {
		t.Errorf("a long name is not cut at %d characters: %q", argname.MaxShown, got)
	}
}

// Bound names MaxNamed and counts the rest.
func TestBound(t *testing.T) {
	ws := []string{"a", "b", "c", "d", "e"}
	if got := argname.Bound("field", ws, 5); len(got) != 5 {
		t.Errorf("five of five: %q", got)
	}
	got := argname.Bound("field", ws, 12)
	if len(got) != 6 || got[5] != "7 more unknown fields ignored" {
		t.Errorf("five of twelve: %q", got)
	}
	if len(ws) != 5 {
		t.Errorf("Bound changed its input: %q", ws)
	}
}

// Meant guesses only where one name is likely.
func TestMeant(t *testing.T) {
	for _, c := range []struct {
		name  string
		names []string
		want  string
	}{
		{"topK", []string{"query", "top_k"}, "top_k"},
		{"filter", []string{"filters", "query"}, "filters"},
		{"txt", []string{"ext", "text"}, ""}, // a letter from each: no guess
		{"querry", []string{"query", "queries"}, "query"},
		{"limit", []string{"query", "top_k"}, "top_k"},
		{"", []string{"query"}, ""},
	} {
		if got := argname.Meant(c.name, c.names); got != c.want {
			t.Errorf("Meant(%q, %q) = %q, want %q", c.name, c.names, got, c.want)
		}
	}
}
