package palace

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestUnaddressed(t *testing.T) {
	for _, c := range []struct {
		text  string
		names []string
		want  string
	}{
		{"Thanks, Melanie! The quilt is done.", []string{"Melanie"}, "Thanks,        ! The quilt is done."},
		{"thanks melanie, see you", []string{"Melanie"}, "thanks        , see you"},
		{"Melanie's painting and MELANIE", []string{"Melanie"}, "       's painting and        "},
		{"Bobby met Bob", []string{"Bob"}, "Bobby met    "},
		{"Hola, José!", []string{"José"}, "Hola, " + strings.Repeat(" ", len("José")) + "!"},
		{"Hey Ana Souza", []string{"Ana", "Souza"}, "Hey " + strings.Repeat(" ", len("Ana Souza"))},
		{"nothing to blank", []string{"Ana"}, "nothing to blank"},
		{"Hey Ana", nil, "Hey Ana"},
	} {
		got := unaddressed(c.text, c.names)
		if got != c.want {
			t.Errorf("unaddressed(%q, %q) = %q, want %q", c.text, c.names, got, c.want)
		}
		if len(got) != len(c.text) {
			t.Errorf("unaddressed(%q) changed the length: %d bytes, not %d", c.text, len(got), len(c.text))
		}
	}
}

func TestNameWords(t *testing.T) {
	for _, c := range []struct {
		speaker string
		want    []string
	}{
		{"Caroline", []string{"Caroline"}},
		{"Ana Souza", []string{"Ana", "Souza"}},
		{"Dr. Mary-Jane O'Neil", []string{"Dr", "Mary-Jane", "O'Neil"}},
		{"user", nil},
		{"Assistant", nil},
		{"gpt", nil},
		{"Speaker 2", nil},
		{"u_4711", nil},
		{"J", nil},
		{"Jess 🌸", []string{"Jess"}},
		{"Mom ❤️", []string{"Mom"}},
		{"🌸 Ana Souza 🌸", []string{"Ana", "Souza"}},
		{"🌸", nil},
		{"Jess🌸", []string{"Jess"}},
		{"Maria del Carmen", []string{"Maria", "Carmen"}},
		{"Vincent van Gogh", []string{"Vincent", "Gogh"}},
		{"jenny_k", nil},
		{"sam", []string{"sam"}},
	} {
		if got := nameWords(c.speaker); !reflect.DeepEqual(got, c.want) {
			t.Errorf("nameWords(%q) = %q, want %q", c.speaker, got, c.want)
		}
	}
}

func TestAddressedKeywords(t *testing.T) {
	kw := withAddressed(withRestated("Bob: I fixed it", []string{"The quilt is done."}), []string{"Ana", "Souza"})
	got, names := splitAddressed(kw)
	if !reflect.DeepEqual(names, []string{"Ana", "Souza"}) || strings.Contains(got, "Ana") {
		t.Errorf("splitAddressed(%q) = %q, %q", kw, got, names)
	}
	borrowed, restated := splitRestated(kw)
	if borrowed != "Bob: I fixed it" || !reflect.DeepEqual(restated, []string{"The quilt is done."}) {
		t.Errorf("splitRestated(%q) = %q, %q", kw, borrowed, restated)
	}
	// A mark in the text itself cannot forge names.
	if _, names := splitAddressed(withAddressed("a\x1eEve", nil)); names != nil {
		t.Errorf("a record separator in borrowed text was read as names %q", names)
	}
}

// Each text of a conversation records the name of the person it answers,
// through a session batch and through a connection alike; a text that
// answers no one, a note without a speaker and a chat role record none.
func TestTextsRecordWhomTheyAddress(t *testing.T) {
	ctx := context.Background()
	p := newTestPalace(t)
	chat := []string{
		"Bob: Hey Ana, I repaired the old fence today",
		"Ana: Nice work, Bob! My quilt is finished",
		"Ana: It took a month",
		"Bob: Show me, Ana!",
	}
	want := [][]string{nil, {"Bob"}, {"Bob"}, {"Ana"}}
	check := func(t *testing.T, ds []*Drawer) {
		t.Helper()
		for i, d := range ds {
			if got := addressedBy(d); !reflect.DeepEqual(got, want[i]) {
				t.Errorf("%q addresses %q, want %q", d.Content, got, want[i])
			}
			if d.Content != chat[i] {
				t.Errorf("stored %q, not the text as written %q", d.Content, chat[i])
			}
		}
	}
	t.Run("session", func(t *testing.T) {
		at := time.Date(2024, 3, 2, 10, 0, 0, 0, time.UTC)
		var ds []*Drawer
		for i, text := range chat {
			who, _, _ := strings.Cut(text, ": ")
			ds = append(ds, &Drawer{Kind: KindTurn, Content: text, SessionID: "s1", SenderIDs: []string{who},
				Timestamp: at.Add(time.Duration(i) * time.Minute)})
		}
		if err := p.AddMany(ctx, ds); err != nil {
			t.Fatal(err)
		}
		check(t, ds)
	})
	t.Run("connection", func(t *testing.T) {
		var ds []*Drawer
		for _, text := range chat {
			d, err := p.Remember(ctx, text, RememberOptions{Connection: "c1"})
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, d)
		}
		check(t, ds)
	})
	t.Run("roles and notes", func(t *testing.T) {
		for i, text := range []string{"user: add an index to the user table", "assistant: done, user", "A note about Bob", "Another note"} {
			d, err := p.Remember(ctx, text, RememberOptions{Connection: "c2"})
			if err != nil {
				t.Fatal(err)
			}
			if got := addressedBy(d); got != nil {
				t.Errorf("text %d %q addresses %q, want no one", i, text, got)
			}
		}
	})
}

func TestIsShortFor(t *testing.T) {
	for _, c := range []struct {
		word, name string
		want       bool
	}{
		{"Mel", "Melanie", true},
		{"Deb", "Deborah", true},
		{"Cal", "calvin", true},       // the name as a question's word, in lower case
		{"mel", "Melanie", false},     // as written, a short form is capitalised
		{"Me", "Melanie", false},      // too short
		{"Melanie", "Melanie", false}, // the name itself
		{"And", "Andrew", false},      // a word of the language
		{"Bill", "William", false},    // not the name's beginning
		{"Melo", "Melanie", false},
	} {
		if got := isShortFor(c.word, c.name); got != c.want {
			t.Errorf("isShortFor(%q, %q) = %v, want %v", c.word, c.name, got, c.want)
		}
	}
	if got := unaddressed("Hey Mel! And the melody?", []string{"Melanie"}); got != "Hey    ! And the melody?" {
		t.Errorf("unaddressed: %q", got)
	}
	if got := unaddressed("thanks jose, and Zoe too", []string{"José", "Zoë"}); got != "thanks     , and     too" {
		t.Errorf("unaddressed, accents: %q", got)
	}
	if got := unaddressed("merci José", []string{"Jose"}); strings.Contains(got, "Jos") {
		t.Errorf("unaddressed, accents in the text: %q", got)
	}
}
