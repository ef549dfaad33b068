package palace

import (
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/words"
)

// Forms of address. People in a conversation call each other by name
// ("Thanks, Melanie!", "hey Cal", "What do you think, Ana?"), and a name
// said to its bearer says whom a message is for, not what it is about.
// Indexed as a word, it makes every message addressed to a person match a
// question that names them, and those messages (the other speaker's news,
// their reply to it) outrank what the person said about themselves. So a
// conversation's text is indexed without the name of the person it
// answers, its addressee: the speaker of the message it answers (the
// other speaker's last message, as borrowedContext finds it), whose words
// it borrows. What it borrows is taken without the names those texts
// addressed, and its vector is made without them too. The text itself is
// stored as written.
//
// Only the addressee's name goes: a third person named in a conversation
// is what a message is about. And only a name: a speaker recorded by a
// chat role ("user", "assistant") is not addressed by it, so those words
// keep their sense ("the user table"). A name is matched as a word,
// whatever its case, as people chatting write them ("thanks ana").
//
// There is nothing to choose. On LoCoMo (hybrid any@10 / frac@10) the
// session path went .867 / .799 → .878 / .807 on conversations 6–10 and
// the agent path .866 / .801 → .873 / .807, both within ±.003 on 1–5;
// multi-hop questions, which ask about one person across sessions, gain
// most (RECALL.md, "Forms of address").

// addressMark separates, at the end of a drawer's keywords, the names its
// text addresses, space-separated. Like restatedMark it is a control
// character (record separator) that no text keeps (withAddressed drops
// it from what comes before).
const addressMark = "\x1e"

// withAddressed is a drawer's keywords with the names its text
// addresses.
func withAddressed(keywords string, names []string) string {
	keywords = strings.ReplaceAll(keywords, addressMark, " ")
	if len(names) == 0 {
		return keywords
	}
	return keywords + addressMark + strings.Join(names, " ")
}

// splitAddressed is the reverse of withAddressed: the keywords and the
// names.
func splitAddressed(keywords string) (string, []string) {
	kw, names, ok := strings.Cut(keywords, addressMark)
	if !ok {
		return keywords, nil
	}
	return kw, strings.Fields(names)
}

// addressedBy returns the names d's text addresses (from its keywords).
func addressedBy(d *Drawer) []string {
	_, names := splitAddressed(d.Keywords)
	return names
}

// nameWords returns the words of a speaker's name by which they are
// addressed ("Ana Souza": "Ana", "Souza"), or none for a speaker recorded
// by a chat role or by anything but words ("Speaker 2", an id). An emoji
// or a symbol that a contact's name carries ("Jess 🌸", "Mom❤️") is no
// part of it and is passed over.
func nameWords(speaker string) []string {
	if _, role := rolePronouns[strings.ToLower(strings.TrimSpace(speaker))]; role {
		return nil
	}
	var out []string
	parts := strings.FieldsFunc(speaker, func(r rune) bool { return unicode.IsSpace(r) || r == '.' || r == ',' })
	capitalised := slices.ContainsFunc(parts, func(w string) bool { r, _ := utf8.DecodeRuneInString(w); return unicode.IsUpper(r) })
	for _, w := range parts {
		w = strings.TrimFunc(w, isNameEmoji)
		if w == "" {
			continue // an emoji or a symbol
		}
		if r, _ := utf8.DecodeRuneInString(w); capitalised && unicode.IsLower(r) {
			continue // a particle ("del", "van"), which nobody is called by
		}
		for _, r := range w {
			if !unicode.IsLetter(r) && r != '-' && r != '\'' {
				return nil
			}
		}
		if utf8.RuneCountInString(w) >= 2 {
			out = append(out, w)
		}
	}
	return out
}

// unaddressed blanks, in text, every word (palace/words) that is one of
// names (case and accents aside: "thanks jose" to José), or a short form
// of one (isShortFor: "Mel" for Melanie), each byte with a space, so that
// offsets into text (its passages, its restated sentences) still hold.
// "Melanie's" holds the word "Melanie".
func unaddressed(text string, names []string) string {
	if len(names) == 0 {
		return text
	}
	nick := nicknamesOn()
	bare := make([]string, len(names)) // the names without their accents
	for i, name := range names {
		bare[i] = words.Unaccented(name)
	}
	var b []byte // a copy, made at the first name found
	words.Each(text, 0, func(w words.Word) {
		plain := words.Unaccented(w.Text)
		for i, name := range names {
			if strings.EqualFold(w.Text, name) || nick && (isShortFor(w.Text, name) || strings.EqualFold(plain, bare[i])) {
				if b == nil {
					b = []byte(text)
				}
				for k := w.Start; k < w.End; k++ {
					b[k] = ' '
				}
				return
			}
		}
	})
	if b == nil {
		return text
	}
	return string(b)
}

// isShortFor reports whether word, as written, is a short form of name by
// which its bearer is called: a capitalised word of three letters or more
// that begins the name and is not the whole of it ("Mel" for Melanie,
// "Deb" for Deborah, "Cal" for Calvin). A word of the language is not one
// ("And" begins Andrew); a short form that is not the name's beginning
// ("Bill" for William) is not known.
func isShortFor(word, name string) bool {
	first, _ := utf8.DecodeRuneInString(word)
	if !unicode.IsUpper(first) || utf8.RuneCountInString(word) < 3 || len(word) >= len(name) {
		return false
	}
	return strings.EqualFold(word, name[:len(word)]) && !words.IsStopword(strings.ToLower(word))
}

// nicknamesOn reports whether short forms of names are read
// (LOCI_NICKNAMES=0 turns it off, for comparisons).
func nicknamesOn() bool { return os.Getenv("LOCI_NICKNAMES") != "0" }
