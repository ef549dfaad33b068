package extract

import (
	"slices"
	"testing"
)

func TestSentences(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"We ship on Tuesday. Tests run at 3.14 pm! Why?\nNew line": {"We ship on Tuesday.", "Tests run at 3.14 pm!", "Why?", "New line"},
		"我们周二部署。缓存用Redis！为什么？好":                                    {"我们周二部署。", "缓存用Redis！", "为什么？", "好"},
		"会議は月曜日です。 よろしく":                                           {"会議は月曜日です。", "よろしく"},
		"": nil,
	} {
		if got := Sentences(text); !slices.Equal(got, want) {
			t.Errorf("Sentences(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestAsks(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Did you go?": true,
		"Really?!":    true,
		"为什么？":        true,
		"We went.":    false,
		"Spider-Man has always been a favorite of mine": false,
		// Without a closing mark, the form asks.
		"did you get the tickets":             true,
		"r u coming tonight":                  true,
		"isnt it a bit late for that":         true,
		"Did Jo call you back":                true, // a name as the subject
		"where did you guys end up going":     true,
		"hows the new job 🙂":                  true,
		"what about you":                      true,
		"how long did the drive take":         true,
		"haha wait did you actually say that": false, // "wait" is no reaction
		"omg did you see that":                true,
		"hey what's up":                       true,
		"when I was a kid we went camping":    false,
		"what a day":                          false,
		"how cool is that!":                   false,
		"can't wait":                          false,
		"have fun":                            false,
		"Did it!":                             false,
		"so tired":                            false,
		"":                                    false,
	} {
		if got := Asks(s); got != want {
			t.Errorf("Asks(%q) = %v, want %v", s, got, want)
		}
	}
}
