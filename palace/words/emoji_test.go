package words

import (
	"strings"
	"testing"
)

func TestEachEmoji(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // each emoji read: its span's text=its words, joined by "|"
	}{
		{"my new 🐶!", "🐶=dog"},
		{"off to 🇯🇵🇫🇷 next week", "🇯🇵=Japan|🇫🇷=France"},
		{"👩🏽‍🍳 tonight", "👩🏽‍🍳=cook"},               // a skin tone inside the sequence
		{"at the 🏳️‍🌈 parade", "🏳️‍🌈=rainbow flag"}, // a sequence read whole
		{"☕️ first", "☕️=hot beverage"},             // the variation selector after it is its own
		{"🏄‍♀️🏄", "🏄‍♀️=surfing|🏄=surfing"},
		{"🏴󠁧󠁢󠁥󠁮󠁧󠁿 won", "🏴󠁧󠁢󠁥󠁮󠁧󠁿=England"},
		{"pizza🍕and🍺", "🍕=pizza|🍺=beer mug"},
		// Faces, hearts, hands and symbols name nothing in what was said.
		{"😂😂 ❤️ 👍 🙏 💪 ⏰ ➡️ ©", ""},
		// Nor do the emoji of things that chat writes to cheer.
		{"that's 🔥🔥, congrats 🎉✨🚀", ""},
		{"no emoji at all, café", ""},
		{"🇯", ""}, // half a flag
		// A character that is text by default is an emoji only with the
		// selector after it.
		{"I ♥ NY, off to ✈ soon", ""},
		{"off ✈️ to the ☀️!", "✈️=airplane|☀️=sun"},
	} {
		var got []string
		EachEmoji(c.text, func(start, end int, words string) {
			got = append(got, c.text[start:end]+"="+words)
		})
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("EachEmoji(%q) = %q, want %q", c.text, g, c.want)
		}
		if HasEmoji(c.text) != (c.want != "") {
			t.Errorf("HasEmoji(%q) = %v", c.text, !(c.want != ""))
		}
	}
}

func TestEmojiName(t *testing.T) {
	for short, want := range map[string]string{
		"dog face":                   "dog",
		"woman cook":                 "cook",
		"person in lotus position":   "lotus position",
		"beach with umbrella":        "beach umbrella",
		"flag: St. Kitts & Nevis":    "St. Kitts & Nevis",
		"man cook: medium skin tone": "cook",
		"man":                        "",
	} {
		if got := emojiName(short); got != want {
			t.Errorf("emojiName(%q) = %q, want %q", short, got, want)
		}
	}
}

func TestEmojiFor(t *testing.T) {
	for name, want := range map[string]string{"dog": "🐕", "Japan": "🇯🇵", "birthday cake": "🎂", "cook": "👨‍🍳", "airplane": "✈\uFE0F", "fire": "", "happiness": ""} {
		got := EmojiFor(name)
		if got != want {
			t.Errorf("EmojiFor(%q) = %q, want %q", name, got, want)
		}
		if got == "" {
			continue
		}
		EachEmoji(got, func(start, end int, words string) {
			if start != 0 || end != len(got) || !strings.EqualFold(words, name) {
				t.Errorf("%q reads as %q over [%d, %d)", got, words, start, end)
			}
		})
	}
}

// EachEmoji never panics, and its spans are in order, apart, inside the
// text, and each names something.
func FuzzEachEmoji(f *testing.F) {
	for _, s := range []string{"my new 🐶!", "🇯🇵🇫🇷🇯", "👩🏽‍🍳‍", "🏳️‍🌈", "☕️️", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "\xf0\x9f\x90", "a\xff🐶", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		at := 0
		EachEmoji(text, func(start, end int, name string) {
			if start < at || end <= start || end > len(text) || name == "" {
				t.Fatalf("EachEmoji(%q): span [%d, %d) named %q after %d", text, start, end, name, at)
			}
			at = end
		})
		if HasEmoji(text) != (at > 0) {
			t.Fatalf("HasEmoji(%q) = %v", text, !(at > 0))
		}
	})
}
