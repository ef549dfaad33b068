package palace

import (
	"math/bits"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/words"
)

// Misspelt words are read as the word they misspell.
//
// People chatting misspell ("vacaton", "recieve"), and a misspelt word
// matches no question's word. So a drawer is indexed with the word each
// of its misspellings stands for beside its own words, in the same field:
// the word the writer meant, at the weight of what they wrote. Its vector
// reads the word meant in place of the misspelling (withFixedWords): the
// encoder's vocabularies lack the misspelling, and the word beside it
// did not help the vector (RECALL.md, "A check on misspellings" and "The
// encoder reads the word meant").
//
// A word is taken for a misspelling when the lexicon (embed.Lexicon: the
// built-in encoder's 90,000 words) lacks it and exactly one lexicon word
// is one edit away from it: a letter left out, added or changed, or two
// neighbours swapped, the four errors behind about 80% of misspellings
// (Damerau 1964). When several words are one edit away the word is left
// as it is: choosing among them would be a guess about meaning, and a
// wrong word matches questions the text is not about. Short words are left
// alone for the same reason (minTypoLetters). Only words of the letters
// a–z are read: the lexicon is English.
//
// A query's misspelt word asks for the word it misspells as well, by the
// same rule: a person's prompt, which a hook recalls memories for, is
// typed in haste too.
//
// Informal words and British spellings are read the same way: "fam",
// "pics", "bday", "my fav" and "favourite" are indexed with "family",
// "photos pictures", "birthday" and "favorite" beside them (words.Standard,
// a closed English list), and such a word of a query asks for its standard
// word too. These need no lexicon. The vector reads the standard word in
// place of the informal one where the encoder's vocabulary lacks the form
// ("tmrw", "bday"), as it reads the word a misspelling means; a form it
// knows ("mom", "went", "favourite") it reads as written (encoderFix).
//
// An identifier written in camel case is read as its words too:
// "RateLimiter" is indexed with "Rate Limiter" beside it
// (words.CaseParts), and such an identifier of a query asks for its words
// as well. A person asks about code in words ("where do we parse the HTTP
// response"), and the tokenizer, which must equal FTS5's, keeps
// "parseHTTPResponse" one token; snake case needs nothing, since an
// underscore separates tokens already. Prose has few such words ("YouTube",
// "McDonald") and LoCoMo ranks the same with them read so, question by
// question; asked about functions of Go's own packages in the words of
// their doc comments, keyword search gains .10 to .24 any@10 (RECALL.md,
// "Identifiers read as words"). The vector is made from the text as
// written.
//
// Nothing is stored: the corrections are made again whenever a text is
// indexed, from its text and the lexicon. The lexicon's words are decoded
// once a process first needs them, as the encoder's are.

// An emoji that names a thing is read as its words: "my new 🐶" is
// indexed with "dog" beside it, and "off to 🇯🇵" with "Japan"
// (words.EachEmoji: Unicode's names of animals, food, places, activities,
// objects, flags and people at work or play; faces, hearts and hands name
// nothing). The vector reads them too, in place of the emoji
// (withEmojiWords): neither of the encoder's vocabularies holds the
// picture, and both hold its words. The emoji a speaker's label
// ends with ("Jess 🌸: ") are part of a name, not what the text says.

// standardOn reports whether informal words and British spellings are
// read as their standard word (LOCI_STANDARD=0 turns it off, for
// comparisons).
func standardOn() bool { return os.Getenv("LOCI_STANDARD") != "0" }

// emojiOn reports whether an emoji that names a thing is read as its
// words (LOCI_EMOJI=0 turns it off, for comparisons).
func emojiOn() bool { return os.Getenv("LOCI_EMOJI") != "0" }

// identsOn reports whether an identifier written in camel case is read
// as its words as well (LOCI_IDENTS=0 turns it off, for comparisons).
func identsOn() bool { return os.Getenv("LOCI_IDENTS") != "0" }

// vectorFixesOn reports whether a vector reads each word that stands for
// another as that word (withFixedWords; LOCI_VECTOR_FIXES=0 turns it off,
// for comparisons). The keyword index reads them either way.
func vectorFixesOn() bool { return os.Getenv("LOCI_VECTOR_FIXES") != "0" }

// minTypoLetters is the shortest word read as a possible misspelling.
// The shorter a word, the more lexicon words lie one edit from it, and the
// more often a single one is there by chance. Chosen on LoCoMo
// conversations 1-5 with one word in ten misspelt (`loci eval locomo
// --typos 0.1`, session path, hybrid any@10): 4 letters .848, 5 .850,
// 6 .854 (.841 without corrections); on LoCoMo as written .868, .869,
// .869 (.870 without). (Measured with the word placed at the half weight
// of borrowed context; RECALL.md, "A check on misspellings".)
const minTypoLetters = 6

// spelling reads misspelt words against one lexicon and remembers the fix
// it found for each word the lexicon lacks. Building a palace's keyword
// index reads every word of every text, and a word the lexicon lacks (a
// name, a project's identifier, a misspelling) recurs from text to text;
// finding its fix tries some 50 candidates per letter of it, which was
// half the index's build time (CPU profile of 10,000 exchanges). At most
// maxSpellingMemo words are remembered; past that, fixes are found anew.
type spelling struct {
	known embed.Lexicon
	fixes sync.Map // lower-case word the lexicon lacks -> its fix, or ""
	size  atomic.Int32
}

// maxSpellingMemo bounds the words a spelling remembers (a few MB).
const maxSpellingMemo = 1 << 15

// newSpelling reads against known; nil (no corrections) when known is nil.
func newSpelling(known embed.Lexicon) *spelling {
	if known == nil {
		return nil
	}
	return &spelling{known: known}
}

// fix is the lexicon word that the lower-case word w misspells
// (oneEditFrom), or "" when w is known or stands for no one word.
func (s *spelling) fix(w string) string {
	if s.known([]byte(w)) {
		return ""
	}
	if v, ok := s.fixes.Load(w); ok {
		return v.(string)
	}
	fix := oneEditFrom(w, s.known)
	if s.size.Load() < maxSpellingMemo {
		if _, had := s.fixes.LoadOrStore(w, fix); !had {
			s.size.Add(1)
		}
	}
	return fix
}

// wordFixes returns the words that the words of text stand for, once per
// occurrence, separated by spaces: the words of each identifier in camel
// case (words.CaseParts), the word each other word stands for (wordFix),
// and the words of each emoji that names a thing; "" when there are none.
func wordFixes(text string, sp *spelling) string {
	var fixes []string
	standard := standardOn()
	idents := identsOn()
	words.Each(text, 0, func(wd words.Word) {
		if idents {
			if parts := words.CaseParts(wd.Text); parts != nil {
				fixes = append(fixes, parts...)
				return
			}
		}
		if f := wordFix(wd.Text, sp, standard); f != "" {
			fixes = append(fixes, f)
		}
	})
	eachEmoji(text, func(_, _ int, name string) {
		fixes = append(fixes, name)
	})
	return strings.Join(fixes, " ")
}

// wordFix is the word or words that the word w stands for, or "" when it
// stands for none: the standard word of an informal one or a British
// spelling (words.Standard, when standard: "fam" stands for "family",
// "favourite" for "favorite"), and the lexicon word of a word drawn out
// for emphasis (unstretched: "sooo" stands for "so") or misspelt (none
// when sp is nil).
func wordFix(w string, sp *spelling, standard bool) string {
	if standard {
		if f := words.Standard(w); f != "" {
			return f
		}
	}
	if sp == nil || !lettersOnly(w) {
		return ""
	}
	if drawnOut(w) {
		if fix := unstretched(strings.ToLower(w), sp.known); fix != "" {
			return fix
		}
	}
	if len(w) < minTypoLetters {
		return ""
	}
	return sp.fix(strings.ToLower(w))
}

// eachEmoji calls fn for each emoji of text that names a thing
// (words.EachEmoji) but those of the speaker's label it opens with, which
// end a name ("Jess 🌸: ", after a header or not), unless emoji are not
// read (LOCI_EMOJI=0).
func eachEmoji(text string, fn func(start, end int, name string)) {
	if !emojiOn() {
		return
	}
	label := -1 // read at the first emoji
	words.EachEmoji(text, func(start, end int, name string) {
		if label < 0 {
			label = labelEnd(text)
		}
		if end > label {
			fn(start, end, name)
		}
	})
}

// labelEnd is the offset in text at which the speaker's label it opens
// with ends, after its header ("[D1:3] (8 May, 2023) Jess 🌸: "), or 0
// when it opens with none.
func labelEnd(text string) int {
	_, body, headed := readHeaded(text)
	n := labelLen(body, headed)
	if n == 0 {
		return 0
	}
	return strings.Index(text, body) + n // body is the rest of text
}

// withEmojiWords is text with each emoji that names a thing replaced by
// its words (eachEmoji; "off to 🇯🇵" reads "off to Japan"), as a vector
// reads it; text itself when it holds none.
func withEmojiWords(text string) string {
	var b strings.Builder
	at := 0
	eachEmoji(text, func(start, end int, name string) {
		b.WriteString(text[at:start])
		if start > 0 && text[start-1] != ' ' && text[start-1] != '\n' {
			b.WriteByte(' ')
		}
		b.WriteString(name)
		if end < len(text) && text[end] != ' ' && text[end] != '\n' {
			b.WriteByte(' ')
		}
		at = end
	})
	if at == 0 {
		return text
	}
	b.WriteString(text[at:])
	return b.String()
}

// encoderText is text as a vector reads it: each word that stands for
// another as that word (withFixedWords: "vacaton" as "vacation", "bday" as
// "birthday"), each emoji that names a thing as its words
// (withEmojiWords), and the words of the identifiers it holds after it
// (withIdentifierWords).
func encoderText(text string, sp *spelling) string {
	return withIdentifierWords(withEmojiWords(withFixedWords(text, sp)))
}

// withFixedWords is text with each word that stands for another (wordFix:
// an informal word or a British spelling, a word drawn out, a misspelling)
// replaced by the word it stands for, in its place, as the keyword index
// reads it; text itself when it holds none, or when a vector reads words
// as written (LOCI_VECTOR_FIXES=0). Neither of the encoder's vocabularies
// holds a misspelling or most texting spellings, so the word the writer
// meant says more to it than what they typed. A word is read with its
// apostrophe ("couldn't" is not "couldn" and "t"), and an identifier is
// left as it is (withIdentifierWords adds its words).
func withFixedWords(text string, sp *spelling) string {
	if !vectorFixesOn() {
		return text
	}
	standard := standardOn()
	return replacedWords(text, words.Apostrophes, func(w string) string {
		return encoderFix(w, sp, standard)
	})
}

// replacedWords is text with each of its words (words.Each with opt) for
// which with returns a replacement replaced by it, in its place; text
// itself when with returns "" for every word.
func replacedWords(text string, opt words.Option, with func(w string) string) string {
	var b strings.Builder
	at := 0
	words.Each(text, opt, func(wd words.Word) {
		if r := with(wd.Text); r != "" {
			b.WriteString(text[at:wd.Start])
			b.WriteString(r)
			at = wd.End
		}
	})
	if at == 0 {
		return text
	}
	b.WriteString(text[at:])
	return b.String()
}

// hasFixedWord reports whether text holds a word that stands for another
// (withFixedWords replaces it).
func hasFixedWord(text string, sp *spelling) bool {
	if !vectorFixesOn() {
		return false
	}
	standard := standardOn()
	found := false
	words.Each(text, words.Apostrophes, func(wd words.Word) {
		found = found || encoderFix(wd.Text, sp, standard) != ""
	})
	return found
}

// encoderFix is the word the encoder reads in place of the word w: the
// word it stands for (wordFix), but only when the encoder's vocabulary
// (sp's lexicon, the built-in encoder's words) lacks w as written; ""
// otherwise. It knows "went", "children" and "favourite", whose tense,
// number and spelling it reads well. Without a lexicon (LOCI_TYPOS=0)
// nothing is known to be lacking, and an identifier keeps its form
// (withIdentifierWords adds its words).
func encoderFix(w string, sp *spelling, standard bool) string {
	fix := wordFix(w, sp, standard)
	if fix == "" || sp == nil || words.CaseParts(w) != nil || sp.known([]byte(strings.ToLower(w))) {
		return ""
	}
	return fix
}

// unstretched is the known word that the lower-case word w draws out for
// emphasis, as people do in chat ("loveeee", "sooo goood", "yesss"), or
// "" when w is not drawn out or stands for no known word. No English word
// holds a letter three times in a row, so such a run is read as two of
// the letter and, failing that, as one: every way of reading the runs is
// tried, those keeping more runs double first ("cooool" is "cool" before
// "col", "yesss" is "yes" since "yess" is no word), and the first known
// one wins. A word of one letter only ("www", "iii", "zzz") is left as it
// is. This is the lengthening step of lexical normalisation for chat
// (Brody and Diakopoulos 2011; Han and Baldwin 2011); nothing is chosen.
func unstretched(w string, known embed.Lexicon) string {
	type run struct{ at, n int }
	var runs []run
	for i := 0; i < len(w); {
		j := i
		for j < len(w) && w[j] == w[i] {
			j++
		}
		if j-i >= 3 {
			runs = append(runs, run{i, j - i})
		}
		i = j
	}
	if len(runs) == 0 || (len(runs) == 1 && runs[0].n == len(w)) {
		return ""
	}
	if len(runs) > maxStretchedRuns {
		runs = runs[:maxStretchedRuns] // a run past these stays as written
	}
	// keep is a mask of the runs read as two letters; masks with more of
	// them are tried first.
	buf := make([]byte, 0, len(w))
	for double := len(runs); double >= 0; double-- {
		for keep := 0; keep < 1<<len(runs); keep++ {
			if bits.OnesCount(uint(keep)) != double {
				continue
			}
			buf, at := buf[:0], 0
			for r, ru := range runs {
				buf = append(buf, w[at:ru.at+1]...)
				if keep&(1<<r) != 0 {
					buf = append(buf, w[ru.at])
				}
				at = ru.at + ru.n
			}
			buf = append(buf, w[at:]...)
			if known(buf) {
				return string(buf)
			}
		}
	}
	return ""
}

// drawnOut reports whether the word w of the letters a-z holds one of
// them three times in a row, in either case (unstretched).
func drawnOut(w string) bool {
	for i := 2; i < len(w); i++ {
		if c := w[i] | 0x20; c == w[i-1]|0x20 && c == w[i-2]|0x20 {
			return true
		}
	}
	return false
}

// maxStretchedRuns bounds the drawn-out runs of one word read both ways
// (2^4 readings); "sooooo haaappyyy" has two.
const maxStretchedRuns = 4

// standardText is text with each informal word and British spelling
// replaced by its standard word ("see u tmrw" reads "see u tomorrow"), for
// the patterns that read a text's words in place (namesTime); text itself
// when it holds none, or when the lists are off.
func standardText(text string) string {
	if !standardOn() {
		return text
	}
	return replacedWords(text, 0, words.Standard)
}

// withIdentifierWords is text followed by the words of each identifier
// in camel case it holds (words.CaseParts; "parseHTTPResponse" gives
// "parse HTTP Response"), once per occurrence, as a vector reads it: the
// sentence encoder's vocabularies hold the words, not the identifier, so
// a question about the code in words ("where do we parse the response")
// is near the code that names them. text itself when it holds none, or
// when identifiers are not read as words (LOCI_IDENTS=0).
func withIdentifierWords(text string) string {
	if !identsOn() {
		return text
	}
	var parts []string
	words.Each(text, 0, func(wd words.Word) {
		parts = append(parts, words.CaseParts(wd.Text)...)
	})
	if len(parts) == 0 {
		return text
	}
	return text + "\n" + strings.Join(parts, " ")
}

// hasIdentifier reports whether text holds an identifier in camel case
// (words.CaseParts), whose words withIdentifierWords adds.
func hasIdentifier(text string) bool {
	found := false
	words.Each(text, 0, func(wd words.Word) {
		found = found || words.CaseParts(wd.Text) != nil
	})
	return found
}

// readsMore reports whether a vector reads text with words it does not
// write (vectorWords): those of an identifier in camel case or of an
// emoji, or the word that one of its words stands for.
func readsMore(text string, sp *spelling) bool {
	return identsOn() && hasIdentifier(text) || emojiOn() && words.HasEmoji(text) || hasFixedWord(text, sp)
}

// withWordFixes is text followed by the words its informal and misspelt
// words stand for (wordFixes), as it is indexed.
func withWordFixes(text string, sp *spelling) string {
	if fixes := wordFixes(text, sp); fixes != "" {
		return text + "\n" + fixes
	}
	return text
}

// lettersOnly reports whether w is made of the letters a–z, in either
// case.
func lettersOnly(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// oneEditFrom returns the one known word a single edit away from w, or ""
// when none or several are. Candidates are made in one buffer and looked
// up without a copy; it stops at the second word found.
func oneEditFrom(w string, known embed.Lexicon) string {
	found := ""
	// try reports whether to go on: false once a second word is found.
	try := func(c []byte) bool {
		if !known(c) || string(c) == found {
			return true
		}
		if found != "" {
			return false
		}
		found = string(c)
		return true
	}
	b := []byte(w)
	c := make([]byte, 0, len(b)+1)
	for i := range b {
		if !try(append(append(c[:0], b[:i]...), b[i+1:]...)) { // left out
			return ""
		}
		if i+1 < len(b) && b[i] != b[i+1] {
			c = append(c[:0], b...)
			c[i], c[i+1] = c[i+1], c[i]
			if !try(c) { // swapped
				return ""
			}
		}
		c = append(c[:0], b...)
		for l := byte('a'); l <= 'z'; l++ {
			if l == b[i] {
				continue
			}
			c[i] = l
			if !try(c) { // changed
				return ""
			}
		}
	}
	for i := 0; i <= len(b); i++ {
		c = append(append(c[:0], b[:i]...), 0)
		c = append(c, b[i:]...)
		for l := byte('a'); l <= 'z'; l++ {
			c[i] = l
			if !try(c) { // added
				return ""
			}
		}
	}
	return found
}
