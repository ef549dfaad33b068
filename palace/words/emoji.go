package words

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// People write some words as pictures: "my new 🐶", "off to 🇯🇵 tomorrow",
// "🍕 tonight?", "happy 🎂!". Such an emoji is a content word that no
// tokenizer keeps and no word vector holds, so EachEmoji reads it as the
// words Unicode names it by: its CLDR short name, as emoji-test.txt
// writes it ("dog face", "birthday cake", "flag: Japan"), without the
// words that only say how the picture is drawn ("face", "man", "woman",
// "person", "with"…) and without a flag's "flag:".
//
// Only the emoji of things are read: animals and plants, food and drink,
// places, vehicles and the weather, activities and events, objects, flags,
// and people at work, at play or at rest ("👩‍🍳" a cook, "🏄" surfing).
// Faces, hearts, hands and gestures are not: "😂", "❤️" and "👍" react to
// what was said and name nothing in it (a message of nothing else only
// reacts), and a clock face or an arrow is a symbol. Skin tones and
// the variation selectors are no part of what an emoji names, but a
// character that is text by default ("♥", "✈", "☀", as a font sets it) is
// read as an emoji only with the selector after it that makes it one
// ("✈️"), which an emoji keyboard always writes: "I ♥ NY" is no heart suit.
//
// A few emoji of things are written to react or to cheer far more often
// than for the thing ("that's 🔥", "congrats 🎉✨", "let's go 🚀"), and
// are read as reactions too (emojiReacts), as "lol" and "wow" are words
// of reaction: a question about a fire or a party would otherwise find
// every message that cheered.
//
// The table (emoji_table.go) is generated from Unicode's emoji-test.txt
// (Unicode 15.0, Debian's unicode-data) by TestEmojiTableIsUnicodes.

// EachEmoji calls fn with the byte span of each emoji of text that names a
// thing and the words it names it by, in order. A sequence is read whole
// where the table holds it ("👩‍🍳" a cook, "🏳️‍🌈" a rainbow flag), and
// otherwise by its longest known beginning.
func EachEmoji(text string, fn func(start, end int, words string)) {
	var key []byte
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !emojiStarts[r] {
			i += n
			continue
		}
		key = key[:0]
		name, end, keyLen := "", 0, 0
		for j, runes := i, 0; j < len(text) && runes < maxEmojiRunes; {
			r, m := utf8.DecodeRuneInString(text[j:])
			if emojiDrawing(r) {
				j += m
				continue
			}
			if !emojiRunes[r] {
				break
			}
			key = utf8.AppendRune(key, r)
			j, runes = j+m, runes+1
			if w, ok := emojiWords[string(key)]; ok {
				name, end, keyLen = w, j, len(key)
			}
		}
		if name == "" || emojiReacts[string(key[:keyLen])] || emojiTextStyle[string(key[:keyLen])] && !strings.HasPrefix(text[end:], "\uFE0F") {
			i += n
			continue
		}
		for end < len(text) { // the variation selector or skin tone after it
			r, m := utf8.DecodeRuneInString(text[end:])
			if !emojiDrawing(r) {
				break
			}
			end += m
		}
		fn(i, end, name)
		i = end
	}
}

// emojiReacts are the emoji of things that chat writes to react or to
// cheer (see above): fire, sparkles, a party popper, confetti, stars and
// a rocket. A closed list, written as a whole and not measured for a
// choice; LoCoMo's turns hold one of them (🎉) and rank the same either way.
var emojiReacts = map[string]bool{
	"\U0001F525": true, // 🔥 fire
	"\u2728":     true, // ✨ sparkles
	"\U0001F389": true, // 🎉 party popper
	"\U0001F38A": true, // 🎊 confetti ball
	"\u2B50":     true, // ⭐ star
	"\U0001F31F": true, // 🌟 glowing star
	"\U0001F680": true, // 🚀 rocket
}

// HasEmoji reports whether text holds an emoji that EachEmoji reads.
func HasEmoji(text string) bool {
	found := false
	EachEmoji(text, func(int, int, string) { found = true })
	return found
}

// emojiDrawing reports whether r only says how the emoji before it is
// drawn: a variation selector (text or emoji style) or a skin tone.
func emojiDrawing(r rune) bool {
	return r == '\uFE0F' || r == '\uFE0E' || r >= 0x1F3FB && r <= 0x1F3FF
}

// emojiStarts holds the first rune of every sequence of the table,
// emojiRunes every rune of them, and maxEmojiRunes the length of the
// longest, in runes.
var emojiStarts, emojiRunes, maxEmojiRunes = emojiIndex()

func emojiIndex() (starts, all map[rune]bool, longest int) {
	starts, all = map[rune]bool{}, map[rune]bool{}
	for seq := range emojiWords {
		n := 0
		for i, r := range seq {
			if i == 0 {
				starts[r] = true
			}
			all[r] = true
			n++
		}
		longest = max(longest, n)
	}
	return starts, all, longest
}

// EmojiFor is an emoji that names a thing by the words name, the
// shortest such sequence: one named in the same case first ("Turkey" 🇹🇷,
// "turkey" 🦃), then in any ("Dog" 🐕), with the selector after it where
// it is text by default ("✈️"); "" when none is. It is
// EachEmoji's reading turned round, for writing a text the way people
// write with emoji (loci eval's --emoji-words).
func EmojiFor(name string) string {
	emojiNamedOnce.Do(func() {
		emojiNamed, emojiNamedFolded = map[string]string{}, map[string]string{}
		for seq, w := range emojiWords {
			if emojiReacts[seq] {
				continue // read as no thing
			}
			shorter(emojiNamed, w, seq)
			shorter(emojiNamedFolded, strings.ToLower(w), seq)
		}
	})
	seq, ok := emojiNamed[name]
	if !ok {
		seq = emojiNamedFolded[strings.ToLower(name)]
	}
	if emojiTextStyle[seq] {
		seq += "\uFE0F" // as an emoji keyboard writes it
	}
	return seq
}

// shorter keeps in m[w] the shorter of seq and what it holds (the first
// in byte order between two of a length), so that the table's order in
// a map does not choose.
func shorter(m map[string]string, w, seq string) {
	if had, ok := m[w]; !ok || len(seq) < len(had) || len(seq) == len(had) && seq < had {
		m[w] = seq
	}
}

var (
	emojiNamedOnce               sync.Once
	emojiNamed, emojiNamedFolded map[string]string
)
